import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const contractsDir = fileURLToPath(new URL('../fixtures/contracts/', import.meta.url));

/** A compiled fixture: runtime code and where its immutables sit in it. */
export interface CompiledFixture {
  runtime: string;
  immutableReferences: Record<string, Array<{ start: number; length: number }>>;
}

/**
 * Compiles every fixture with solc-js standard JSON, optimizer on: the `.sol` files as Solidity, the `.yul`
 * objects in Yul mode. `appendCBOR: false` drops the metadata trailer from the Solidity builds (Yul builds never
 * have one); `viaIR` compiles the Solidity builds through the IR pipeline.
 */
export function compileFixtures(options: { appendCBOR: boolean; viaIR?: boolean }): Record<string, CompiledFixture> {
  const files = readdirSync(contractsDir).sort();
  const read = (name: string) => ({ content: readFileSync(contractsDir + name, 'utf8') });
  const selection = { '*': { '*': ['evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] } };
  const solidity = {
    language: 'Solidity',
    sources: Object.fromEntries(files.filter((f) => f.endsWith('.sol')).map((f) => [f, read(f)])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      metadata: options.appendCBOR ? { appendCBOR: true, bytecodeHash: 'ipfs' } : { appendCBOR: false },
      ...(options.viaIR ? { viaIR: true } : {}),
      outputSelection: selection,
    },
  };
  const yul = {
    language: 'Yul',
    sources: Object.fromEntries(files.filter((f) => f.endsWith('.yul')).map((f) => [f, read(f)])),
    settings: { optimizer: { enabled: true }, evmVersion: 'cancun', outputSelection: selection },
  };
  const fixtures: Record<string, CompiledFixture> = {};
  for (const input of [solidity, yul]) {
    const output = JSON.parse(solc.compile(JSON.stringify(input)));
    const errors = (output.errors ?? []).filter((e: any) => e.severity === 'error');
    if (errors.length > 0) throw new Error(errors.map((e: any) => e.formattedMessage).join('\n'));
    for (const contracts of Object.values<any>(output.contracts)) {
      for (const [name, contract] of Object.entries<any>(contracts)) {
        fixtures[name] = {
          runtime: `0x${contract.evm.deployedBytecode.object}`,
          immutableReferences: contract.evm.deployedBytecode.immutableReferences ?? {},
        };
      }
    }
  }
  return fixtures;
}

/** The runtime code as deployed: every immutable filled with the given address, left-padded to 32 bytes. */
export function fillImmutables(fixture: CompiledFixture, address: string): string {
  const code = Buffer.from(fixture.runtime.slice(2), 'hex');
  const word = Buffer.from(address.slice(2).padStart(64, '0'), 'hex');
  for (const references of Object.values(fixture.immutableReferences)) {
    for (const { start, length } of references) word.copy(code, start, 32 - length);
  }
  return `0x${code.toString('hex')}`;
}
