import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createPublicClient, http, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetServerEnv } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { compileFixtures, fillImmutables } from '../static-baseline/compile-fixtures.ts';
import { type DevnetServer, devnetWallet, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { example, startServer, type TestServer, v4Example } from '../support/server.ts';

// Preflight binds what it can (preflightCustomLaunchV4; custom-launch-preflight.v2.schema.json
// externalReferenceBinding): with chain gates it runs the chain gates' own read-only reference binding and reports
// each reference; without them it says the binding did not run and why. Either way it persists nothing.

let d: DevnetServer;
let noChain: TestServer;
/** A second server on the same devnet whose second provider goes through a switch the test can turn off. */
let outage: { server: ServerProcess; key: string; relay: Server; down: boolean };

/** A JSON-RPC relay to the devnet that answers 503 while `outage.down` is set. */
async function startRelay(target: () => string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (outage?.down) {
        res.writeHead(503).end('provider down');
        return;
      }
      fetch(target(), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (r) => res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(await r.text()))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  d = await startDevnetServer('preflight-references');
  noChain = await startServer();
  const rpc = d.devnet.deployment.rpcUrl;
  const relay = await startRelay(() => rpc);
  const databasePath = join(d.dir, 'outage.sqlite');
  const db = openDatabase(databasePath);
  const key = mintWalletKey(db, {
    wallet: devnetWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  }).apiKey;
  db.close();
  const server = await startServerProcess({
    ...devnetServerEnv(d.devnet.deployment, d.dir),
    CHAIN_4663_RPC_URLS: `${rpc},${relay.url}`,
    DATABASE_PATH: databasePath,
  });
  outage = { server, key, relay: relay.server, down: false };
}, 180_000);
afterAll(async () => {
  await outage?.server.stop();
  outage?.relay.close();
  await noChain?.close();
  await d?.stop();
});

/** The devnet price feed as an external reference, bound in every respect unless `edit` breaks one. */
async function priceFeedReference(edit: (ref: any) => void = () => undefined): Promise<any> {
  const client = createPublicClient({ transport: http(d.devnet.deployment.rpcUrl) });
  const finalized = await client.getBlock({ blockTag: 'finalized' });
  const feed = d.devnet.deployment.contracts.nativeUsdPriceFeed;
  const record = d.devnet.sourceVerificationRegistry.find((r) => r.address === feed.address.toLowerCase());
  if (!record) throw new Error('the devnet registry has no record of its price feed');
  const ref = {
    referenceId: 'price-feed',
    chainId: '4663',
    address: feed.address,
    runtimeCodeHash: feed.runtimeCodeHash,
    sourceVerification: {
      provider: record.provider,
      evidenceUri: record.evidenceUri,
      evidenceDigest: record.evidenceDigest,
    },
    graphRole: 'auxiliary',
    checkpoint: { blockNumber: finalized.number.toString(), blockHash: finalized.hash },
  };
  edit(ref);
  return ref;
}

/** The 4.1.0 example with these external references, every binding recomputed. */
function withReferences(refs: unknown[], edit: (r: any) => void = () => undefined): any {
  const request = example(v4Example) as any;
  request.externalContracts = refs;
  edit(request);
  return bindRequestHashes(request);
}

async function preflight(url: string, key: string, request: unknown) {
  const r = await call(`${url}/v4/chains/4663/custom-launches/preflight`, {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify(request),
  });
  expect(r.status, r.text.slice(0, 500)).toBe(200);
  return r.json;
}

/**
 * Every row of every table of a SQLite file, read through its own read-only connection. The background lease's
 * expiry is left out: the server renews it on its own while it runs (its holder and name are kept).
 */
function snapshot(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>;
    const rowsOf = (name: string) =>
      name === 'process_leases' ? 'SELECT name, owner FROM process_leases ORDER BY name' : `SELECT * FROM "${name}"`;
    return Object.fromEntries(tables.map(({ name }) => [name, db.prepare(rowsOf(name)).all()]));
  } finally {
    db.close();
  }
}

describe('preflight with chain gates runs the chain gates’ reference binding (the devnet)', () => {
  let before: Record<string, unknown[]>;
  beforeAll(() => {
    before = snapshot(join(d.dir, 'api.sqlite'));
  });

  it('reports a reference that binds as bound: no EXTERNAL_REFERENCE_UNBOUND, verified_references', async () => {
    const ref = await priceFeedReference();
    const report = await preflight(d.server.url, d.key, withReferences([ref]));
    expect(report.externalReferenceBinding).toEqual({
      status: 'ran',
      references: [{ referenceId: 'price-feed', address: ref.address, status: 'bound', reasons: [] }],
    });
    expect(report.blockingFindingCodes).not.toContain('EXTERNAL_REFERENCE_UNBOUND');
    expect(report.evidenceTier).toBe('verified_references');
  });

  it('bound references are the external-dependency duty’s bound evidence when nothing else requires evidence', async () => {
    // A hook whose pool manager is the canonical constant, and plain token and initializer: no static
    // external-dependency finding of their own.
    const cleanHook = compileFixtures({ appendCBOR: true }).CleanHook;
    if (!cleanHook) throw new Error('the CleanHook fixture did not compile');
    const hookCode = fillImmutables(cleanHook, d.devnet.deployment.contracts.poolManager.address);
    const clean = (r: any) => {
      for (const target of r.graphBundle.targets) {
        const tag = { token: '01010101', initializer: '03030303' }[target.role as string];
        target.runtimeBytecode = target.role === 'hook' ? hookCode : `0x608060405263${tag}505f80fd`;
        target.runtimeCodeHash = keccak256(target.runtimeBytecode);
      }
    };
    const withBound = await preflight(d.server.url, d.key, withReferences([await priceFeedReference()], clean));
    expect(withBound.externalReferenceBinding.references[0].status).toBe('bound');
    expect(withBound.behaviorEvidence.externalDependencies).toEqual({ status: 'evidence_bound', findingCodes: [] });
    const without = await preflight(d.server.url, d.key, withReferences([], clean));
    expect(without.behaviorEvidence.externalDependencies).toEqual({ status: 'not_observed', findingCodes: [] });
  }, 120_000);

  it.each([
    [
      'another runtime code hash',
      (r: any) => (r.runtimeCodeHash = `0x${'11'.repeat(32)}`),
      'live runtime code hash differs',
    ],
    [
      'an address without that code',
      (r: any) => (r.address = '0x000000000000000000000000000000000000bEEF'),
      'live runtime code hash differs',
    ],
    ['a checkpoint that is not final', (r: any) => (r.checkpoint.blockNumber = '100000'), 'is not final'],
    [
      'source evidence the server never verified',
      (r: any) => (r.sourceVerification.evidenceDigest = `sha256:${'33'.repeat(32)}`),
      'source-verification evidence',
    ],
  ])('blocks a reference with %s, reporting why', async (_name, edit, reason) => {
    const ref = await priceFeedReference(edit);
    const report = await preflight(d.server.url, d.key, withReferences([ref]));
    expect(report.externalReferenceBinding.status).toBe('ran');
    const [outcome] = report.externalReferenceBinding.references;
    expect(outcome).toMatchObject({ referenceId: 'price-feed', address: ref.address, status: 'unbound' });
    expect(outcome.reasons.join('; ')).toContain(reason);
    expect(report.blockingFindingCodes).toContain('EXTERNAL_REFERENCE_UNBOUND');
    expect(report.disposition).toBe('unsupported');
    expect(report.evidenceTier).toBe('static_baseline');
    expect(report.behaviorEvidence.externalDependencies.status).toBe('evidence_required');
  });

  it('reports each reference in request order: one bound, one not, and blocks for the one', async () => {
    const good = await priceFeedReference();
    const bad = await priceFeedReference((r) => {
      r.referenceId = 'price-feed-copy';
      r.runtimeCodeHash = `0x${'44'.repeat(32)}`;
    });
    const report = await preflight(d.server.url, d.key, withReferences([bad, good]));
    expect(report.externalReferenceBinding.references.map((o: any) => [o.referenceId, o.status])).toEqual([
      ['price-feed-copy', 'unbound'],
      ['price-feed', 'bound'],
    ]);
    expect(report.blockingFindingCodes).toContain('EXTERNAL_REFERENCE_UNBOUND');
    expect(report.evidenceTier).toBe('static_baseline');
  });

  it('does not run for a request bound to another chain deployment, and the reference stays unbound', async () => {
    const ref = await priceFeedReference();
    const request = withReferences([ref], (r) => (r.chainDeployment.finality.policyRevision += 1));
    const report = await preflight(d.server.url, d.key, request);
    expect(report.externalReferenceBinding).toEqual({ status: 'not_run', reason: 'chain_deployment_mismatch' });
    expect(report.blockingFindingCodes).toContain('EXTERNAL_REFERENCE_UNBOUND');
  });

  it('has nothing to run for a request without external references', async () => {
    const report = await preflight(d.server.url, d.key, withReferences([]));
    expect(report.externalReferenceBinding).toEqual({ status: 'not_run', reason: 'no_external_references' });
    expect(report.blockingFindingCodes).not.toContain('EXTERNAL_REFERENCE_UNBOUND');
    expect(report.evidenceTier).toBe('static_baseline');
  });

  it('persisted nothing: no launch, nonce, idempotency row or permit; the SQLite file holds the same rows', async () => {
    const after = snapshot(join(d.dir, 'api.sqlite'));
    expect(after).toEqual(before);
    for (const table of ['launches', 'idempotency_records', 'lifecycle_jobs', 'launch_transitions']) {
      expect(after[table], table).toEqual([]);
    }
    const list = await call(`${d.server.url}/v4/chains/4663/custom-launches`, { headers: auth(d.key) });
    expect(list.json.launches).toEqual([]);
  });
});

describe('preflight reports why the binding did not run', () => {
  it('without chain gates: not_run chain_gates_not_configured, and every reference blocks', async () => {
    const ref = await priceFeedReference();
    const report = await preflight(noChain.url, noChain.key(), withReferences([ref]));
    expect(report.externalReferenceBinding).toEqual({ status: 'not_run', reason: 'chain_gates_not_configured' });
    expect(report.blockingFindingCodes).toContain('EXTERNAL_REFERENCE_UNBOUND');
    expect(report.evidenceTier).toBe('static_baseline');
  });

  it('with a provider down: not_run chain_unavailable, the reference blocks, and the same bytes bind once it is back', async () => {
    const request = withReferences([await priceFeedReference()]);
    const bound = await preflight(outage.server.url, outage.key, request);
    expect(bound.externalReferenceBinding.references[0].status).toBe('bound');
    outage.down = true;
    try {
      const report = await preflight(outage.server.url, outage.key, request);
      expect(report.externalReferenceBinding).toEqual({ status: 'not_run', reason: 'chain_unavailable' });
      expect(report.blockingFindingCodes).toContain('EXTERNAL_REFERENCE_UNBOUND');
      // The provider's URL or error text never reaches the report.
      expect(JSON.stringify(report)).not.toContain('127.0.0.1');
    } finally {
      outage.down = false;
    }
    const again = await preflight(outage.server.url, outage.key, request);
    expect(again.externalReferenceBinding.references[0].status).toBe('bound');
  });
});
