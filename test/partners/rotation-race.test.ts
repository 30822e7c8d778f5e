import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintPartnerRoot } from '../../src/auth/keys.ts';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { openDatabase } from '../../src/store/db.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { exampleBytes, exampleWallet, startServer, type TestServer } from '../support/server.ts';

// rotatePartnerSubkey under contention (spec/openapi/paths/partner-subkey-rotate.yaml: "Only a subkey not yet
// revoked rotates ..., so of two concurrent rotations exactly one succeeds"; a rotation atomically revokes the old
// credential). Each round: a fresh subkey, two rotations
// of it at once under different Idempotency-Keys; exactly one 201 and one 409 SUBKEY_REVOKED, and exactly one of
// the lineage's keys is live afterwards.

const { ajv } = loadSchemaRegistry();
const validateApiError = ajv.getSchema(`${schemaIdBase}api-error.schema.json`);
const validateSubkey = ajv.getSchema(`${schemaIdBase}partner-subkey.v1.schema.json`);
const validateList = ajv.getSchema(`${schemaIdBase}partner-subkey-list.v1.schema.json`);

// Expiries relative to the real clock these servers run on, so the file does not age out with the example's 2030.
const day = 86_400_000;
const rootExpiresAt = new Date(Date.now() + 365 * day).toISOString();
const requestBytes = JSON.stringify({
  ...JSON.parse(exampleBytes('partner-subkey-request.v1.json')),
  expiresAt: new Date(Date.now() + 30 * day).toISOString(),
});
let seq = 0;
const idem = () => `race-${String(process.pid).padStart(7, '0')}-${String(++seq).padStart(6, '0')}`;

const issue = (url: string, rootKey: string) =>
  call(`${url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: auth(rootKey, { 'Idempotency-Key': idem() }),
    body: requestBytes,
  });
const rotate = (url: string, rootKey: string, subkeyId: string) =>
  call(`${url}/v1/partner/subkeys/${subkeyId}/rotate`, {
    method: 'POST',
    headers: auth(rootKey, { 'Idempotency-Key': idem() }),
    body: requestBytes,
  });
const list = (url: string, rootKey: string) => call(`${url}/v1/partner/subkeys`, { headers: auth(rootKey) });
const readLaunches = (url: string, key: string) =>
  call(`${url}/v4/chains/4663/custom-launches`, { headers: auth(key) });

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json?.error?.code, r.text).toBe(code);
  expect(r.json.error.requestId, r.text).toBe(r.headers.get('x-request-id'));
  expect(validateApiError?.(r.json), ajv.errorsText(validateApiError?.errors)).toBe(true);
}

/**
 * Runs one round against `urls` (the first issues; rotation i goes to urls[i % urls.length]) and checks the outcome
 * on every url: one winner, one SUBKEY_REVOKED loser, exactly one live key, exactly one active item in the lineage.
 */
async function raceOnce(urls: string[], rootKey: string): Promise<void> {
  const first = await issue(urls[0] as string, rootKey);
  expect(first.status, first.text).toBe(201);
  const old = first.json as { subkeyId: string; lineageId: string; apiKey: string };
  const answers = await Promise.all([0, 1].map((i) => rotate(urls[i % urls.length] as string, rootKey, old.subkeyId)));
  expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join('\n')).toEqual([201, 409]);
  const winner = answers.find((a) => a.status === 201) as Reply;
  const loser = answers.find((a) => a.status === 409) as Reply;
  expectApiError(loser, 409, 'SUBKEY_REVOKED');
  expect(validateSubkey?.(winner.json), ajv.errorsText(validateSubkey?.errors)).toBe(true);
  expect(winner.json).toMatchObject({
    lineageId: old.lineageId,
    rotatedFromSubkeyId: old.subkeyId,
    secretState: 'delivered-once',
    status: 'active',
  });
  const keys = [old.apiKey, winner.json.apiKey as string];
  for (const url of urls) {
    const reads = await Promise.all(keys.map((k) => readLaunches(url, k)));
    // Exactly one live credential in the lineage: the replacement; the old one answers 401.
    expect(reads.map((r) => r.status)).toEqual([401, 200]);
    const listed = await list(url, rootKey);
    expect(listed.status, listed.text).toBe(200);
    expect(validateList?.(listed.json), ajv.errorsText(validateList?.errors)).toBe(true);
    const lineage = (listed.json.items as Array<{ lineageId: string; status: string; subkeyId: string }>).filter(
      (i) => i.lineageId === old.lineageId,
    );
    expect(lineage).toHaveLength(2);
    expect(lineage.filter((i) => i.status === 'active').map((i) => i.subkeyId)).toEqual([winner.json.subkeyId]);
    expect(lineage.find((i) => i.subkeyId === old.subkeyId)?.status).toBe('rotated');
  }
}

describe('two concurrent rotations of one subkey through one server', () => {
  let s: TestServer;
  let rootKey: string;
  beforeAll(async () => {
    s = await startServer();
    rootKey = s.partnerRoot({ name: 'Race partner', expiresAt: rootExpiresAt }).apiKey;
  });
  afterAll(() => s?.close());

  it('exactly one 201 and one 409 SUBKEY_REVOKED, one live key and one active item, 20 rounds on fresh subkeys', async () => {
    for (let round = 0; round < 20; round++) await raceOnce([s.url], rootKey);
    // Nothing else was stored: 20 subkeys and 20 replacements.
    const n = (s.db.prepare("SELECT count(*) AS n FROM api_keys WHERE kind = 'subkey'").get() as { n: number }).n;
    expect(n).toBe(40);
  });
});

describe('two concurrent rotations of one subkey across two server processes sharing one SQLite file', () => {
  let dir: string;
  let databasePath: string;
  let rootKey: string;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'custom-launch-rotation-race-'));
    databasePath = join(dir, 'api.sqlite');
    const db = openDatabase(databasePath);
    rootKey = mintPartnerRoot(db, {
      name: 'Cross-process race partner',
      wallet: exampleWallet,
      chains: ['4663'],
      expiresAt: rootExpiresAt,
      budgets: { prepareRequestsPerHour: 1000, readRequestsPerMinute: 1000, subkeyAdminRequestsPerHour: 1000 },
      now: Date.now(),
    }).apiKey;
    db.close();
    [a, b] = await Promise.all([
      startServerProcess({ DATABASE_PATH: databasePath, VALIDATE_RESPONSES: 'true' }),
      startServerProcess({ DATABASE_PATH: databasePath, VALIDATE_RESPONSES: 'true' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exactly one rotation commits and exactly one credential is live on both processes, 10 rounds', async () => {
    if (!a || !b) throw new Error('both processes must be running');
    for (let round = 0; round < 10; round++) {
      // Alternate which process issues and which rotation each process receives.
      await raceOnce(round % 2 === 0 ? [a.url, b.url] : [b.url, a.url], rootKey);
    }
    const db = openDatabase(databasePath);
    try {
      const rows = db
        .prepare("SELECT lineage_id, revoked_at, revoke_reason FROM api_keys WHERE kind = 'subkey'")
        .all() as Array<{ lineage_id: string; revoked_at: string | null; revoke_reason: string | null }>;
      expect(rows).toHaveLength(20);
      const lineages = new Map<string, number>();
      for (const r of rows)
        if (r.revoked_at === null) lineages.set(r.lineage_id, (lineages.get(r.lineage_id) ?? 0) + 1);
      expect(lineages.size).toBe(10);
      expect([...lineages.values()].every((n) => n === 1)).toBe(true);
    } finally {
      db.close();
    }
  });
});
