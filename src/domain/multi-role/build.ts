import type { Hex } from 'viem';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../../generated/types/service.ts';
import type { SolidityBuild } from '../../solidity/compile-contracts.ts';
import { baseBuildLimits } from '../base-layer/build.ts';
import { buildFailureReason, builtContractCode, compiledStandardJson } from '../lanes/graph-build.ts';

type GraphTarget = MultiRoleCustomLaunchCreateRequestV2['graph']['targets'][number];

/** One target of the shared lane's graph as the server built it. */
export interface BuiltMultiRoleTarget {
  targetId: string;
  role: GraphTarget['role'];
  /** The creation code of the target's contract (the server's build) followed by its constructorArgs. */
  initCode: Hex;
  initCodeHash: Hex;
  /** The runtime code as compiled (immutables are zero until deployment fills them). */
  runtimeCode: Hex;
  /** The declared CREATE2 salt given to the lane's graph factory. */
  salt: Hex;
  hookPermissionMask?: number;
}

/** The server's build of a shared-lane graph, or the first reason it cannot be built as declared. */
export type MultiRoleGraphBuild =
  | { ok: true; targets: BuiltMultiRoleTarget[]; tokenHookSourceMatches: boolean }
  | {
      ok: false;
      code: 'MULTI_ROLE_BUILD_FAILED' | 'MULTI_ROLE_INIT_CODE_MISMATCH';
      message: string;
      targetId: string | null;
    };

/** A shared-lane graph the server built. */
export type BuiltMultiRoleGraph = Extract<MultiRoleGraphBuild, { ok: true }>;

/**
 * Builds the request's source once with the pinned solc-js in a worker thread (its settings, the server's
 * outputSelection), then each target's init code (creation code followed by constructorArgs) and its keccak-256,
 * compared with the declared initCodeHash. A source that does not compile (or still compiles after
 * `unitTimeoutMs`, default 120 s), a contract it does not build, or code that needs library linking is
 * MULTI_ROLE_BUILD_FAILED; a hash that differs on a target other than the token_hook is
 * MULTI_ROLE_INIT_CODE_MISMATCH. A token_hook whose declared hash differs is no failure: tokenHookSourceMatches is
 * false and the target carries the server's build (the review reports evidence_required, source_code). Expects a
 * request that passed checkMultiRoleRequestRules. Spec: GraphTarget.initCodeHash and Source in
 * spec/schemas/multi-role-create-request.v2.schema.json.
 */
export async function buildMultiRoleGraph(
  request: MultiRoleCustomLaunchCreateRequestV2,
  options: { unitTimeoutMs?: number } = {},
): Promise<MultiRoleGraphBuild> {
  const { compilerVersion: _pinned, ...standardJson } = request.source;
  let build: SolidityBuild;
  try {
    build = await compiledStandardJson(standardJson, options.unitTimeoutMs ?? baseBuildLimits.unitTimeoutMs);
  } catch (err) {
    const message = `the source does not compile: ${buildFailureReason(err)}`;
    return { ok: false, code: 'MULTI_ROLE_BUILD_FAILED', message, targetId: null };
  }
  const targets: BuiltMultiRoleTarget[] = [];
  let tokenHookSourceMatches = true;
  for (const target of request.graph.targets) {
    const failed = (code: 'MULTI_ROLE_BUILD_FAILED' | 'MULTI_ROLE_INIT_CODE_MISMATCH', message: string) =>
      ({ ok: false, code, message, targetId: target.targetId }) as const;
    const built = builtContractCode(target, build, 'the source');
    if (!built.ok) return failed('MULTI_ROLE_BUILD_FAILED', built.message);
    const { initCode, initCodeHash, runtimeCode } = built.code;
    if (initCodeHash !== target.initCodeHash.toLowerCase()) {
      if (target.role !== 'token_hook') {
        return failed(
          'MULTI_ROLE_INIT_CODE_MISMATCH',
          `${target.targetId}: the server's build of ${target.contractName} with its constructorArgs hashes to ${initCodeHash}, not the declared ${target.initCodeHash}`,
        );
      }
      tokenHookSourceMatches = false;
    }
    targets.push({
      targetId: target.targetId,
      role: target.role,
      initCode,
      initCodeHash,
      runtimeCode,
      salt: target.salt as Hex,
      ...(target.hookPermissionMask === undefined ? {} : { hookPermissionMask: target.hookPermissionMask }),
    });
  }
  return { ok: true, targets, tokenHookSourceMatches };
}
