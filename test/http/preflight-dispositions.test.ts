import { createHash } from 'node:crypto';
import { type Hex, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressHookBits } from '../../src/chain/graph-address.ts';
import { bindRequestHashes, predictedHookAddress } from '../../src/domain/launches/request-hashes.ts';
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
beforeAll(async () => {
  s = await startServer();
  key = s.key();
  // A compiled hook whose poolManager() returns the canonical pool manager: decided statically, no finding.
  const fixtures = compileFixtures({ appendCBOR: true });
  const cleanHook = fixtures.CleanHook;
  if (!cleanHook) throw new Error('the CleanHook fixture did not compile');
  cleanHookCode = fillImmutables(cleanHook, s.config.canonicalPoolManager) as Hex;
});
afterAll(() => s.close());

type Edit = (r: any) => void;
const compiledHook: Edit = (r) => {
  const hook = r.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
  hook.runtimeBytecode = cleanHookCode;
  hook.runtimeCodeHash = keccak256(cleanHookCode);
};
// Token and initializer as minimal codes with no finding of their own, so each case shows only its own findings.
const plainTargets: Edit = (r) => {
  for (const [role, tag] of [
    ['token', '01010101'],
    ['initializer', '03030303'],
  ]) {
    const target = r.graphBundle.targets.find((t: { role: string }) => t.role === role);
    target.runtimeBytecode = `0x608060405263${tag}505f80fd`;
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

describe('preflight dispositions (launch-transport.md Response resources: disposition, platformAdmission)', () => {
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

describe('the hook address carries its permission mask (issue 4 item 4)', () => {
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
    const mined = bindRequestHashes(request);
    expect(addressHookBits(predictedHookAddress(mined) as Hex)).toBe(hook.hookPermissions.mask);
    const admitted = await call(`${s.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(mined),
    });
    expect(admitted.json.blockingFindingCodes).toEqual([]);
  });
});
