import type { Hex } from 'viem';
import type { CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import type { SolidityBuild } from '../../solidity/compile-contracts.ts';
import { buildFailureReason, builtContractCode, compiledStandardJson } from '../lanes/graph-build.ts';

type GraphTarget = CustomLaunchCreateRequestV3['graph']['targets'][number];

/** One target as the server built it. */
export interface BuiltBaseTarget {
  targetId: string;
  role: GraphTarget['role'];
  /** The creation code of the target's contract followed by its constructorArgs. */
  initCode: Hex;
  initCodeHash: Hex;
  /** The runtime code as compiled (immutables are zero until deployment fills them). */
  runtimeCode: Hex;
  hookPermissionMask?: number;
}

/** The server's build of a request's graph: every target, or the first reason it cannot be built as declared. */
export type BaseGraphBuild =
  | { ok: true; targets: BuiltBaseTarget[] }
  | { ok: false; code: 'V3_BUILD_FAILED' | 'V3_INIT_CODE_MISMATCH'; message: string; targetId: string | null };

/** A graph the server built as the request declares it. */
export type BuiltBaseGraph = Extract<BaseGraphBuild, { ok: true }>;

/** Project design: how long one unit may compile before the build fails. */
export const baseBuildLimits = { unitTimeoutMs: 120_000 } as const;

/**
 * Builds the request's graph with the pinned solc-js: each compilation unit once, in a worker thread, with its own
 * settings and the server's outputSelection (creation and runtime code); then each target's init code (creation
 * code followed by constructorArgs) and its keccak-256, compared with the declared initCodeHash. A unit that does
 * not compile (or still compiles after `unitTimeoutMs`, default 120 s), a contract it does not build, or code that
 * needs library linking is V3_BUILD_FAILED; a hash that differs is V3_INIT_CODE_MISMATCH. Expects a request that
 * passed checkBaseLayerRequestRules. Spec: the initCodeHash of GraphTarget and `Compilation` in
 * spec/schemas/custom-launch-create-request.v3.schema.json.
 */
export async function buildBaseGraph(
  request: CustomLaunchCreateRequestV3,
  options: { unitTimeoutMs?: number } = {},
): Promise<BaseGraphBuild> {
  const builds = new Map<string, SolidityBuild>();
  const timeoutMs = options.unitTimeoutMs ?? baseBuildLimits.unitTimeoutMs;
  for (const unit of request.compilation.units) {
    try {
      builds.set(unit.unitId, await compiledStandardJson(unit.standardJson, timeoutMs));
    } catch (err) {
      const reason = buildFailureReason(err);
      return {
        ok: false,
        code: 'V3_BUILD_FAILED',
        message: `unit ${unit.unitId} does not compile: ${reason}`,
        targetId: null,
      };
    }
  }
  const targets: BuiltBaseTarget[] = [];
  for (const target of request.graph.targets) {
    const built = builtTarget(target, builds.get(target.compilationUnitId));
    if (!('initCode' in built)) return built;
    targets.push(built);
  }
  return { ok: true, targets };
}

/** One target from its unit's build, or why it cannot be built as declared. */
function builtTarget(
  target: GraphTarget,
  build: SolidityBuild | undefined,
): BuiltBaseTarget | Extract<BaseGraphBuild, { ok: false }> {
  const failed = (code: 'V3_BUILD_FAILED' | 'V3_INIT_CODE_MISMATCH', message: string) =>
    ({ ok: false, code, message, targetId: target.targetId }) as const;
  const built = builtContractCode(target, build, `unit ${target.compilationUnitId}`);
  if (!built.ok) return failed('V3_BUILD_FAILED', built.message);
  const { initCode, initCodeHash, runtimeCode } = built.code;
  if (initCodeHash !== target.initCodeHash.toLowerCase()) {
    return failed(
      'V3_INIT_CODE_MISMATCH',
      `${target.targetId}: the server's build of ${target.contractName} with its constructorArgs hashes to ${initCodeHash}, not the declared ${target.initCodeHash}`,
    );
  }
  return {
    targetId: target.targetId,
    role: target.role,
    initCode,
    initCodeHash,
    runtimeCode,
    ...(target.hookPermissionMask === undefined ? {} : { hookPermissionMask: target.hookPermissionMask }),
  };
}
