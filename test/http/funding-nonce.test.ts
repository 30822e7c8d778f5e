import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { followsFundingNonceDerivation, fundingNonceEntropy, fundingNonceOf } from '../../src/core/funding-nonce.ts';
import { bindRequestHashes, launchIntentHashOf } from '../../src/core/request-hashes.ts';
import { LifecycleWorker } from '../../src/domain/lifecycle/worker.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import { example, startServer, type TestServer, v4Example, v4FrozenExample } from '../support/server.ts';

// The funding-nonce warnings (FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED,
// FUNDING_NONCE_CONFORMANCE_UNPROVEN; custom-launch-create-request.v4.schema.json LaunchNonce): warnings in preflight
// and admission, never blocks, for profile 4.1.0 only.

const conformance = 'FUNDING_NONCE_CONFORMANCE_UNPROVEN';
const conflict = 'FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED';
const otherWallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

let s: TestServer;
let key: string;
let otherKey: string;
let n = 0;
const lifecycle = testLifecycle;

beforeAll(async () => {
  s = await startServer({ lifecycle: { ...lifecycle } });
  key = s.key();
  otherKey = s.key({ wallet: otherWallet });
});
afterAll(() => s.close());

let entropies = 0;
/** A fresh 16-byte entropy half, so each case's requests meet no other case's stored nonce. */
const freshEntropy = () => `0x${(++entropies).toString(16).padStart(32, 'f')}`;

/**
 * The 4.1.0 example after `edit` with the given entropy half, every binding recomputed (so its funding nonce is
 * derived as the packer derives it).
 */
function bound(edit: (r: any) => void = () => undefined, entropy = freshEntropy()): any {
  const request = example(v4Example) as any;
  edit(request);
  request.nonce = `${entropy}${'0'.repeat(32)}`;
  return bindRequestHashes(request);
}

/** A bound request whose nonce is then replaced as given, only the intent hash recomputed over it. */
function withNonce(request: any, nonce: string): any {
  const crafted = structuredClone(request);
  crafted.nonce = nonce;
  crafted.launchIntentHash = launchIntentHashOf(crafted);
  return crafted;
}

const preflight = async (request: unknown, apiKey = key) => {
  const r = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
    method: 'POST',
    headers: auth(apiKey),
    body: JSON.stringify(request),
  });
  expect(r.status, r.text.slice(0, 500)).toBe(200);
  return r.json;
};

const create = async (request: unknown, apiKey = key) => {
  const r = await call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(apiKey, { 'Idempotency-Key': `funding-nonce-${++n}`.padEnd(16, '0') }),
    body: JSON.stringify(request),
  });
  expect(r.status, r.text.slice(0, 500)).toBe(202);
  return r.json.launchId as string;
};

/** Admission: the worker's permit-stage gates (no chain configured here), then the stored findings. */
const admit = async (launchId: string) => {
  const worker = new LifecycleWorker({
    db: s.db,
    lifecycle,
    admission: { canonicalPoolManager: s.config.canonicalPoolManager },
    now: Date.now,
    workerId: `funding-nonce-${launchId}`,
  });
  while (await worker.tick()) {
    /* every due job */
  }
  return (await call(`${s.url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) })).json;
};

const nonceWarnings = (codes: string[]) => codes.filter((c) => c === conformance || c === conflict);

describe('the funding-nonce derivation (LaunchNonce)', () => {
  const request = bound();
  const flip = (hex: string, at: number) =>
    `${hex.slice(0, at)}${hex[at] === '0' ? '1' : '0'}${hex.slice(at + 1)}` as `0x${string}`;

  const entropy = fundingNonceEntropy(request.nonce);
  const planHash = request.fundingPlan.fundingPlanHash;
  it.each([
    ['the example as bound', true, request.nonce],
    ['one digit of the entropy half changed', false, flip(request.nonce, 2)],
    ['one digit of the derived half changed', false, flip(request.nonce, 65)],
    [
      'derived for another funding plan',
      false,
      fundingNonceOf(entropy, request.launchWallet, `sha256:${'1'.repeat(64)}`),
    ],
    ['derived for another wallet', false, fundingNonceOf(entropy, otherWallet, planHash)],
    [
      'derived from the wallet in upper case (the derivation lowercases it)',
      true,
      fundingNonceOf(entropy, request.launchWallet.toUpperCase().replace('0X', '0x'), planHash),
    ],
  ])('%s: follows the derivation (%s)', (_name, want, nonce) => {
    expect(followsFundingNonceDerivation({ ...request, nonce })).toBe(want);
  });

  it('the packer derives it: a fresh pack of the example project follows it', () => {
    const project = fileURLToPath(new URL('../../examples/example-launch/', import.meta.url));
    const packed = packLaunchProject(project, { chainDeployment: example<any>(v4Example).chainDeployment });
    expect(packed.request.profile).toBe('4.1.0');
    expect(followsFundingNonceDerivation(packed.request as any)).toBe(true);
    expect(packed.request.nonce).not.toBe(request.nonce);
  }, 120_000);

  it('bindRequestHashes derives it again after a plan edit, keeping the entropy half', () => {
    const changed = structuredClone(request);
    changed.fundingPlan.maxGasCostWei = '123456789';
    const edited = bindRequestHashes(changed) as any;
    expect(edited.nonce).not.toBe(request.nonce);
    expect(fundingNonceEntropy(edited.nonce)).toBe(fundingNonceEntropy(request.nonce));
    expect(followsFundingNonceDerivation(edited)).toBe(true);
  });
});

describe('preflight reports the funding-nonce warnings, never as blocks', () => {
  it('a request packed normally (the spec example) carries neither', async () => {
    const report = await preflight(example(v4Example));
    expect(nonceWarnings(report.warningFindingCodes)).toEqual([]);
  });

  it('a nonce that does not follow the derivation: FUNDING_NONCE_CONFORMANCE_UNPROVEN, a warning only', async () => {
    const clean = bound((r) => (r.externalContracts = []));
    const before = await preflight(clean);
    const report = await preflight(withNonce(clean, `0x${'ab'.repeat(32)}`));
    expect(report.warningFindingCodes).toContain(conformance);
    expect(report.warningFindingCodes).not.toContain(conflict);
    expect(report.platformAdmission.warningFindingCodes).toContain(conformance);
    // Nothing else moves: no block, the same disposition and risk classification (a tooling warning is no risk basis).
    expect(report.blockingFindingCodes).toEqual(before.blockingFindingCodes);
    expect(report.disposition).toBe(before.disposition);
    expect(report.riskClassification).toEqual(before.riskClassification);
  });

  it('profile 4.0.0 keeps a plain random nonce: no funding-nonce warning', async () => {
    const frozen = example(v4FrozenExample) as any;
    const report = await preflight(withNonce(frozen, `0x${'cd'.repeat(32)}`));
    expect(nonceWarnings(report.warningFindingCodes)).toEqual([]);
  });

  it('the same nonce in another stored request of the wallet: FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED', async () => {
    const entropy = freshEntropy();
    const first = bound((r) => (r.projectMetadata.description += ' First build.'), entropy);
    // Before anything is stored: no conflict.
    expect(nonceWarnings((await preflight(first)).warningFindingCodes)).toEqual([]);
    await create(first);
    // The stored request itself (same launchIntentHash) is no conflict.
    expect(nonceWarnings((await preflight(first)).warningFindingCodes)).toEqual([]);
    // Another request with the same entropy and plan derives the same nonce: a conflict, yet conforming.
    const second = bound((r) => (r.projectMetadata.description += ' Second build.'), entropy);
    expect(second.nonce).toBe(first.nonce);
    const report = await preflight(second);
    expect(nonceWarnings(report.warningFindingCodes)).toEqual([conflict]);
    expect(report.blockingFindingCodes).not.toContain(conflict);
    // A fresh entropy half: no conflict.
    const renewed = bound((r) => (r.projectMetadata.description += ' Second build.'));
    expect(nonceWarnings((await preflight(renewed)).warningFindingCodes)).toEqual([]);
  });

  it('a request stored before the intent claims (its wallet_nonce NULL) still counts as a conflict', async () => {
    const entropy = freshEntropy();
    const first = bound((r) => (r.projectMetadata.description += ' Stored before the claims.'), entropy);
    await create(first);
    s.db.prepare('UPDATE launches SET wallet_nonce = NULL WHERE launch_intent_hash = ?').run(first.launchIntentHash);
    const second = bound((r) => (r.projectMetadata.description += ' Built after the claims.'), entropy);
    expect(nonceWarnings((await preflight(second)).warningFindingCodes)).toEqual([conflict]);
  });

  it('the same nonce under another wallet is no conflict (it is not derived for that wallet)', async () => {
    const mine = bound((r) => (r.projectMetadata.description += ' Wallet one.'));
    await create(mine);
    const theirs = withNonce(
      bound((r) => {
        r.launchWallet = otherWallet;
        r.fundingPlan.initialBuy.recipient = otherWallet;
      }),
      mine.nonce,
    );
    const report = await preflight(theirs, otherKey);
    expect(nonceWarnings(report.warningFindingCodes)).toEqual([conformance]);
  });
});

describe('admission reports the funding-nonce warnings on the launch, never as blocks', () => {
  it('a request packed normally: neither warning', async () => {
    const launchId = await create(bound((r) => (r.projectMetadata.description += ' Admission clean.')));
    const launch = await admit(launchId);
    expect(launch.status).toBe('validating');
    expect(launch.findings.length).toBeGreaterThan(0);
    expect(launch.findings.map((f: { code: string }) => f.code)).not.toContain(conformance);
    expect(launch.findings.map((f: { code: string }) => f.code)).not.toContain(conflict);
  });

  it('a nonconforming nonce: FUNDING_NONCE_CONFORMANCE_UNPROVEN with severity warning, the launch goes on', async () => {
    const request = withNonce(
      bound((r) => {
        r.projectMetadata.description += ' Admission crafted.';
        r.externalContracts = [];
      }),
      `0x${'9e'.repeat(32)}`,
    );
    const launch = await admit(await create(request));
    expect(launch.findings).toContainEqual(expect.objectContaining({ code: conformance, severity: 'warning' }));
    expect(launch.findings).not.toContainEqual(expect.objectContaining({ code: conflict }));
    // Without chain gates a launch with no blocking finding waits in validating; a warning never makes it
    // action_required.
    expect(launch.status).toBe('validating');
    expect(launch.lifecycleQueue.lastErrorCode).toBe('CHAIN_NOT_CONFIGURED');
  });

  it('a nonce another stored request of the wallet carries: FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED', async () => {
    const entropy = freshEntropy();
    const first = bound((r) => {
      r.projectMetadata.description += ' Admission conflict one.';
      r.externalContracts = [];
    }, entropy);
    const firstLaunch = await admit(await create(first));
    expect(firstLaunch.findings).not.toContainEqual(expect.objectContaining({ code: conflict }));
    const second = bound((r) => {
      r.projectMetadata.description += ' Admission conflict two.';
      r.externalContracts = [];
    }, entropy);
    expect(second.nonce).toBe(first.nonce);
    // One launch per intent refuses the same wallet and nonce at create; a database from before that rule may still
    // hold such a pair (the earlier launch's wallet-and-nonce claim then sits on another row), which admission reports.
    const refused = await call(`${s.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': `funding-nonce-refused-${entropy}` }),
      body: JSON.stringify(second),
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.error).toMatchObject({
      code: 'LAUNCH_INTENT_CONFLICT',
      existingLaunchId: firstLaunch.launchId,
    });
    s.db.prepare('UPDATE launches SET wallet_nonce = NULL WHERE launch_id = ?').run(firstLaunch.launchId);
    const launch = await admit(await create(second));
    expect(launch.findings).toContainEqual(expect.objectContaining({ code: conflict, severity: 'warning' }));
    expect(launch.findings).not.toContainEqual(expect.objectContaining({ code: conformance }));
    expect(launch.status).toBe('validating');
  });
});
