import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';

/** One contract of generated/contracts/artifacts.json (compiled from contracts/ by `make generate`). */
export interface ContractArtifact {
  sourcePath: string;
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface Artifacts {
  compilerVersion: string;
  compilerInputDigest: string;
  contracts: Record<string, ContractArtifact>;
}

let cached: Artifacts | undefined;

/** The compiled platform and example contracts; the ABIs are typed in generated/contracts/abis.ts. */
export function artifacts(): Artifacts {
  cached ??= JSON.parse(
    readFileSync(new URL('../../generated/contracts/artifacts.json', import.meta.url), 'utf8'),
  ) as Artifacts;
  return cached;
}

export function artifact(name: string): ContractArtifact {
  const found = artifacts().contracts[name];
  if (!found) throw new Error(`no compiled contract ${name} in generated/contracts/artifacts.json`);
  return found;
}
