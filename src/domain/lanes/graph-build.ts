import { concat, type Hex, keccak256 } from 'viem';
import { digestOf } from '../../core/request-hashes.ts';
import {
  compileStandardJsonIsolated,
  type SolidityBuild,
  type StandardJsonSources,
} from '../../solidity/compile-contracts.ts';

/** Builds kept by the digest of their standard JSON: the same unit compiles once per process (preflight, then create). */
const unitBuilds = new Map<string, Promise<SolidityBuild>>();
const unitBuildsKept = 32;

/**
 * A standard-JSON input's build with the pinned solc-js in a worker thread, compiled once per process for identical
 * input (solc is deterministic for one input and one pinned version); concurrent requests for the same input share
 * one compilation. A failed compilation is not kept, so a timeout on a busy machine is tried again next time. Used by
 * the V3 build (spec/schemas/custom-launch-create-request.v3.schema.json Compilation) and the shared lane's
 * (spec/schemas/multi-role-create-request.v2.schema.json Source).
 */
export function compiledStandardJson(standardJson: StandardJsonSources, timeoutMs: number): Promise<SolidityBuild> {
  const key = digestOf(standardJson);
  const kept = unitBuilds.get(key);
  if (kept) return kept;
  const building = compileStandardJsonIsolated(standardJson, timeoutMs);
  unitBuilds.set(key, building);
  building.catch(() => unitBuilds.delete(key));
  if (unitBuilds.size > unitBuildsKept) {
    const oldest = unitBuilds.keys().next().value;
    if (oldest !== undefined) unitBuilds.delete(oldest);
  }
  return building;
}

/** A solc link placeholder (`__$<34 hex>$__`): the code calls a library that is not linked. */
const linkPlaceholder = /__\$[0-9a-fA-F]{34}\$__/;

/** One graph target's contract as the server built it. */
export interface BuiltContractCode {
  /** The creation code of the target's contract followed by its constructorArgs, lowercase. */
  initCode: Hex;
  initCodeHash: Hex;
  /** The runtime code as compiled (immutables are zero until deployment fills them). */
  runtimeCode: Hex;
}

/**
 * A graph target's init code, its keccak-256 and its runtime code from the build that holds its contract
 * (`contractName` is `source path:contract`), or why it cannot be built: the build has no such deployable contract,
 * or its code needs library linking, which a graph cannot do. `from` names the build in the message. Spec: the
 * initCodeHash of GraphTarget in spec/schemas/custom-launch-create-request.v3.schema.json and
 * multi-role-create-request.v2.schema.json.
 */
export function builtContractCode(
  target: { contractName: string; constructorArgs: string },
  build: SolidityBuild | undefined,
  from: string,
): { ok: true; code: BuiltContractCode } | { ok: false; message: string } {
  const split = target.contractName.lastIndexOf(':');
  const [sourcePath, name] = [target.contractName.slice(0, split), target.contractName.slice(split + 1)];
  const contract = build?.contracts[sourcePath]?.[name];
  if (!contract) return { ok: false, message: `${from} builds no deployable contract ${target.contractName}` };
  if (linkPlaceholder.test(contract.bytecode) || linkPlaceholder.test(contract.deployedBytecode)) {
    return { ok: false, message: `${target.contractName} needs library linking, which the graph cannot do` };
  }
  const initCode = concat([contract.bytecode as Hex, target.constructorArgs as Hex]).toLowerCase() as Hex;
  return {
    ok: true,
    code: { initCode, initCodeHash: keccak256(initCode), runtimeCode: contract.deployedBytecode as Hex },
  };
}

/** The first part of a compiler failure's message (solc's formatted messages can run long). */
export function buildFailureReason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 2000);
}
