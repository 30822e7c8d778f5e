import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { serverBundle } from '../support/process.ts';

const root = new URL('../..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** src/main.ts as its own process; resolves with every log line once the service (and any developer API) listens. */
async function startMain(developersPort: string): Promise<{ child: ChildProcess; lines: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'custom-launch-developer-'));
  dirs.push(dir);
  const child = spawn(process.execPath, [serverBundle], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      DEVELOPERS_PORT: developersPort,
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'db.sqlite'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const wanted = developersPort === 'off' ? 'custom-launch-api listening' : 'developer API listening';
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      lines.splice(0, lines.length, ...out.split('\n').filter((l) => l.trim() !== ''));
      if (out.includes(wanted)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
    setTimeout(() => reject(new Error('server did not start within 30 s')), 30_000).unref();
  });
  return { child, lines };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const urlOf = (lines: string[], msg: string) =>
  (JSON.parse(lines.find((l) => l.includes(`"msg":"${msg}"`)) as string) as { url: string }).url;

describe('src/main.ts and DEVELOPERS_PORT', () => {
  it('serves the developer API on its own listener, logged second, and stops it on SIGTERM', async () => {
    const { child, lines } = await startMain('0');
    const service = urlOf(lines, 'custom-launch-api listening');
    const developer = urlOf(lines, 'developer API listening');
    expect(lines.findIndex((l) => l.includes('custom-launch-api listening'))).toBeLessThan(
      lines.findIndex((l) => l.includes('developer API listening')),
    );
    expect(developer).not.toBe(service);
    const status = await call(`${developer}/api/v2/status`);
    expect(status.status).toBe(200);
    expect(status.json.service.readiness).toBe('ready');
    expect((await call(`${service}/api/v2/status`)).status).toBe(404);
    expect(await stop(child)).toBe(0);
  });

  it('with DEVELOPERS_PORT=off nothing else listens and the service is unchanged', async () => {
    const { child, lines } = await startMain('off');
    const service = urlOf(lines, 'custom-launch-api listening');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lines.some((l) => l.includes('developer API'))).toBe(false);
    expect((await call(`${service}/readyz`)).status).toBe(200);
    expect(await stop(child)).toBe(0);
  });
});
