import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { verifyChainDeploymentEvidence } from '../../src/chain/verify-deployment-evidence.ts';
import { digestOf } from '../../src/core/request-hashes.ts';
import { devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { startServerProcess } from '../support/process.ts';

/** The server verifies the bound deployment evidence against the chain through both providers (getReadiness). */
describe('deployment evidence verification on the devnet', () => {
  let dir: string;
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let urls: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'custom-launch-evidence-'));
    devnet = await startDevnet({ outputDir: dir });
    urls = [devnet.deployment.rpcUrl, devnet.deployment.rpcUrl];
  }, 120_000);
  afterAll(async () => {
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the devnet document', async () => {
    expect(await verifyChainDeploymentEvidence(devnet.chainDeployment, urls)).toEqual({ kind: 'verified' });
  });

  const other32 = `0x${'ab'.repeat(32)}`;
  it.each<[string, (d: ChainDeploymentV1) => void, RegExp]>([
    [
      'a receipt log',
      (d) => ((d.deploymentEvidence.receiptLogs[0] as { data: string }).data = '0x01'),
      /receiptLogsDigest|receipt logs/,
    ],
    ['the transaction hash', (d) => (d.deploymentEvidence.transactionHash = other32), /no root deployment transaction/],
    ['the block hash', (d) => (d.deploymentEvidence.blockHash = other32), /block hash/],
    ['the nonce', (d) => (d.deploymentEvidence.nonce = '7'), /nonce/],
    [
      "a provider's receipt digest",
      (d) => (d.deploymentEvidence.providerReadbacks[1].transactionReceiptDigest = `sha256:${'cd'.repeat(32)}`),
      /provider 1: receipt digest/,
    ],
    [
      "a resulting contract's runtime code hash",
      (d) => (d.deploymentEvidence.resultingContracts[2].runtimeCodeHash = other32),
      /code at the deployment block/,
    ],
    [
      'a bound contract address',
      (d) => (d.contracts.graphFactory.address = `0x${'12'.repeat(20)}`),
      /contracts.graphFactory/,
    ],
  ])('names a tampered %s', async (_name, tamper, problem) => {
    const doc = structuredClone(devnet.chainDeployment);
    tamper(doc);
    const result = await verifyChainDeploymentEvidence(doc, urls);
    expect(result.kind).toBe('tampered');
    expect(result.kind === 'tampered' && result.problems.join('\n')).toMatch(problem);
  });

  /** Rebinds the finality evidence's digest and the evidence digest over it, so only the rule under test speaks. */
  const rebound = (d: ChainDeploymentV1) => {
    const evidence = d.deploymentEvidence;
    const { evidenceDigest: _f, ...finality } = evidence.ethereumFinalityEvidence;
    evidence.ethereumFinalityEvidence.evidenceDigest = digestOf(finality);
    const { evidenceDigest: _e, ...rest } = evidence;
    evidence.evidenceDigest = digestOf(rest);
    return d;
  };
  const finalityOf = (d: ChainDeploymentV1) => d.deploymentEvidence.ethereumFinalityEvidence;

  // deployment-evidence.v1 EthereumFinalityEvidence: policyDigest equals finality.policyDigest, and the base layer's
  // finalized block is at least the block that posted the batch (server rules).
  it.each<[string, (d: ChainDeploymentV1) => void, string[]]>([
    ['the devnet document, digests rebound', () => {}, []],
    [
      'another policy digest in the finality evidence',
      (d) => (finalityOf(d).policyDigest = `sha256:${'ab'.repeat(32)}`),
      ['ethereumFinalityEvidence.policyDigest is not finality.policyDigest'],
    ],
    [
      'a base-layer finalized block equal to the posting block',
      (d) => (finalityOf(d).parentChainFinalizedBlockNumber = finalityOf(d).parentChainBlockNumber),
      [],
    ],
    [
      'a base-layer finalized block one below the posting block',
      (d) =>
        (finalityOf(d).parentChainFinalizedBlockNumber = (
          BigInt(finalityOf(d).parentChainBlockNumber) - 1n
        ).toString()),
      ['ethereumFinalityEvidence.parentChainFinalizedBlockNumber is below parentChainBlockNumber'],
    ],
  ])('finality evidence: %s', async (_name, edit, problems) => {
    const doc = structuredClone(devnet.chainDeployment);
    edit(doc);
    const result = await verifyChainDeploymentEvidence(rebound(doc), urls);
    expect(result).toEqual(problems.length === 0 ? { kind: 'verified' } : { kind: 'tampered', problems });
  });

  // chain-deployment.v1 ExternalRootDeploymentEvidence: the canonical pool manager's creation, checked on the chain.
  const rootOf = (d: ChainDeploymentV1) => d.externalRootDeploymentEvidence.canonicalPoolManager;
  const reboundRoot = (d: ChainDeploymentV1) => {
    const { evidenceDigest: _r, ...root } = d.externalRootDeploymentEvidence;
    d.externalRootDeploymentEvidence.evidenceDigest = digestOf(root);
    return d;
  };
  it.each<[string, (d: ChainDeploymentV1) => void, RegExp | null]>([
    ['the devnet document, its digest rebound', () => {}, null],
    [
      'another deployment block hash',
      (d) => (rootOf(d).deploymentBlockHash = other32),
      /pool manager deployment block/,
    ],
    [
      'another deployment block number',
      (d) => (rootOf(d).deploymentBlockNumber = (BigInt(rootOf(d).deploymentBlockNumber) + 1n).toString()),
      /pool manager deployment block/,
    ],
    ['another deployment transaction', (d) => (rootOf(d).deploymentTransactionHash = other32), /no pool manager/],
    ['another runtime code hash', (d) => (rootOf(d).runtimeCodeHash = other32), /differs from contracts/],
  ])('external root: %s', async (_name, edit, problem) => {
    const doc = structuredClone(devnet.chainDeployment);
    edit(doc);
    const result = await verifyChainDeploymentEvidence(reboundRoot(doc), urls);
    if (!problem) return expect(result).toEqual({ kind: 'verified' });
    expect(result.kind).toBe('tampered');
    expect(result.kind === 'tampered' && result.problems.join('\n')).toMatch(problem);
  });

  it('names an external root whose own digest does not bind it', async () => {
    const doc = structuredClone(devnet.chainDeployment);
    rootOf(doc).deploymentBlockHash = other32;
    const result = await verifyChainDeploymentEvidence(doc, urls);
    expect(result.kind === 'tampered' && result.problems).toContain('externalRootDeploymentEvidence.evidenceDigest');
  });

  it('reports an unreachable chain as no verdict, naming no URL', async () => {
    const result = await verifyChainDeploymentEvidence(devnet.chainDeployment, [
      'http://127.0.0.1:9',
      'http://127.0.0.1:9',
    ]);
    expect(result.kind).toBe('unreachable');
    expect(JSON.stringify(result)).not.toContain('127.0.0.1');
  });

  it('a server bound to a tampered document accepts no V4 writes, and readiness says why', async () => {
    const tampered = structuredClone(devnet.chainDeployment);
    (tampered.deploymentEvidence.receiptLogs[0] as { data: string }).data = '0x01';
    const path = join(dir, 'tampered-chain-deployment.json');
    writeFileSync(path, JSON.stringify(tampered));
    const databasePath = join(dir, 'tampered.sqlite');
    const db = openDatabase(databasePath);
    const key = mintWalletKey(db, {
      wallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    }).apiKey;
    db.close();
    const server = await startServerProcess({
      ...devnetServerEnv(devnet.deployment, dir),
      CHAIN_DEPLOYMENT_PATH: path,
      DATABASE_PATH: databasePath,
    });
    try {
      const ready = await call(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.json.checks).toContainEqual({
        name: 'deployment_evidence',
        ok: false,
        reason: 'DEPLOYMENT_EVIDENCE_TAMPERED',
      });
      const body = readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url));
      const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: auth(key, { 'Idempotency-Key': 'tampered-evidence-0001' }),
        body,
      });
      expect(created.status).toBe(503);
      expect(created.json.error).toMatchObject({ code: 'DEPLOYMENT_EVIDENCE_TAMPERED', retryable: false });
      const list = await call(`${server.url}/v4/chains/4663/custom-launches`, { headers: auth(key) });
      expect(list.json.launches).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
