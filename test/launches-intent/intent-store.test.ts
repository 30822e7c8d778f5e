import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { digestOf } from '../../src/core/request-hashes.ts';
import { migrate } from '../../src/store/db.ts';
import { migrations } from '../../src/store/migrations.ts';
import { baseLayerRequest, baseLayerRequestBytes, defaultBaseLaunchWallet } from '../support/base-layer-request.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { databaseBefore } from '../support/migrations.ts';
import { multiRoleRequest, multiRoleRequestBytes } from '../support/multi-role-request.ts';
import { startServerProcess } from '../support/process.ts';
import {
  example,
  exampleBytes,
  exampleWallet,
  freshV4Bytes,
  startServer,
  v4Example,
  walletKeyInFile,
} from '../support/server.ts';

/**
 * One launch per intent in the store (src/store/migrations.ts, the intent claims; createCustomLaunchV4,
 * createCustomLaunchV3, createMultiRoleCustomLaunch): a database written before the unique claims, holding two
 * launches of one intent on each lane, migrates without failing and keeps both readable, the earliest holding the
 * claims; and two server processes on one SQLite file racing one intent store one launch.
 */

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-intent-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const baseFixture = new URL('../fixtures/base-deployment.json', import.meta.url).pathname;
const multiRoleFixture = new URL('../fixtures/multi-role-deployment.json', import.meta.url).pathname;
/** A database at the last migration before the intent claims, as an older release left it. */
const olderDatabase = (path: string) => databaseBefore('one launch per intent', path);

const at = (i: number) => `2026-11-20T10:00:0${i}.000Z`;
type Claims = { launch_id: string; intent_claim: string | null; wallet_nonce: string | null };

function expectIntentConflict(r: Reply, existingLaunchId: string): void {
  expect(r.status, r.text).toBe(409);
  expect(r.json.error).toMatchObject({ code: 'LAUNCH_INTENT_CONFLICT', existingLaunchId });
}

describe('the intent-claim migration over launches stored before it', () => {
  it('keeps two launches of one intent on each lane, claims the intent for the earliest, and refuses a third', async () => {
    const path = join(dir, 'older.sqlite');
    const db = olderDatabase(path);
    const v4Key = mintWalletKey(db, {
      wallet: exampleWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    });
    const v3Key = mintWalletKey(db, {
      wallet: defaultBaseLaunchWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['1'],
    });
    const v4Bytes = exampleBytes(v4Example);
    const v4 = example<{ launchIntentHash: string }>(v4Example);
    const v4Insert = db.prepare(
      `INSERT INTO launches (launch_id, chain_id, lineage_id, owner_key_id, profile, status, launch_wallet,
         request_digest, launch_intent_hash, request_bytes, created_at, updated_at)
       VALUES (?, '4663', ?, ?, '4.1.0', 'received', ?, ?, ?, ?, ?, ?)`,
    );
    const keyId = v4Key.principal.keyId;
    // Two launches of the same bytes, then a third with the same wallet and nonce under another intent hash.
    const ids = [
      '10000000-0000-4000-8000-000000000001',
      '10000000-0000-4000-8000-000000000002',
      '10000000-0000-4000-8000-000000000003',
    ];
    ids.forEach((id, i) => {
      const hash = i === 2 ? `sha256:${'7'.repeat(64)}` : v4.launchIntentHash;
      v4Insert.run(
        id,
        keyId,
        keyId,
        exampleWallet,
        `sha256:${String(i).repeat(64)}`,
        hash,
        Buffer.from(v4Bytes),
        at(i),
        at(i),
      );
    });
    const v3Request = baseLayerRequest({ nonce: '77' });
    const mrRequest = multiRoleRequest();
    const lanes = [
      {
        table: 'v3_launches',
        extra: { profile_version: '3.3.0', funding_mode: 'native' },
        key: v3Key,
        request: v3Request,
        bytes: baseLayerRequestBytes(v3Request),
        path: '/v3/custom-launches',
      },
      {
        table: 'multi_role_launches',
        extra: { profile_revision: mrRequest.profile.revision },
        key: v4Key,
        request: mrRequest,
        bytes: multiRoleRequestBytes(mrRequest),
        path: '/v4/chains/4663/multi-role-custom-launches',
      },
    ];
    for (const lane of lanes) {
      const columns = {
        lineage_id: lane.key.principal.lineageId,
        owner_key_id: lane.key.principal.keyId,
        status: 'received',
        launch_wallet: lane.request.launchWallet,
        request_hash: digestOf(lane.request),
        launch_intent_hash: lane.request.launchIntentHash,
        request_bytes: lane.bytes,
        ...lane.extra,
      };
      for (const i of [1, 2]) {
        const row = {
          launch_id: `2000000${i}-0000-4000-8000-00000000000${lane.table.length % 10}`,
          ...columns,
          created_at: at(i),
          updated_at: at(i),
        };
        db.prepare(
          `INSERT INTO ${lane.table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
            .map(() => '?')
            .join(', ')})`,
        ).run(...Object.values(row));
      }
    }
    expect(migrate(db)).toBe(migrations.at(-1)?.version);
    const claims = (table: string) =>
      db.prepare(`SELECT launch_id, intent_claim, wallet_nonce FROM ${table} ORDER BY seq`).all() as Claims[];
    const nonce = JSON.parse(v4Bytes).nonce as string;
    expect(claims('launches')).toEqual([
      { launch_id: ids[0], intent_claim: v4.launchIntentHash, wallet_nonce: `${exampleWallet.toLowerCase()}:${nonce}` },
      { launch_id: ids[1], intent_claim: null, wallet_nonce: null },
      { launch_id: ids[2], intent_claim: `sha256:${'7'.repeat(64)}`, wallet_nonce: null },
    ]);
    for (const lane of lanes) {
      const [first, later] = claims(lane.table);
      expect(first?.intent_claim).toBe(lane.request.launchIntentHash);
      expect(first?.wallet_nonce).toBe(`${lane.request.launchWallet.toLowerCase()}:${lane.request.nonce}`);
      expect(later).toMatchObject({ intent_claim: null, wallet_nonce: null });
    }
    db.close();

    const s = await startServer({
      databasePath: path,
      baseDeploymentPath: baseFixture,
      multiRoleDeploymentPath: multiRoleFixture,
    });
    try {
      const send = (lanePath: string, apiKey: string, body: string | Buffer) =>
        call(`${s.url}${lanePath}`, {
          method: 'POST',
          headers: auth(apiKey, { 'Idempotency-Key': 'after-the-migration' }),
          body,
        });
      const listed = await call(`${s.url}/v4/chains/4663/custom-launches`, { headers: auth(v4Key.apiKey) });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.json.launches.map((l: { launchId: string }) => l.launchId).sort()).toEqual([...ids].sort());
      expectIntentConflict(await send('/v4/chains/4663/custom-launches', v4Key.apiKey, v4Bytes), ids[0] as string);
      for (const lane of lanes) {
        const first = s.db.prepare(`SELECT launch_id FROM ${lane.table} ORDER BY seq LIMIT 1`).get() as {
          launch_id: string;
        };
        expectIntentConflict(await send(lane.path, lane.key.apiKey, lane.bytes), first.launch_id);
      }
    } finally {
      await s.close();
    }
  });
});

describe('two server processes on one SQLite file', () => {
  it('racing one intent under 20 keys against both: one launch, every other answer 409', async () => {
    const path = join(dir, 'shared.sqlite');
    const apiKey = walletKeyInFile(path);
    const [a, b] = await Promise.all([
      startServerProcess({ DATABASE_PATH: path }),
      startServerProcess({ DATABASE_PATH: path }),
    ]);
    try {
      const bytes = freshV4Bytes();
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(`${(i % 2 === 0 ? a : b)?.url}/v4/chains/4663/custom-launches`, {
            method: 'POST',
            headers: auth(apiKey, { 'Idempotency-Key': `two-processes-${String(i).padStart(4, '0')}` }),
            body: bytes,
          }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(
        statuses.filter((x) => x === 202),
        JSON.stringify(statuses),
      ).toHaveLength(1);
      expect(statuses.filter((x) => x === 409)).toHaveLength(19);
      for (const r of replies.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('LAUNCH_INTENT_CONFLICT');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM launches').get()).toEqual({ n: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM idempotency_records').get()).toEqual({ n: 1 });
    db.close();
  }, 60_000);
});
