import { type Hex, keccak256 } from 'viem';
import type { CustomLaunchCreateRequestV4, FundingPlanV2, GraphBundle } from '../../generated/types/service.ts';
import { canonicalSha256, type KnownHex } from './canonical-json.ts';
import { addressHookBits, mineHookSalt, predictGraphTarget } from './create2.ts';
import { fundingNonceEntropy, fundingNonceOf } from './funding-nonce.ts';
import type { HexMemo } from './hex-bytes.ts';
import { keccak256Hex } from './keccak.ts';

/**
 * `sha256:` digest of a value's RFC 8785 canonical JSON (spec/README.md, Conventions); `known` proves strings hex so
 * they are hashed without being copied (canonical-json.ts canonicalSha256, the same digest).
 */
export function digestOf(value: unknown, known?: KnownHex): string {
  return canonicalSha256(value, known);
}

/** projectMetadataHash: the digest of projectMetadata (spec/schemas/custom-launch-create-request.v4.schema.json). */
export function projectMetadataHashOf(request: Pick<CustomLaunchCreateRequestV4, 'projectMetadata'>): string {
  return digestOf(request.projectMetadata);
}

/** fundingPlanHash: the digest of the plan without that field (funding-plan.v2.schema.json). */
export function fundingPlanHashOf(plan: FundingPlanV2): string {
  const { fundingPlanHash: _hash, ...unhashed } = plan;
  return digestOf(unhashed);
}

/** graphBundleDigest: the digest of the bundle without that field (custom-launch-create-request.v4.schema.json). */
export function graphBundleDigestOf(bundle: GraphBundle, known?: KnownHex): string {
  const { graphBundleDigest: _digest, ...unhashed } = bundle;
  return digestOf(unhashed, known);
}

/** launchIntentHash: the digest of the request without launchIntentHash and agentAttestation. */
export function launchIntentHashOf(request: CustomLaunchCreateRequestV4, known?: KnownHex): string {
  const { launchIntentHash: _hash, agentAttestation: _attestation, ...intent } = request;
  return digestOf(intent, known);
}

/**
 * runtimeCodeHash: the keccak-256 of a target's runtime code as 0x and lowercase hex (custom-launch-create-request.v4
 * GraphTarget). The same digest as viem's keccak256 over the hex (keccak256Hex, WebAssembly: many times faster per byte);
 * with a memo, the code is decoded once for every rule that reads it.
 *
 * @throws {TypeError} When the code is not `0x`-prefixed even-length hex.
 */
export function runtimeCodeHashOf(runtimeBytecode: string, memo?: HexMemo): Hex {
  if (!memo) return keccak256Hex(runtimeBytecode as Hex);
  const bytes = memo.bytes(runtimeBytecode);
  if (!bytes) throw new TypeError('keccak256Hex: not 0x-prefixed even-length hex');
  return keccak256Hex(bytes);
}

type GraphTarget = CustomLaunchCreateRequestV4['graphBundle']['targets'][number];

/** Where the request's graph factory and router put one of its targets (CREATE2 over its salt and runtime code). */
function targetAddress(request: CustomLaunchCreateRequestV4, target: GraphTarget): Hex {
  const { graphFactory, platformLaunchStampRouter } = request.chainDeployment.contracts;
  return predictGraphTarget(
    graphFactory.address as Hex,
    platformLaunchStampRouter.address as Hex,
    target.create2Salt as Hex | undefined,
    target.runtimeBytecode as Hex,
  );
}

/** Every graph target of a request: its address and the keccak256 of the runtime code the request binds. */
export function graphTargetsOf(
  request: CustomLaunchCreateRequestV4,
): Array<{ targetId: string; address: Hex; runtimeCodeHash: Hex }> {
  return request.graphBundle.targets.map((t) => ({
    targetId: t.targetId,
    address: targetAddress(request, t),
    runtimeCodeHash: keccak256(t.runtimeBytecode as Hex),
  }));
}

/** Where the request's graph factory and router put its hook, or null when it has no hook target. */
export function predictedHookAddress(request: CustomLaunchCreateRequestV4): Hex | null {
  const hook = request.graphBundle.targets.find((t) => t.role === 'hook');
  return hook ? targetAddress(request, hook) : null;
}

/**
 * Recomputes every binding of a request after an edit, inner ones first: the hook's CREATE2 salt is mined again when
 * the hook's address no longer carries its permission mask (unless `keepHookSalt`), then the chain-deployment,
 * graph, source-manifest, metadata and plan digests, the 4.1.0 funding nonce (funding-nonce.ts), then the intent hash
 * over them. Packers and tests use it; the server only ever checks bindings.
 */
export function bindRequestHashes(
  request: CustomLaunchCreateRequestV4,
  options: { keepHookSalt?: boolean } = {},
): CustomLaunchCreateRequestV4 {
  const bound = structuredClone(request);
  const hook = bound.graphBundle.targets.find((t) => t.role === 'hook');
  const address = predictedHookAddress(bound);
  const mask = hook?.hookPermissions?.mask;
  // Only a mask an address can carry (0..16383) is mined for; a request with another mask fails its schema anyway.
  const mineable = typeof mask === 'number' && Number.isInteger(mask) && mask >= 0 && mask <= 0x3fff;
  if (!options.keepHookSalt && hook?.hookPermissions && mineable && address && addressHookBits(address) !== mask) {
    const { graphFactory, platformLaunchStampRouter } = bound.chainDeployment.contracts;
    hook.create2Salt = mineHookSalt(
      graphFactory.address as Hex,
      platformLaunchStampRouter.address as Hex,
      hook.runtimeBytecode as Hex,
      hook.hookPermissions.mask,
    );
  }
  bound.chainDeploymentDescriptorDigest = digestOf(bound.chainDeployment);
  bound.graphBundle.graphBundleDigest = graphBundleDigestOf(bound.graphBundle);
  bound.verificationBundle.graphBundleDigest = bound.graphBundle.graphBundleDigest;
  bound.verificationBundle.sourceBundleManifestDigest = digestOf(bound.sourceBundleManifest);
  bound.projectMetadataHash = projectMetadataHashOf(bound);
  if (bound.profile === '4.1.0') {
    bound.fundingPlan.fundingPlanHash = fundingPlanHashOf(bound.fundingPlan);
    bound.funding.fundingPlanHash = bound.fundingPlan.fundingPlanHash;
    // 4.1.0: the funding nonce keeps its entropy half and re-derives the other from the wallet and the plan.
    bound.nonce = fundingNonceOf(
      fundingNonceEntropy(bound.nonce),
      bound.launchWallet,
      bound.fundingPlan.fundingPlanHash,
    );
  }
  bound.launchIntentHash = launchIntentHashOf(bound);
  return bound;
}
