import { createHash } from 'node:crypto';
import { type Hex, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressHookBits } from '../../src/core/create2.ts';
import { bindRequestHashes, predictedHookAddress } from '../../src/core/request-hashes.ts';
import { compileFixtures, fillImmutables } from '../static-baseline/compile-fixtures.ts';
import { auth, call } from '../support/http.ts';
import {
  example,
  startServer,
  type TestServer,
  unboundReference,
  v4Example,
  v4FrozenExample,
} from '../support/server.ts';

let s: TestServer;
let key: string;
let cleanHookCode: Hex;
let cleanTokenCode: Hex;
beforeAll(async () => {
  s = await startServer();
  key = s.key();
  // A compiled hook whose poolManager() returns the canonical pool manager: decided statically, no finding.
  const fixtures = compileFixtures({ appendCBOR: true });
  const cleanHook = fixtures.CleanHook;
  if (!cleanHook) throw new Error('the CleanHook fixture did not compile');
  cleanHookCode = fillImmutables(cleanHook, s.config.canonicalPoolManager) as Hex;
  // A compiled fixed-supply ERC-20 with no finding of its own: the token role needs the ERC-20 core.
  cleanTokenCode = fixtures.CleanToken?.runtime as Hex;
});
afterAll(() => s.close());

type Edit = (r: any) => void;
const compiledHook: Edit = (r) => {
  const hook = r.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
  hook.runtimeBytecode = cleanHookCode;
  hook.runtimeCodeHash = keccak256(cleanHookCode);
};
// Token and initializer with no finding of their own, so each case shows only its own findings: the compiled
// CleanToken (an ERC-20, as the token role needs) and a minimal initializer code.
const plainTargets: Edit = (r) => {
  for (const [role, code] of [
    ['token', cleanTokenCode],
    ['initializer', '0x60806040526303030303505f80fd'],
  ]) {
    const target = r.graphBundle.targets.find((t: { role: string }) => t.role === role);
    target.runtimeBytecode = code;
    target.runtimeCodeHash = keccak256(target.runtimeBytecode);
  }
};
const noExternalReferences: Edit = (r) => {
  r.externalContracts = [];
};
const unboundExternalReference: Edit = (r) => {
  r.externalContracts = [structuredClone(unboundReference)];
};
const noHookCallbacks: Edit = (r) => {
  const hook = r.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
  for (const flag of Object.keys(hook.hookPermissions)) hook.hookPermissions[flag] = false;
  hook.hookPermissions.mask = 0;
};
const auxiliary =
  (code: Hex): Edit =>
  (r) => {
    r.graphBundle.targets.push({
      targetId: 'auxiliary-probe',
      role: 'auxiliary',
      runtimeBytecode: code,
      runtimeCodeHash: keccak256(code),
    });
  };
const image =
  (hex: string, mediaType = 'image/png'): Edit =>
  (r) => {
    const bytes = Buffer.from(hex, 'hex');
    const sha256 = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    Object.assign(r.projectMetadataImageArtifact, {
      mediaType,
      byteLength: bytes.length,
      sha256,
      bytesBase64: bytes.toString('base64'),
    });
    Object.assign(r.projectMetadata.image, { mediaType, sha256 });
  };
const buildOnly: Edit = (r) => {
  r.fundingPlan.mode = 'build-only';
};

// PUSH0 ×5, GAS, DELEGATECALL, STOP: a reachable DELEGATECALL (an evidence duty, never a block).
const delegatecall = '0x5f5f5f5f5f5af400' as Hex;
// PUSH0 ×6, GAS, CALLCODE, STOP: a reachable CALLCODE (a hard block).
const callcode = '0x5f5f5f5f5f5f5af200' as Hex;
const gifFrame = '21f90401000000002c000000000100010000020244010';
const gif = (frames: number) => `47494638396101000100800000000000ffffff${`${gifFrame}0`.repeat(frames)}3b`;

const cases: Array<[string, string, Edit[], Record<string, unknown>, { blocking?: string[]; info?: string[] }]> = [
  [
    'supported: frozen 4.0.0, no external reference, a hook with no callbacks',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks],
    { disposition: 'supported', launchEligibility: { deployable: true, routable: true, featured: false } },
    { info: ['TX_SIMULATION_PENDING'] },
  ],
  [
    'supported_with_warnings: a reachable DELEGATECALL is an evidence duty',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks, auxiliary(delegatecall)],
    {
      disposition: 'supported_with_warnings',
      warningFindingCodes: ['PROXY_OR_DELEGATECALL'],
      behaviorEvidence: expect.objectContaining({
        proxyOrDelegatecall: { status: 'evidence_required', findingCodes: ['PROXY_OR_DELEGATECALL'] },
      }),
      platformAdmission: expect.objectContaining({
        status: 'no_blocking_static_finding',
        warningFindingCodes: ['PROXY_OR_DELEGATECALL'],
      }),
    },
    { info: ['TX_SIMULATION_PENDING'] },
  ],
  [
    'needs_evidence: a funded 4.1.0 launch needs the USD 1 quote and the callback checks',
    v4Example,
    [noExternalReferences],
    {
      disposition: 'needs_evidence',
      needsEvidenceFindingCodes: ['CALLBACK_GUARD_UNDECIDED', 'INITIAL_BUY_USD_UNPROVEN'],
      launchEligibility: { deployable: false, routable: false, featured: false },
    },
    { info: [] },
  ],
  [
    'supported: a build-only plan preflights, reported as such',
    v4Example,
    [noExternalReferences, noHookCallbacks, buildOnly],
    { disposition: 'supported' },
    { info: ['BUILD_ONLY_PLAN', 'TX_SIMULATION_PENDING'] },
  ],
  [
    'unsupported: an unbound external reference gains no trust',
    v4FrozenExample,
    [noHookCallbacks, unboundExternalReference],
    { disposition: 'unsupported' },
    { blocking: ['EXTERNAL_REFERENCE_UNBOUND'] },
  ],
  [
    'unsupported with action_required: a reachable CALLCODE is a static hard block',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks, auxiliary(callcode)],
    {
      disposition: 'unsupported',
      platformAdmission: expect.objectContaining({
        status: 'action_required',
        blockingFindingCodes: ['RUNTIME_CALLCODE'],
      }),
    },
    { blocking: ['RUNTIME_CALLCODE'] },
  ],
  [
    'unsupported: a JPEG image',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks, image('ffd8ffe000104a46494600010100000100010000ffd9')],
    { disposition: 'unsupported' },
    { blocking: ['IMAGE_JPEG_UNSUPPORTED'] },
  ],
  [
    'unsupported: an animated GIF',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks, image(gif(2), 'image/gif')],
    { disposition: 'unsupported' },
    { blocking: ['IMAGE_GIF_ANIMATED'] },
  ],
  [
    'supported: a single-frame GIF',
    v4FrozenExample,
    [noExternalReferences, noHookCallbacks, image(gif(1), 'image/gif')],
    { disposition: 'supported' },
    { info: ['TX_SIMULATION_PENDING'] },
  ],
  [
    'unsupported: PNG bytes declared as GIF',
    v4FrozenExample,
    [
      noExternalReferences,
      noHookCallbacks,
      (r) => image(Buffer.from(r.projectMetadataImageArtifact.bytesBase64, 'base64').toString('hex'), 'image/gif')(r),
    ],
    { disposition: 'unsupported' },
    { blocking: ['IMAGE_TYPE_MISMATCH'] },
  ],
];

describe('preflight dispositions (disposition, platformAdmission)', () => {
  it.each(cases)('%s', async (_name, file, edits, want, codes) => {
    const request = example(file) as any;
    for (const edit of [compiledHook, plainTargets, ...edits]) edit(request);
    const r = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(bindRequestHashes(request)),
    });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    expect(r.json).toMatchObject(want);
    if (codes.blocking) {
      expect(r.json.blockingFindingCodes).toEqual(codes.blocking);
      expect(r.json.remediations.map((m: { findingCodes: string[] }) => m.findingCodes[0])).toEqual(codes.blocking);
    }
    if (codes.info) expect(r.json.informationalFindingCodes).toEqual(codes.info);
    expect(r.json).toMatchObject({
      riskClassification: { safetyClaim: false },
      behaviorEvidence: { feeBehaviorClaim: false },
    });
    expect(r.json.staticBaseline.reportSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('binds the exact static report in action_required and its digest otherwise', async () => {
    const request = example(v4FrozenExample) as any;
    for (const edit of [compiledHook, plainTargets, noExternalReferences, noHookCallbacks, auxiliary(callcode)])
      edit(request);
    const r = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(bindRequestHashes(request)),
    });
    expect(r.json.platformAdmission.staticReport).toEqual(r.json.staticBaseline);
    expect(r.json.staticBaseline.findings).toContainEqual(
      expect.objectContaining({ code: 'RUNTIME_CALLCODE', severity: 'hard_block', targetId: 'auxiliary-probe' }),
    );
  });
});

describe('the hook address carries its permission mask', () => {
  it('blocks a hook whose CREATE2 address does not carry its mask, and admits it once the salt is mined', async () => {
    const request = example(v4FrozenExample) as any;
    for (const edit of [compiledHook, plainTargets, noExternalReferences]) edit(request);
    const hook = request.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
    hook.create2Salt = `0x${'00'.repeat(31)}01`;
    const unmined = bindRequestHashes(request, { keepHookSalt: true });
    const address = predictedHookAddress(unmined) as Hex;
    expect(addressHookBits(address)).not.toBe(hook.hookPermissions.mask);
    const blocked = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(unmined),
    });
    expect(blocked.json.blockingFindingCodes).toEqual(['HOOK_ROLE_BINDING_INVALID']);
    // A role-bound rule of the static baseline: in the static report, so platformAdmission requires action.
    expect(blocked.json.platformAdmission).toMatchObject({
      status: 'action_required',
      blockingFindingCodes: ['HOOK_ROLE_BINDING_INVALID'],
    });
    const mined = bindRequestHashes(request);
    expect(addressHookBits(predictedHookAddress(mined) as Hex)).toBe(hook.hookPermissions.mask);
    const admitted = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(mined),
    });
    expect(admitted.json.blockingFindingCodes).toEqual([]);
    expect(admitted.json.platformAdmission.status).toBe('no_blocking_static_finding');
  });
});

describe('the role-bound rules and the pool duties in preflight', () => {
  const fixtures = compileFixtures({ appendCBOR: true });
  const withCode =
    (role: string, name: string, mask?: number): Edit =>
    (r) => {
      const target = r.graphBundle.targets.find((t: { role: string }) => t.role === role);
      target.runtimeBytecode = fixtures[name]?.runtime;
      target.runtimeCodeHash = keccak256(target.runtimeBytecode);
      if (mask === undefined) return;
      // afterSwap (0x40) and afterSwapReturnDelta (0x04); bindRequestHashes mines the hook salt for the mask.
      for (const flag of Object.keys(target.hookPermissions)) target.hookPermissions[flag] = false;
      Object.assign(target.hookPermissions, { mask, afterSwap: true, afterSwapReturnDelta: true });
    };
  const preflight = async (edits: Edit[]) => {
    const request = example(v4FrozenExample) as any;
    for (const edit of [compiledHook, plainTargets, noExternalReferences, ...edits]) edit(request);
    const r = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(bindRequestHashes(request)),
    });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    return r.json;
  };

  it.each([
    ['token', 'SharedTokenHook', 'TOKEN_ROLE_BINDING_INVALID'],
    ['hook', 'SharedTokenHook', 'HOOK_ROLE_BINDING_INVALID'],
    ['token', 'HalfSwapHook', 'TOKEN_ROLE_BINDING_INVALID'],
  ])('a %s target that is %s: %s is a static hard block', async (role, name, code) => {
    const json = await preflight([noHookCallbacks, withCode(role, name)]);
    expect(json.disposition).toBe('unsupported');
    expect(json.blockingFindingCodes).toEqual([code]);
    expect(json.platformAdmission).toMatchObject({ status: 'action_required', blockingFindingCodes: [code] });
  });

  it('the ERC-20 token and the compiled hook of the other cases: no role-bound finding', async () => {
    const json = await preflight([noHookCallbacks]);
    expect(json.blockingFindingCodes).toEqual([]);
    expect(json.platformAdmission.status).toBe('no_blocking_static_finding');
  });

  it('a hook that takes from the pool manager with afterSwapReturnDelta: both duties observed', async () => {
    const json = await preflight([withCode('hook', 'CustodyHook', 0x44)]);
    expect(json.behaviorEvidence).toMatchObject({
      liquidityCustody: { status: 'evidence_required', findingCodes: ['LIQUIDITY_CUSTODY'] },
      returnDeltaAccounting: { status: 'evidence_required', findingCodes: ['RETURN_DELTA_ACCOUNTING'] },
    });
    expect(json.warningFindingCodes).toEqual(expect.arrayContaining(['LIQUIDITY_CUSTODY', 'RETURN_DELTA_ACCOUNTING']));
    expect(json.blockingFindingCodes).toEqual([]);
  });

  it('the same mask on a hook that neither calls the pool manager nor carries afterSwap: neither duty', async () => {
    const json = await preflight([withCode('hook', 'CleanHook', 0x44), compiledHook]);
    expect(json.behaviorEvidence).toMatchObject({
      liquidityCustody: { status: 'not_observed', findingCodes: [] },
      returnDeltaAccounting: { status: 'not_observed', findingCodes: [] },
    });
  });
});
