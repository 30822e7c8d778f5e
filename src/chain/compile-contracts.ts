import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** One compiled contract: what deployment, encoding and the static checks need. */
export interface CompiledContract {
  sourcePath: string;
  abi: unknown[];
  /** Creation code (0x hex). */
  bytecode: string;
  /** Runtime code as compiled (0x hex); immutables are zero until deployment fills them. */
  deployedBytecode: string;
}

export interface CompiledContracts {
  /** solc long version, e.g. 0.8.37+commit.f401782d. */
  compilerVersion: string;
  /** sha256: digest of the exact standard-JSON compiler input (sources and settings). */
  compilerInputDigest: string;
  contracts: Record<string, CompiledContract>;
}

function solFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return solFiles(path);
    return e.name.endsWith('.sol') ? [path] : [];
  });
}

/**
 * Compiles every Solidity file under contracts/ with solc-js from npm (optimizer on, 200 runs, cancun), resolving
 * `@uniswap/v4-core/...` imports from node_modules. `make generate` writes the result to generated/contracts/; the
 * devnet deploys from it and the server encodes and decodes calls with its ABIs.
 */
export function compileContracts(): CompiledContracts {
  const solc = require('solc') as { compile(input: string, options?: object): string; version(): string };
  const contractsDir = join(root, 'contracts');
  const sources = Object.fromEntries(
    solFiles(contractsDir)
      .sort()
      .map((path) => [relative(root, path), { content: readFileSync(path, 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const findImports = (path: string) => {
    const local = join(root, path.startsWith('@') ? `node_modules/${path}` : path);
    return existsSync(local) ? { contents: readFileSync(local, 'utf8') } : { error: `not found: ${path}` };
  };
  const serialized = JSON.stringify(input);
  const output = JSON.parse(solc.compile(serialized, { import: findImports }));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  }
  const contracts: Record<string, CompiledContract> = {};
  type SolcContract = { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } };
  const compiled = output.contracts as Record<string, Record<string, SolcContract>>;
  for (const [sourcePath, byName] of Object.entries(compiled)) {
    if (!sourcePath.startsWith('contracts/')) continue;
    for (const [name, c] of Object.entries(byName)) {
      if (c.evm.bytecode.object === '') continue; // interfaces
      contracts[name] = {
        sourcePath,
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return {
    compilerVersion: solc.version().replace(/\.Emscripten.*$/, ''),
    compilerInputDigest: `sha256:${createHash('sha256').update(serialized).digest('hex')}`,
    contracts,
  };
}
