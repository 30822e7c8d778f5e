import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { openDatabase } from '../../src/store/db.ts';
import { type AdminRun, runAdmin } from '../support/admin.ts';
import { auth, call } from '../support/http.ts';
import { controlledBy, freshV4Bytes, v4Example } from '../support/server.ts';

// The operator command as a user runs it: a child process over a real SQLite file (a wallet key is bound to one
// wallet and a chain grant; the key is printed once and only its hash is stored).
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

let dir: string;
let databasePath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-cli-'));
  databasePath = join(dir, 'cli.sqlite');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function runCli(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return runAdmin(args, { DATABASE_PATH: databasePath, ...env });
}

/** Runs `fn` against a real server over this test's database file, then stops it. */
async function withServer(fn: (url: string) => Promise<void>): Promise<void> {
  const db = openDatabase(databasePath);
  const app = createApp({ db, config: { ...loadConfig({ CI: 'true' }), databasePath, validateResponses: true } });
  const server = app.listen(0, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    db.close();
  }
}

/** The database's bytes on disk: the main file and, when present, its WAL and shared-memory files. */
function bytesOnDisk(): Buffer {
  const files = [databasePath, `${databasePath}-wal`, `${databasePath}-shm`].filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

function keyCount(): number {
  const db = openDatabase(databasePath);
  try {
    return (db.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const createArgs = [
  'keys',
  'create',
  '--wallet',
  wallet,
  '--scopes',
  'custom-launch:create,custom-launch:read',
  '--chains',
  '4663',
];

describe('npm run admin -- keys create', () => {
  let apiKey = '';

  it('prints exactly one JSON line with the key once and stores only its hash', async () => {
    const run = await runCli(createArgs);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const lines = run.stdout.slice(0, -1).split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(printed).sort()).toEqual(['apiKey', 'chains', 'keyId', 'scopes', 'wallet']);
    expect(printed.apiKey).toMatch(/^clk_[A-Za-z0-9_-]{43}$/);
    expect(printed.keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(printed.wallet).toBe(wallet.toLowerCase());
    expect(printed.scopes).toEqual(['custom-launch:create', 'custom-launch:read']);
    expect(printed.chains).toEqual(['4663']);
    apiKey = printed.apiKey as string;

    // Read the raw bytes before anything else opens the file, so they are exactly what the command left behind.
    const raw = bytesOnDisk();
    expect(raw.length).toBeGreaterThan(0);
    expect(raw.includes(apiKey)).toBe(false);
    expect(raw.includes(apiKey.slice('clk_'.length))).toBe(false);

    const hash = createHash('sha256').update(apiKey, 'utf8').digest('hex');
    const db = openDatabase(databasePath);
    try {
      const rows = db.prepare('SELECT key_id, key_hash, wallet FROM api_keys').all() as Array<Record<string, string>>;
      expect(rows).toEqual([{ key_id: printed.keyId, key_hash: hash, wallet: wallet.toLowerCase() }]);
    } finally {
      db.close();
    }
  });

  it('mints a key a real server accepts', async () => {
    expect(apiKey).not.toBe('');
    await withServer(async (url) => {
      const ok = await call(`${url}/v4/chains/4663/custom-launches`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(ok.status).toBe(200);
      expect(ok.json).toEqual({ launches: [], nextCursor: null });
      const anonymous = await call(`${url}/v4/chains/4663/custom-launches`);
      expect(anonymous.status).toBe(401);
    });
  });

  const withArg = (name: string, value: string) => {
    const args = [...createArgs];
    args[args.indexOf(name) + 1] = value;
    return args;
  };
  it.each([
    [
      'missing --wallet',
      createArgs.slice(0, 2).concat(createArgs.slice(4)),
      /--wallet, --scopes and --chains are all required/,
    ],
    ['a bad wallet', withArg('--wallet', '0x1234'), /--wallet must be a 0x address/],
    [
      'an unknown scope',
      withArg('--scopes', 'custom-launch:read,launches:everything'),
      /unknown scope launches:everything/,
    ],
    [
      'the reserved scope fees:claim',
      withArg('--scopes', 'custom-launch:read,fees:claim'),
      /scope fees:claim is reserved/,
    ],
    ['an unknown chain', withArg('--chains', '4663,10'), /unknown chain 10/],
    ['an unknown command', ['keys', 'delete', '--wallet', wallet], /unknown command "keys delete"/],
    ['an unknown flag', [...createArgs, '--admin'], /--admin/],
    ['no command', [], /no command/],
  ])('refuses %s: exit 2, a message on stderr, nothing on stdout, no key stored', async (_name, args, message) => {
    const before = keyCount();
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/usage:/);
    expect(keyCount()).toBe(before);
  });
});

describe('npm run admin -- keys revoke', () => {
  it('revokes a wallet key (401 from then on); a replacement key of the wallet reads the launch it created', async () => {
    const minted = JSON.parse((await runCli(createArgs)).stdout) as { apiKey: string; keyId: string };
    let launchId = '';
    await withServer(async (url) => {
      const created = await call(`${url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: auth(minted.apiKey, { 'Idempotency-Key': 'admin-revoke-0000001' }),
        body: freshV4Bytes(v4Example, controlledBy(wallet)),
      });
      expect(created.status, created.text).toBe(202);
      launchId = created.json.launchId;
    });
    const revoked = await runCli(['keys', 'revoke', minted.keyId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ keyId: minted.keyId, wallet: wallet.toLowerCase() });
    const again = await runCli(['keys', 'revoke', minted.keyId]);
    expect(again.stdout).toBe(revoked.stdout);
    const replacement = JSON.parse((await runCli(createArgs)).stdout) as { apiKey: string };
    await withServer(async (url) => {
      const read = (apiKey: string) =>
        call(`${url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(apiKey) });
      expect((await read(minted.apiKey)).status).toBe(401);
      const r = await read(replacement.apiKey);
      expect(r.status, r.text).toBe(200);
      expect(r.json.launchId).toBe(launchId);
    });
  });

  it.each([
    ['an unknown key id', ['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], /no key/],
    ['no key id', ['keys', 'revoke'], /keys revoke takes one keyId/],
  ])('refuses %s: exit 2', async (_name, args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});

describe('npm run admin -- source-verification', () => {
  let launchId = '';
  const registry = () => join(dir, 'registry.json');
  const example = JSON.parse(
    readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
  ) as { graphBundle: { targets: Array<{ targetId: string; runtimeCodeHash: string }> } };

  beforeAll(async () => {
    const minted = await runCli(createArgs);
    const { apiKey } = JSON.parse(minted.stdout) as { apiKey: string };
    await withServer(async (url) => {
      const created = await call(`${url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': 'admin-sv-0000000001',
        },
        body: readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url)),
      });
      expect(created.status, created.text).toBe(202);
      launchId = created.json.launchId;
    });
  });

  it('targets prints each target: the address the router factory gives it and the code hash the request binds', async () => {
    const run = await runCli(['source-verification', 'targets', launchId]);
    expect(run.code, run.stderr).toBe(0);
    const targets = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(targets.map((t) => t.targetId)).toEqual(example.graphBundle.targets.map((t) => t.targetId));
    for (const t of targets) {
      expect(t.chainId).toBe('4663');
      expect(t.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(t.runtimeCodeHash).toBe(
        example.graphBundle.targets.find((e) => e.targetId === t.targetId)?.runtimeCodeHash,
      );
    }
    // The hook's address carries its permission mask (192: beforeSwap, afterSwap) in its low 14 bits.
    const hook = targets.find((t) => t.targetId === 'hook');
    expect(Number(BigInt(hook.address) & 0x3fffn)).toBe(192);
    expect((await runCli(['source-verification', 'targets', '00000000-0000-4000-8000-000000000000'])).code).toBe(2);
  });

  it('record appends what a provider reported for one target to the registry file, and refuses what it cannot bind', async () => {
    const env = { SOURCE_VERIFICATION_REGISTRY_PATH: registry() };
    const args = (target: string, provider = 'my-provider', digest = `sha256:${'a'.repeat(64)}`) => [
      'source-verification',
      'record',
      launchId,
      '--target',
      target,
      '--provider',
      provider,
      '--evidence-uri',
      `https://verification.example/${target}`,
      '--evidence-digest',
      digest,
    ];
    for (const target of ['token', 'hook']) {
      const run = await runCli(args(target), env);
      expect(run.code, run.stderr).toBe(0);
    }
    const records = JSON.parse(readFileSync(registry(), 'utf8'));
    expect(records).toHaveLength(2);
    // No finalized feed row for this launch: nothing to bring forward, and nothing else was written.
    const db = openDatabase(databasePath);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM finalized_feed').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    expect(records[0]).toEqual({
      chainId: '4663',
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      runtimeCodeHash: example.graphBundle.targets.find((t) => t.targetId === 'token')?.runtimeCodeHash,
      provider: 'my-provider',
      evidenceUri: 'https://verification.example/token',
      evidenceDigest: `sha256:${'a'.repeat(64)}`,
    });
    for (const bad of [args('nope'), args('token', 'My Provider'), args('token', 'p', 'sha256:zz')]) {
      const run = await runCli(bad, env);
      expect(run.code).toBe(2);
    }
    expect((await runCli(args('token'))).code).toBe(2); // no registry path configured
    expect(JSON.parse(readFileSync(registry(), 'utf8'))).toHaveLength(2);
  });
});
