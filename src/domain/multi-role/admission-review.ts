import type { Address, Hex } from 'viem';
import type {
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchPreflightV2,
} from '../../../generated/types/service.ts';
import type { CallbackVerdict } from '../../chain/hook-probe.ts';
import type { MultiRoleDeployment } from '../../chain/multi-role-deployment.ts';
import { InitCodeReverted, type MultiRoleEconomicsAnswer } from '../../chain/multi-role-launch-chain.ts';
import { basePoolKey } from '../../core/base-graph.ts';
import { addressHookBits } from '../../core/create2.ts';
import { callbackFlags, hookPermissionBits } from '../../core/hook-permissions.ts';
import { multiRoleRateModes, predictMultiRoleLaunch } from '../../core/multi-role-graph.ts';
import { solidityAstsIsolated } from '../../solidity/compile-contracts.ts';
import { findingCodes } from '../launches/finding-codes.ts';
import { hookProbeFindings } from '../lifecycle/chain-gates.ts';
import { scanRuntime } from '../static-baseline/opcode-scanner.ts';
import { erc20CoreSelectors } from '../static-baseline/role-binding.ts';
import { evaluateStaticBaseline } from '../static-baseline/rules.ts';
import { findSourceSelfdestructs } from '../static-baseline/source-selfdestruct.ts';
import type { BuiltMultiRoleGraph, BuiltMultiRoleTarget } from './build.ts';
import { type MultiRoleFindingCode, multiRoleFindingCodes } from './finding-codes.ts';

/** One finding of the shared lane's review (spec/schemas/multi-role-preflight.v2.schema.json Finding). */
export type MultiRoleFinding = MultiRoleCustomLaunchPreflightV2['findings'][number];

/** The chain-4663 reads the review makes (src/chain/multi-role-launch-chain.ts MultiRoleLaunchChain answers them). */
export interface MultiRoleReviewChain {
  /** The runtime code `initCode`'s constructor returns when `from` creates it (immutables filled). */
  deployedRuntimeCode(initCode: Hex, from: Address): Promise<Hex>;
  /** multiRoleEconomics() of `runtimeCode` placed at `address`; null when it reverts or does not decode. */
  economicsOf(address: Address, runtimeCode: Hex): Promise<MultiRoleEconomicsAnswer | null>;
  /** The verdict of each enabled hook callback (src/chain/hook-probe.ts probeHookCallbacks). */
  probeHookCallbacks(input: {
    hookAddress: Address;
    runtimeCode: Hex;
    poolManager: Address;
    router: Address;
    key: ReturnType<typeof basePoolKey>;
    sqrtPriceX96: bigint;
    enabled: readonly (typeof callbackFlags)[number][];
  }): Promise<CallbackVerdict[]>;
}

/** What the review reads besides the request and its build. */
export interface MultiRoleReviewContext {
  /** The lane's contracts; the review needs them (a lane without them admits nothing). */
  deployment: MultiRoleDeployment | null;
  /** The chain-4663 reads; null when no provider is configured (the chain checks then wait for the lifecycle). */
  chain: MultiRoleReviewChain | null;
  canonicalPoolManager: string;
}

/** The shared lane's review of one request. */
export interface MultiRoleReview {
  findings: MultiRoleFinding[];
  missingVerificationRequirements: ('source_code' | 'economics')[];
  /** Whether the economics read and the callback probe ran (false without a chain). */
  chainChecked: boolean;
}

const finding = (code: MultiRoleFindingCode | keyof typeof findingCodes): MultiRoleFinding => {
  if (code in multiRoleFindingCodes) {
    const severity = multiRoleFindingCodes[code as MultiRoleFindingCode].severity;
    return { code, severity, missingVerificationRequirements: [] };
  }
  const classification = findingCodes[code as keyof typeof findingCodes].classification;
  return {
    code,
    severity: classification === 'hard_block' ? 'blocking' : 'warning',
    missingVerificationRequirements: [],
  };
};

/**
 * Reviews a shared-lane request the server built. Static: the token_hook must enable a hook permission
 * (MULTI_ROLE_HOOK_ROLE_EMPTY), its CREATE2 address (lane factory, lane router, salt, declared initCodeHash) must carry
 * its mask in its low 14 bits (MULTI_ROLE_HOOK_ADDRESS_MISMATCH), its runtime code must carry the ERC-20 core
 * (MULTI_ROLE_TOKEN_CORE_MISSING), and the static baseline (src/domain/static-baseline/rules.ts) runs over every
 * target, the token_hook as the hook (its serving the ERC-20 core is this lane's point, so HOOK_ROLE_BINDING_INVALID
 * does not apply): its hard blocks block, its evidence duties warn; a selfdestruct call in any source blocks too
 * (SOURCE_SELFDESTRUCT). On chain (ctx.chain): the token_hook's deployed
 * runtime code (immutables filled) replaces the compiled one, its multiRoleEconomics() must answer exactly the
 * declared economics, and each enabled callback is probed for its pool-manager guard (CALLBACK_GUARD_MISSING,
 * ENABLED_CALLBACK_MISSING). A token_hook hash the build does not reproduce, or economics not answered, is
 * evidence_required with source_code and/or economics. Without a chain, MULTI_ROLE_CHAIN_CHECKS_PENDING warns.
 * Spec: Finding of spec/schemas/multi-role-preflight.v2.schema.json and the `$comment` of
 * spec/schemas/multi-role-create-request.v2.schema.json.
 */
export async function reviewMultiRoleRequest(
  request: MultiRoleCustomLaunchCreateRequestV2,
  build: BuiltMultiRoleGraph,
  ctx: MultiRoleReviewContext,
): Promise<MultiRoleReview> {
  if (!ctx.deployment) throw new Error('MULTI_ROLE_DEPLOYMENT_PATH is not set: no shared-lane review');
  const factory = ctx.deployment.contracts.graphFactory.address.toLowerCase() as Hex;
  const router = ctx.deployment.contracts.launchRouter.address.toLowerCase() as Hex;
  const { tokenHook } = predictMultiRoleLaunch(request, factory, router);
  const hook = build.targets.find((t) => t.role === 'token_hook') as BuiltMultiRoleTarget;
  const mask = hook.hookPermissionMask ?? 0;
  const codes: (MultiRoleFindingCode | keyof typeof findingCodes)[] = [];
  if (mask === 0) codes.push('MULTI_ROLE_HOOK_ROLE_EMPTY');
  if (addressHookBits(tokenHook) !== mask) codes.push('MULTI_ROLE_HOOK_ADDRESS_MISMATCH');
  const missing: MultiRoleReview['missingVerificationRequirements'] = [];
  if (!build.tokenHookSourceMatches) missing.push('source_code');
  let runtime = hook.runtimeCode;
  if (ctx.chain) {
    const onChain = await chainChecks(request, hook, { tokenHook, factory, router }, ctx.chain, ctx.deployment);
    runtime = onChain.runtime;
    codes.push(...onChain.codes);
    if (!onChain.economicsKnown) missing.push('economics');
  } else {
    codes.push('MULTI_ROLE_CHAIN_CHECKS_PENDING');
  }
  if (!carriesErc20Core(runtime)) codes.push('MULTI_ROLE_TOKEN_CORE_MISSING');
  if (await sourceSelfdestructs(request)) codes.push('SOURCE_SELFDESTRUCT');
  codes.push(...baselineCodes(build, { ...hook, runtimeCode: runtime }, tokenHook, ctx.canonicalPoolManager));
  const findings = [...new Set(codes)].sort().map(finding);
  if (missing.length > 0) {
    findings.unshift({
      code: 'evidence_required',
      severity: 'needs_evidence',
      missingVerificationRequirements: missing,
    });
  }
  return { findings, missingVerificationRequirements: missing, chainChecked: ctx.chain !== null };
}

/**
 * The token_hook on chain 4663: its runtime code as its constructor returns it from the lane's factory, the economics
 * that code answers, and the guard of each enabled callback. A constructor that reverts cannot launch
 * (MULTI_ROLE_SIMULATION_REVERTED); the compiled runtime code then stands in for the static checks.
 */
async function chainChecks(
  request: MultiRoleCustomLaunchCreateRequestV2,
  hook: BuiltMultiRoleTarget,
  at: { tokenHook: Hex; factory: Hex; router: Hex },
  chain: MultiRoleReviewChain,
  deployment: MultiRoleDeployment,
): Promise<{ runtime: Hex; codes: (MultiRoleFindingCode | keyof typeof findingCodes)[]; economicsKnown: boolean }> {
  let runtime: Hex;
  try {
    runtime = await chain.deployedRuntimeCode(hook.initCode, at.factory);
  } catch (err) {
    if (!(err instanceof InitCodeReverted)) throw err;
    return { runtime: hook.runtimeCode, codes: ['MULTI_ROLE_SIMULATION_REVERTED'], economicsKnown: false };
  }
  const economics = await chain.economicsOf(at.tokenHook, runtime);
  const mask = hook.hookPermissionMask ?? 0;
  const verdicts = await chain.probeHookCallbacks({
    hookAddress: at.tokenHook,
    runtimeCode: runtime,
    poolManager: deployment.contracts.poolManager.address,
    router: at.router,
    key: basePoolKey(at.tokenHook, at.tokenHook, request.liquidity.lpFee, request.liquidity.tickSpacing),
    sqrtPriceX96: BigInt(request.liquidity.sqrtPriceX96),
    enabled: callbackFlags.filter((flag) => (mask & hookPermissionBits[flag]) !== 0),
  });
  const codes = hookProbeFindings(verdicts, hook.targetId).flatMap((f) =>
    f.severity === 'blocking' ? [f.code as 'CALLBACK_GUARD_MISSING' | 'ENABLED_CALLBACK_MISSING'] : [],
  );
  return { runtime, codes, economicsKnown: economicsMatch(request.economics, economics) };
}

/** The static baseline's codes over every target, the token_hook as the hook at its predicted address. */
function baselineCodes(
  build: BuiltMultiRoleGraph,
  hook: BuiltMultiRoleTarget,
  tokenHook: Hex,
  canonicalPoolManager: string,
): (keyof typeof findingCodes)[] {
  const { findings } = evaluateStaticBaseline(
    build.targets.map((t) =>
      t.role === 'token_hook'
        ? {
            targetId: t.targetId,
            role: 'hook',
            runtimeBytecode: hook.runtimeCode,
            address: tokenHook,
            hookPermissionMask: t.hookPermissionMask,
          }
        : { targetId: t.targetId, role: t.role, runtimeBytecode: t.runtimeCode },
    ),
    { canonicalPoolManager },
  );
  return findings
    .map((f) => f.code as keyof typeof findingCodes)
    .filter((code) => code !== 'HOOK_ROLE_BINDING_INVALID');
}

/**
 * Whether the request's sources call the selfdestruct builtin anywhere, by the solc AST (never a comment or string;
 * src/domain/static-baseline/source-selfdestruct.ts): a call the optimizer left out of the runtime code still blocks.
 */
async function sourceSelfdestructs(request: MultiRoleCustomLaunchCreateRequestV2): Promise<boolean> {
  const sources = Object.fromEntries(Object.entries(request.source.sources).map(([path, s]) => [path, s.content]));
  const { optimizer, evmVersion, viaIR } = request.source.settings;
  const asts = await solidityAstsIsolated(sources, { optimizer, evmVersion, viaIR: viaIR ?? false });
  return findSourceSelfdestructs(asts, sources).length > 0;
}

/** Whether the runtime code pushes every ERC-20 core selector in reachable code (src/domain/static-baseline). */
function carriesErc20Core(runtimeCode: Hex): boolean {
  const scan = scanRuntime(Buffer.from(runtimeCode.slice(2), 'hex'));
  const pushed = new Set(scan.selectors.filter((s) => s.embeddedStart === null).map((s) => s.selector));
  return erc20CoreSelectors.every((s) => pushed.has(s.selector));
}

/** The declared economics equal what the token_hook answers, field by field. */
function economicsMatch(
  declared: MultiRoleCustomLaunchCreateRequestV2['economics'],
  read: MultiRoleEconomicsAnswer | null,
): boolean {
  if (!read) return false;
  return (
    read.totalSupply === BigInt(declared.totalSupply) &&
    multiRoleRateModes[read.rateMode] === declared.rateMode &&
    read.buyRateHundredthsBip === declared.buyRateHundredthsBip &&
    read.sellRateHundredthsBip === declared.sellRateHundredthsBip &&
    read.feeRecipient.toLowerCase() === declared.feeRecipient.toLowerCase()
  );
}

/**
 * The preflight disposition of a set of findings: unsupported with any blocking one, else needs_evidence with any
 * needs_evidence one, else supported_with_warnings with any warning, else supported
 * (spec/schemas/multi-role-preflight.v2.schema.json disposition).
 */
export function dispositionOf(findings: readonly MultiRoleFinding[]): MultiRoleCustomLaunchPreflightV2['disposition'] {
  const has = (severity: MultiRoleFinding['severity']) => findings.some((f) => f.severity === severity);
  if (has('blocking')) return 'unsupported';
  if (has('needs_evidence')) return 'needs_evidence';
  return findings.length > 0 ? 'supported_with_warnings' : 'supported';
}
