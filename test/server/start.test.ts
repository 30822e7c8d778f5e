import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleIsFresh, root, serverBundle, serverStamp } from '../../scripts/bundle/fresh.mjs';
import { listeningUrlIn } from '../support/process.ts';

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm start` with no chain configured, in its own process group; resolves with the API's origin once it listens. */
async function npmStart(): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    DEVELOPERS_PORT: 'off',
    HOST: '127.0.0.1',
    DATABASE_PATH: join(tempDir('custom-launch-start-'), 'db.sqlite'),
  };
  for (const name of Object.keys(env)) if (/^CHAIN_\d+_RPC_URLS$/.test(name)) delete env[name];
  const child = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = listeningUrlIn(out, 'custom-launch-api listening');
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited early with ${code}: ${out}`)));
    setTimeout(() => reject(new Error('npm start did not listen within 45 s')), 45_000).unref();
  });
  return { child, url };
}

/** SIGTERM to npm start's process group (npm, its shell and the server), then waits for npm to exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

async function startAndGetDiscovery(): Promise<void> {
  const { child, url } = await npmStart();
  try {
    const res = await fetch(`${url}/.well-known/platform-custom-launch-discovery.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await res.json();
  } finally {
    await stop(child);
  }
}

describe('npm start: the server from its bundle (bin/server.mjs)', () => {
  it('listens with no chain configured and serves the discovery document', async () => {
    await startAndGetDiscovery();
    expect(bundleIsFresh(serverBundle, root, ['src', 'generated'])).toBe(true);
  }, 90_000);

  it('rebuilds a bundle older than its sources before starting it', async () => {
    const old = new Date('2000-01-01T00:00:00Z');
    utimesSync(serverBundle, old, old);
    await startAndGetDiscovery();
    expect(statSync(serverBundle).mtimeMs).toBeGreaterThan(old.getTime());
    expect(bundleIsFresh(serverBundle, root, ['src', 'generated'])).toBe(true);
  }, 90_000);
});

describe('bundleIsFresh', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

  /** A checkout with src/a.ts and src/lib/b.ts dated 10 s, and its bundle dated `bundleAt` seconds. */
  const checkout = (bundleAt: number, stampRoot?: string) => {
    const dir = `${tempDir('custom-launch-fresh-')}/`;
    mkdirSync(`${dir}src/lib`, { recursive: true });
    writeFileSync(`${dir}src/a.ts`, '');
    writeFileSync(`${dir}src/lib/b.ts`, '');
    writeFileSync(`${dir}package-lock.json`, '{}');
    for (const path of ['src/a.ts', 'src/lib/b.ts', 'src/lib', 'src', 'package-lock.json']) {
      utimesSync(`${dir}${path}`, at(10), at(10));
    }
    mkdirSync(`${dir}build`);
    writeFileSync(`${dir}build/main.mjs`, `// ${serverStamp(stampRoot ?? dir)}\nexport {};\n`);
    utimesSync(`${dir}build/main.mjs`, at(bundleAt), at(bundleAt));
    return dir;
  };
  const inputs = ['src', 'generated', 'package-lock.json'];

  it.each([
    ['a bundle newer than every input', true, 20, (dir: string) => dir],
    ['a bundle as old as the newest input', true, 10, (dir: string) => dir],
    ['a bundle older than the inputs', false, 9, (dir: string) => dir],
    [
      'a source file saved after the build',
      false,
      20,
      (dir: string) => {
        utimesSync(`${dir}src/lib/b.ts`, at(30), at(30));
        return dir;
      },
    ],
    [
      'a source file removed after the build (its folder is newer)',
      false,
      20,
      (dir: string) => {
        rmSync(`${dir}src/lib/b.ts`);
        return dir;
      },
    ],
    [
      'the lock file changed after the build',
      false,
      20,
      (dir: string) => {
        utimesSync(`${dir}package-lock.json`, at(30), at(30));
        return dir;
      },
    ],
    [
      'no bundle',
      false,
      20,
      (dir: string) => {
        rmSync(`${dir}build/main.mjs`);
        return dir;
      },
    ],
  ] as const)('%s: fresh %s', (_name, want, bundleAt, change) => {
    const dir = change(checkout(bundleAt));
    expect(bundleIsFresh(`${dir}build/main.mjs`, dir, inputs)).toBe(want);
  });

  it.each([
    ['this checkout', undefined, true],
    ['another checkout', '/elsewhere/', false],
  ] as const)('a bundle built from %s: fresh %s', (_name, stampRoot, want) => {
    const dir = checkout(20, stampRoot);
    expect(bundleIsFresh(`${dir}build/main.mjs`, dir, inputs)).toBe(want);
  });
});
