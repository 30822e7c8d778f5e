import type { Hex } from 'viem';
import type { CustomLaunchCreateRequestV3, CustomLaunchFeeCertificationV3 } from '../../../generated/types/service.ts';
import type { BaseDeployment } from '../../chain/base-deployment.ts';
import { predictBaseGraphTarget, predictBaseLaunch } from '../../core/base-graph.ts';
import { addressHookBits } from '../../core/create2.ts';
import { evaluateStaticBaseline } from '../static-baseline/rules.ts';
import type { BaseGraphBuild } from './build.ts';

/** What the review reads besides the request and its build. */
export interface BaseLayerReviewContext {
  /** Static-baseline rule codes retired by the current v3_rule_sets revision. */
  retiredRules: readonly string[];
  /** The canonical Uniswap v4 PoolManager of chain 1. */
  canonicalPoolManager: string;
  /** The lane's contracts on chain 1 that place the graph. */
  deployment: { launchRouter: string; graphFactory: string };
  /** Fee certifications (V3_FEE_CERTIFICATIONS): an adapter (null: the profile itself) per profile version. */
  feeCertifications: readonly { adapter: string | null; profileVersion: string }[];
}

/**
 * The review's context for a base deployment, under the given retired rules and fee certifications: its PoolManager
 * is the canonical one the router stamps pools into, its router and graph factory place the graph. Preflight and the
 * lifecycle review with the same context.
 */
export function baseReviewContextOf(
  deployment: BaseDeployment,
  retiredRules: readonly string[],
  feeCertifications: BaseLayerReviewContext['feeCertifications'],
): BaseLayerReviewContext {
  const { contracts } = deployment;
  return {
    retiredRules,
    canonicalPoolManager: contracts.poolManager.address,
    deployment: { launchRouter: contracts.launchRouter.address, graphFactory: contracts.graphFactory.address },
    feeCertifications,
  };
}

/** The admission review of one base-layer launch. */
export interface BaseLayerReview {
  /** Every finding code found, retired ones included; sorted, unique. */
  findingCodes: string[];
  /** The current hard-blocking findings: hard blocks minus retired rules (V3_HOOK_ADDRESS_MISMATCH never retires). */
  hardBlocks: string[];
  warnings: string[];
  needsEvidence: string[];
  feeCertification: CustomLaunchFeeCertificationV3;
  predicted: { token: Hex; hook: Hex; poolId: Hex };
}

const sortedUnique = (codes: Iterable<string>) => [...new Set(codes)].sort();

/**
 * Reviews a base-layer launch the server built: the static baseline (src/domain/static-baseline/rules.ts) over every
 * target's compiled runtime code with its role and predicted CREATE2 address; its hard blocks block unless the
 * current rule set retired the rule, and its evidence duties are warnings, as on the V4 lane (this lane binds no
 * evidence, so `needsEvidence` stays empty). The hook's predicted address must carry its mask in its low 14 bits
 * (V3_HOOK_ADDRESS_MISMATCH, never retired). The fee certification is the server's: certified iff an entry names
 * the request's feeAdapter (or null for the profile) and its profile version; then the platform share is 1,000 for
 * the exact pool id predicted, else 0, with FEE_CERTIFICATION_NOT_FOUND when a named adapter is not certified.
 * Spec: pending_review and action_required of spec/schemas/custom-launch-resource.v3.schema.json and its
 * FeeCertification; the finding-code arrays of spec/schemas/custom-launch-preflight.v3.schema.json.
 */
export function reviewBaseLayerLaunch(
  request: CustomLaunchCreateRequestV3,
  build: Extract<BaseGraphBuild, { ok: true }>,
  context: BaseLayerReviewContext,
): BaseLayerReview {
  const factory = context.deployment.graphFactory.toLowerCase() as Hex;
  const router = context.deployment.launchRouter.toLowerCase() as Hex;
  const predicted = predictBaseLaunch(request, factory, router);
  const addressOf = (targetId: string) => {
    const declared = request.graph.targets.find((t) => t.targetId === targetId);
    if (!declared) throw new Error(`the build names ${targetId}, which the request does not`);
    return predictBaseGraphTarget(factory, router, declared.salt as Hex, declared.initCodeHash as Hex);
  };
  const { findings } = evaluateStaticBaseline(
    build.targets.map((t) => ({
      targetId: t.targetId,
      role: t.role,
      runtimeBytecode: t.runtimeCode,
      address: addressOf(t.targetId),
      hookPermissionMask: t.hookPermissionMask,
    })),
    { canonicalPoolManager: context.canonicalPoolManager },
  );
  const found: string[] = findings.map((f) => f.code);
  const retired = new Set(context.retiredRules);
  const hardBlocks = findings.filter((f) => f.severity === 'hard_block' && !retired.has(f.code)).map((f) => f.code);
  const warnings = findings.filter((f) => f.severity !== 'hard_block').map((f) => f.code);
  const hook = build.targets.find((t) => t.role === 'hook');
  if (hook?.hookPermissionMask !== undefined && addressHookBits(predicted.hook) !== hook.hookPermissionMask) {
    found.push('V3_HOOK_ADDRESS_MISMATCH');
    hardBlocks.push('V3_HOOK_ADDRESS_MISMATCH');
  }
  const { feeCertification, warning } = baseFeeCertification(request, context);
  if (warning) {
    found.push(warning);
    warnings.push(warning);
  }
  return {
    findingCodes: sortedUnique(found),
    hardBlocks: sortedUnique(hardBlocks),
    warnings: sortedUnique(warnings),
    needsEvidence: [],
    feeCertification,
    predicted,
  };
}

/**
 * The server's fee-certification decision for the pool id the request's declared graph stamps, with
 * FEE_CERTIFICATION_NOT_FOUND when the request named an adapter that is not certified. Spec: FeeCertification of
 * spec/schemas/custom-launch-resource.v3.schema.json.
 */
export function baseFeeCertification(
  request: CustomLaunchCreateRequestV3,
  context: Pick<BaseLayerReviewContext, 'deployment' | 'feeCertifications'>,
): { feeCertification: CustomLaunchFeeCertificationV3; warning: 'FEE_CERTIFICATION_NOT_FOUND' | null } {
  const factory = context.deployment.graphFactory.toLowerCase() as Hex;
  const router = context.deployment.launchRouter.toLowerCase() as Hex;
  const { poolId } = predictBaseLaunch(request, factory, router);
  const adapter = request.feeAdapter?.toLowerCase() ?? null;
  const certified = context.feeCertifications.some(
    (c) => (c.adapter?.toLowerCase() ?? null) === adapter && c.profileVersion === request.profile.version,
  );
  const feeCertification = {
    certified,
    platformShareHundredthsBip: certified ? 1000 : 0,
    adapter: request.feeAdapter,
    stampedPoolKeyHash: poolId,
  } as const;
  return { feeCertification, warning: !certified && adapter !== null ? 'FEE_CERTIFICATION_NOT_FOUND' : null };
}
