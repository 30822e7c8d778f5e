import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, type Hex, http, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetPermitAttesterKey, startDevnet } from '../../src/devnet/devnet.ts';
import { LaunchAuthorizer } from '../../src/domain/lifecycle/chain-gates.ts';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { compileFixtures } from '../static-baseline/compile-fixtures.ts';
import { example, v4Example } from '../support/server.ts';

let devnet: Awaited<ReturnType<typeof startDevnet>>;
let authorizer: LaunchAuthorizer;
let dir: string;
const fixtures = compileFixtures({ appendCBOR: true });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-gates-'));
  devnet = await startDevnet({ outputDir: dir });
  authorizer = new LaunchAuthorizer({
    rpcUrls: [devnet.deployment.rpcUrl, devnet.deployment.rpcUrl],
    chainDeployment: devnet.chainDeployment,
    permitAttesterKey: devnetPermitAttesterKey,
    sourceVerificationRegistry: devnet.sourceVerificationRegistry,
  });
}, 120_000);
afterAll(async () => {
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const codes = (outcome: { findings: Array<{ code: string; severity: string }> }) =>
  outcome.findings.filter((f) => f.severity === 'blocking').map((f) => f.code);

/** The example with its hook's runtime code replaced (the salt mined again for the new code). */
function withHook(name: string): any {
  const request = example(v4Example) as any;
  const hook = request.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
  const code = fixtures[name]?.runtime as Hex;
  hook.runtimeBytecode = code;
  hook.runtimeCodeHash = keccak256(code);
  return bindRequestHashes(request);
}

describe('the chain-deployment document', () => {
  it('validates against the chainDeployment and deploymentEvidence schemas, with a 33,412-byte root call', () => {
    const { ajv } = loadSchemaRegistry();
    const doc = devnet.chainDeployment;
    for (const [schema, value] of [
      ['chain-deployment.v1.schema.json', doc],
      ['deployment-evidence.v1.schema.json', doc.deploymentEvidence],
    ] as const) {
      const validate = ajv.getSchema(schemaIdBase + schema);
      expect(validate?.(value), ajv.errorsText(validate?.errors)).toBe(true);
    }
    expect(doc.deploymentEvidence.calldataBytes).toBe(33_412);
    expect(doc.contracts.platformLaunchStampRouter.address).toBe(
      devnet.deployment.contracts.platformLaunchStampRouter.address.toLowerCase(),
    );
  });
});

describe('dynamic hook checks by state override', () => {
  it('authorizes the guarded example hook', async () => {
    const outcome = await authorizer.authorize(example(v4Example) as any);
    expect(outcome.kind, JSON.stringify(outcome.findings)).toBe('authorized');
  });

  it('blocks an unguarded hook: CALLBACK_GUARD_MISSING for each enabled callback', async () => {
    const outcome = await authorizer.authorize(withHook('UnguardedSwapHook'));
    expect(outcome.kind).toBe('action_required');
    expect(codes(outcome)).toEqual(['CALLBACK_GUARD_MISSING', 'CALLBACK_GUARD_MISSING']);
  });

  it('blocks a hook that lacks an enabled callback: ENABLED_CALLBACK_MISSING for afterSwap only', async () => {
    const outcome = await authorizer.authorize(withHook('HalfSwapHook'));
    expect(outcome.kind).toBe('action_required');
    expect(codes(outcome)).toEqual(['ENABLED_CALLBACK_MISSING']);
    expect(outcome.findings.find((f) => f.code === 'ENABLED_CALLBACK_MISSING')?.message).toContain('afterSwap');
  });
});

describe('external contract references', () => {
  /** The example referencing the devnet's price feed, bound in every respect unless `edit` breaks one. */
  async function withReference(edit: (ref: any) => void = () => undefined): Promise<any> {
    const client = createPublicClient({ transport: http(devnet.deployment.rpcUrl) });
    const finalized = await client.getBlock({ blockTag: 'finalized' });
    const feed = devnet.deployment.contracts.nativeUsdPriceFeed;
    const record = devnet.sourceVerificationRegistry.find((r) => r.address === feed.address.toLowerCase());
    const ref = {
      referenceId: 'price-feed',
      chainId: '4663',
      address: feed.address,
      runtimeCodeHash: feed.runtimeCodeHash,
      sourceVerification: {
        provider: record?.provider,
        evidenceUri: record?.evidenceUri,
        evidenceDigest: record?.evidenceDigest,
      },
      graphRole: 'auxiliary',
      checkpoint: { blockNumber: finalized.number.toString(), blockHash: finalized.hash },
    };
    edit(ref);
    const request = example(v4Example) as any;
    request.externalContracts = [ref];
    return bindRequestHashes(request);
  }

  it('trusts a reference whose address, live code, checkpoint, role and source evidence all bind', async () => {
    const outcome = await authorizer.authorize(await withReference());
    expect(outcome.kind, JSON.stringify(outcome.findings)).toBe('authorized');
  });

  it.each([
    ['another runtime code hash', (r: any) => (r.runtimeCodeHash = `0x${'11'.repeat(32)}`), 'live runtime code hash'],
    ['an address without that code', (r: any) => (r.address = '0x000000000000000000000000000000000000bEEF'), 'live'],
    ['a checkpoint hash of another block', (r: any) => (r.checkpoint.blockHash = `0x${'22'.repeat(32)}`), 'checkpoint'],
    ['a checkpoint that is not final', (r: any) => (r.checkpoint.blockNumber = '100000'), 'not final'],
    [
      'source evidence the server never verified',
      (r: any) => (r.sourceVerification.evidenceDigest = `sha256:${'33'.repeat(32)}`),
      'source-verification',
    ],
    [
      'the address of a platform contract',
      (r: any) => {
        r.address = devnet.deployment.contracts.platformLaunchStampRouter.address;
        r.runtimeCodeHash = devnet.deployment.contracts.platformLaunchStampRouter.runtimeCodeHash;
      },
      'launch graph or platform',
    ],
  ])('blocks a reference with %s: EXTERNAL_REFERENCE_UNBOUND', async (_name, edit, reason) => {
    const outcome = await authorizer.authorize(await withReference(edit));
    expect(outcome.kind).toBe('action_required');
    expect(codes(outcome)).toEqual(['EXTERNAL_REFERENCE_UNBOUND']);
    expect(outcome.findings.find((f) => f.code === 'EXTERNAL_REFERENCE_UNBOUND')?.message).toContain(reason);
  });
});

describe('the exact router simulation and the deployment binding', () => {
  it('gives action_required with the decoded revert reason when the simulation fails', async () => {
    const request = example(v4Example) as any;
    request.fundingPlan.initialBuy.minTokenOut = '1000000000000000000000000000';
    const outcome = await authorizer.authorize(bindRequestHashes(request));
    expect(outcome.kind).toBe('action_required');
    expect(codes(outcome)).toEqual(['ROUTER_SIMULATION_REVERTED']);
    expect(outcome.findings[outcome.findings.length - 1]?.message).toMatch(
      /reverted: InitialBuyBelowMinimum\(\d+, 1000000000000000000000000000\)/,
    );
  });

  it('blocks a request bound to another chain deployment', async () => {
    const request = example(v4Example) as any;
    request.chainDeployment.foundationSourceCommitment = `0x${'44'.repeat(32)}`;
    const outcome = await authorizer.authorize(bindRequestHashes(request));
    expect(codes(outcome)).toEqual(['CHAIN_DEPLOYMENT_MISMATCH']);
  });

  it('binds the wallet transaction to the permit window: at most one hour of chain time', async () => {
    const request = example(v4Example) as any;
    request.permitWindow.lifetimeSeconds = 600;
    const outcome = await authorizer.authorize(bindRequestHashes(request));
    if (outcome.kind !== 'authorized') throw new Error(JSON.stringify(outcome.findings));
    const client = createPublicClient({ transport: http(devnet.deployment.rpcUrl) });
    const latest = await client.getBlock();
    const expires = Date.parse(outcome.walletTransaction.permitExpiresAt) / 1000;
    expect(expires - Number(latest.timestamp)).toBeLessThanOrEqual(600);
    expect(expires - Number(latest.timestamp)).toBeGreaterThan(590);
  });
});
