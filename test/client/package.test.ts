import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientPackage, packageManifest } from '../../scripts/build-client-package.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';

/**
 * The npm package of the client and the CLI (packages/client, docs/clients.md) as a user gets it: built into a
 * temporary copy of the package folder, packed with `npm pack`, installed from the tarball into an empty project
 * whose path holds a space, then its bin run against a real server on the devnet and its declarations type-checked
 * by a TypeScript consumer. The devnet and the server start while the package builds and installs.
 */
const root = new URL('../..', import.meta.url).pathname;
const manifest = packageManifest();
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const typesNode = lock.packages['node_modules/@types/node'].version as string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end without blocking this process (the devnet starts meanwhile). */
function run(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      resolve({
        code: err ? (typeof code === 'number' ? code : 1) : 0,
        stdout,
        stderr: `${stderr}${err && typeof code !== 'number' ? err.message : ''}`,
      });
    });
  });
}

/**
 * npm's environment: this run's, without the npm_* variables `npx vitest` sets (its project would be this
 * repository's) and without the run's NODE_OPTIONS (the solc cache of test/support/solc-cache.cjs).
 */
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'),
);

interface Packed {
  filename: string;
  size: number;
  entryCount: number;
  files: Array<{ path: string }>;
}

describe('the client package, packed and installed', () => {
  let work: string;
  let app: string;
  let packed: Packed;
  let running: DevnetServer | undefined;
  /** The installed bin, run as a user runs it: only PATH, HOME and `env` in its environment. */
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(join(app, 'node_modules/.bin/custom-launch'), args, {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });

  const buildAndInstall = async () => {
    const folder = join(work, 'package');
    mkdirSync(folder);
    await buildClientPackage(folder);
    const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: folder, env: npmEnv });
    expect(pack.code, pack.stderr).toBe(0);
    [packed] = JSON.parse(pack.stdout) as [Packed];
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const install = await run(
      'npm',
      [
        'install',
        join(work, packed.filename),
        `@types/node@${typesNode}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: app, env: npmEnv },
    );
    expect(install.code, install.stderr).toBe(0);
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'custom-launch-package-'));
    app = join(work, 'my app');
    mkdirSync(app);
    const [server, installed] = await Promise.allSettled([startDevnetServer('package'), buildAndInstall()]);
    if (server.status === 'fulfilled') running = server.value;
    if (server.status === 'rejected') throw server.reason;
    if (installed.status === 'rejected') throw installed.reason;
  }, 300_000);

  afterAll(async () => {
    await running?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds compiled JavaScript, declarations and the schemas it reads: no TypeScript source, no test', () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(test|tests|__tests__)\/|\.test(-d)?\.|\.map$|tsbuildinfo/.test(p))).toEqual([]);
    // Every file lies in the folders `files` names, beside package.json and the README.
    expect(paths.filter((p) => !/^(bin|dist)\//.test(p))).toEqual(['README.md', 'package.json']);
    const schemas = readdirSync(join(root, 'spec/schemas')).filter((f) => f.endsWith('.schema.json'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'bin/custom-launch.js',
        'dist/cli.js',
        'dist/index.js',
        'dist/src/solidity/solc-worker.mjs',
        ...schemas.map((f) => `dist/spec/schemas/${f}`),
      ]),
    );
    // What package.json points at is in the tarball.
    const entry = manifest as unknown as { exports: { '.': { types: string; import: string } }; bin: object };
    for (const target of [entry.exports['.'].types, entry.exports['.'].import, ...Object.values(entry.bin)]) {
      expect(paths).toContain(target.replace(/^\.\//, ''));
    }
  });

  it('installs a custom-launch bin that prints its usage and the package version', async () => {
    const help = await cli(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^custom-launch \S+: the V4 launch client for chain 4663/);
    expect(help.stdout).toContain('custom-launch preflight <request.json>');
    expect(help.stdout).toContain('Exit codes:');
    const version = await cli(['--version']);
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it('packs the example project with the bundled solc and preflights it against a real server', async () => {
    const server = running as DevnetServer;
    const request = join(app, 'request.json');
    const pack = await cli([
      'pack',
      join(root, 'examples/example-launch'),
      '--out',
      request,
      '--chain-deployment',
      join(server.dir, 'chain-deployment.json'),
    ]);
    expect(pack.code, pack.stderr).toBe(0);
    const env = { PLATFORM_API_KEY: server.key, CUSTOM_LAUNCH_ORIGIN: server.server.url };
    const preflight = await cli(['preflight', request, '--json'], env);
    expect(preflight.code, preflight.stderr).toBe(0);
    expect(JSON.parse(preflight.stdout).schemaVersion).toBe('platform.custom-launch-preflight.v2');

    // The library entry, imported by name from plain JavaScript: a list, and a 404 returned as a typed error.
    writeFileSync(
      join(app, 'list.mjs'),
      `import { createLaunchClient } from '@custom-launch/client';
const client = createLaunchClient({ baseUrl: process.env.CUSTOM_LAUNCH_ORIGIN, apiKey: process.env.PLATFORM_API_KEY });
const list = await client.list({ limit: 1 });
const missing = await client.get('00000000-0000-4000-8000-000000000000');
const launches = list.data.launches.length;
console.log(JSON.stringify({ list: list.response.status, launches, missing: missing.error.error.code }));
`,
    );
    const library = await run(process.execPath, ['list.mjs'], { cwd: app, env: { ...env, PATH: '' } });
    expect(library.code, library.stderr).toBe(0);
    expect(JSON.parse(library.stdout)).toEqual({ list: 200, launches: 0, missing: 'NOT_FOUND' });
  }, 120_000);

  it('type-checks a TypeScript consumer and the documented examples against the installed declarations', async () => {
    // The TypeScript blocks of docs/clients.md and the package's README, each compiled as a module of its own.
    const documented = ['docs/clients.md', 'packages/client/README.md'].flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string),
    );
    expect(documented.length).toBe(2);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          strict: true,
          noEmit: true,
          // The dependencies' own declarations are not this package's to check; checking them took four times as long.
          skipLibCheck: true,
        },
        files: ['consumer.ts', ...documented.map((_, i) => `documented-${i}.ts`)],
      }),
    );
    documented.forEach((code, i) => {
      writeFileSync(join(app, `documented-${i}.ts`), code);
    });
    // Each @ts-expect-error fails the check if the declarations did not resolve (everything would be `any`).
    writeFileSync(
      join(app, 'consumer.ts'),
      `import {
  createLaunchClient,
  type CustomLaunchCreateRequestV4,
  type LaunchResourceV4,
} from '@custom-launch/client';

const client = createLaunchClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.PLATFORM_API_KEY });

export async function statusOf(launchId: string): Promise<LaunchResourceV4['status'] | undefined> {
  const { data, error } = await client.get(launchId);
  if (error) {
    console.error(error.error.code, error.error.requestId);
    return undefined;
  }
  return data.status;
}

export async function calls(body: CustomLaunchCreateRequestV4): Promise<void> {
  await client.preflight(body);
  await client.create(body, 'idempotency-key-0001');
  // @ts-expect-error no such path in the spec
  await client.raw.GET('/v4/chains/{chainId}/no-such-thing', { params: { path: { chainId: '4663' } } });
  // @ts-expect-error the V4 lane's chainId is the const '4663'
  await client.raw.GET('/v4/chains/{chainId}/custom-launches', { params: { path: { chainId: '1' } } });
  // @ts-expect-error a body missing required fields is not a create request
  await client.create({}, 'idempotency-key-0002');
  // @ts-expect-error create needs an idempotency key
  await client.create(body);
}

// @ts-expect-error no such launch status
export const unknownStatus: LaunchResourceV4['status'] = 'deployed';
`,
    );
    const tsc = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(tsc.code, `${tsc.stdout}${tsc.stderr}`).toBe(0);
  }, 120_000);
});
