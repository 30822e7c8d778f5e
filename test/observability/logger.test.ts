import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../../scripts/bundle/fresh.mjs';
import { loadConfig } from '../../src/config.ts';
import { logTransition } from '../../src/domain/transition-log.ts';
import { logRequest } from '../../src/http/request-log.ts';
import { captureLogs, logger } from '../../src/observability/logger.ts';
import { listeningPorts } from '../cluster/sockets.ts';
import { serverBundle } from '../support/process.ts';

/*
 * The structured log (src/observability/logger.ts, docs/configuration.md Logs): JSON lines with a level label, an ISO
 * time and the process id; keys redacted in every string field and in the message; LOG_LEVEL chosen and refused on
 * both sides; worker events naming their launch; the request log's fields.
 */

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-logger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = `clk_${'A1b2C3d4'.repeat(5)}xyz`;

describe('the logger', () => {
  it('writes one JSON line per event: level label, ISO time, pid, message, fields', () => {
    const capture = captureLogs();
    try {
      logger.info({ launchId: 'l-1', attempt: 2 }, 'an event');
      logger.debug('below the level');
    } finally {
      capture.restore();
    }
    expect(capture.lines).toHaveLength(1);
    const [entry] = capture.entries();
    expect(entry).toMatchObject({ level: 'info', pid: process.pid, msg: 'an event', launchId: 'l-1', attempt: 2 });
    expect(new Date(entry?.time as string).toISOString()).toBe(entry?.time);
  });

  it('redacts a key in the message, in a field and in a nested field, and keeps the rest', () => {
    const capture = captureLogs();
    try {
      logger.error({ detail: `boom ${key} after`, nested: { list: [`Bearer ${key}`] } }, `failed with ${key}`);
    } finally {
      capture.restore();
    }
    const text = capture.lines.join('\n');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(4));
    const [entry] = capture.entries();
    expect(entry?.msg).toBe('failed with clk_[redacted]');
    expect(entry?.detail).toBe('boom clk_[redacted] after');
    expect(entry?.nested).toEqual({ list: ['Bearer clk_[redacted]'] });
  });

  it('a status change names its launch, lane, statuses and worker', () => {
    const capture = captureLogs();
    try {
      logTransition('v3_launch_transitions', { launchId: 'l-2', from: 'received', to: 'validating', worker: 'w' });
    } finally {
      capture.restore();
    }
    expect(capture.entries()).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'launch status',
        launchId: 'l-2',
        lane: 'v3',
        from: 'received',
        to: 'validating',
        worker: 'w',
      }),
    ]);
  });

  it('the request line: request id, operation, status, duration, key id; a 5xx at error; an aborted request marked', () => {
    const capture = captureLogs();
    try {
      const base = { requestId: 'req_1', method: 'GET', path: '/readyz', durationMs: 1.23456, aborted: false };
      logRequest({ ...base, operationId: 'getReadiness', status: 200, keyId: 'key_1' });
      logRequest({ ...base, status: 503 });
      logRequest({ ...base, status: 200, aborted: true });
    } finally {
      capture.restore();
    }
    const [ok, failed, aborted] = capture.entries();
    expect(ok).toMatchObject({
      level: 'info',
      msg: 'request',
      requestId: 'req_1',
      operationId: 'getReadiness',
      method: 'GET',
      path: '/readyz',
      status: 200,
      durationMs: 1.23,
      keyId: 'key_1',
    });
    expect(ok).not.toHaveProperty('aborted');
    expect(failed).toMatchObject({ level: 'error', operationId: null, keyId: null, status: 503 });
    expect(aborted).toMatchObject({ aborted: true });
  });
});

describe('LOG_LEVEL', () => {
  it.each([
    [undefined, 'info'],
    ['', 'info'],
    ['debug', 'debug'],
    [' WARN ', 'warn'],
    ['silent', 'silent'],
  ])('%j gives %s', (value, level) => {
    expect(loadConfig(value === undefined ? {} : { LOG_LEVEL: value }).logLevel).toBe(level);
  });

  it.each(['verbose', 'warning', '30'])('%j is refused, naming the levels', (value) => {
    expect(() => loadConfig({ LOG_LEVEL: value })).toThrow(/LOG_LEVEL must be one of trace, debug, info, warn/);
  });

  it('a server process at LOG_LEVEL=warn writes no request line; at info one per request', async () => {
    const linesAt = async (level: string): Promise<string[]> => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        LOG_LEVEL: level,
        PORT: '0',
        DEVELOPERS_PORT: 'off',
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, `${level}.sqlite`),
      };
      // No chain: a chain URL another test file of this worker left in process.env would hold the start-up on its
      // deployment evidence.
      for (const name of Object.keys(env)) if (/^CHAIN_\d+_RPC_URLS$/.test(name)) delete env[name];
      const child = spawn(process.execPath, [serverBundle], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.stderr?.on('data', (c: Buffer) => {
        out += c.toString();
      });
      let gone = false;
      const exited = new Promise((resolve) =>
        child.once('exit', (code) => {
          gone = true;
          resolve(code);
        }),
      );
      try {
        // At warn it logs no listening line: the port it listens on is read off /proc, then any answer will do.
        let port: number | undefined;
        const until = Date.now() + 45_000;
        while (port === undefined && !gone && Date.now() < until) {
          port = listeningPorts(child.pid as number)[0];
          if (port === undefined) await new Promise((r) => setTimeout(r, 50));
        }
        expect(port, out).toBeDefined();
        const answered = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          () => true,
          () => false,
        );
        expect(answered, out).toBe(true);
        await fetch(`http://127.0.0.1:${port}/v4/chains/4663/capabilities`);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      return out.split('\n').filter((l) => l.startsWith('{'));
    };
    const quiet = await linesAt('warn');
    expect(quiet.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
    const info = (await linesAt('info')).map((l) => JSON.parse(l) as { msg: string; operationId?: string });
    const requests = info.filter((l) => l.msg === 'request' && l.operationId === 'getCustomLaunchCapabilitiesV4');
    expect(requests).toHaveLength(1);
  }, 120_000);
});
