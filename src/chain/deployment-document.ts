import { readFileSync } from 'node:fs';
import type { Address, Hex } from 'viem';

/** A deployed lane contract: its address and the keccak-256 of its runtime code. */
export interface ContractBinding {
  address: Address;
  runtimeCodeHash: Hex;
}

/**
 * The field readers of a lane's deployment document (src/chain/base-deployment.ts, src/chain/multi-role-deployment.ts):
 * each checks one field and throws a message naming the document kind, the file and the field that is wrong.
 */
export function deploymentFieldReaders(kind: string, path: string) {
  const fail = (what: string): never => {
    throw new Error(`${kind} ${path}: ${what}`);
  };
  const record = (value: unknown, where: string): Record<string, unknown> => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`${where} must be an object`);
    return value as Record<string, unknown>;
  };
  const hexOf = (value: unknown, bytes: number, where: string): Hex => {
    if (typeof value !== 'string' || !new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`).test(value)) {
      fail(`${where} must be 0x and ${bytes * 2} hex digits`);
    }
    return value as Hex;
  };
  const stringOf = (value: unknown, where: string): string => {
    if (typeof value !== 'string' || value === '') fail(`${where} must be a non-empty string`);
    return value as string;
  };
  const bindingOf = (value: unknown, where: string): ContractBinding => {
    const b = record(value, where);
    return {
      address: hexOf(b.address, 20, `${where}.address`) as Address,
      runtimeCodeHash: hexOf(b.runtimeCodeHash, 32, `${where}.runtimeCodeHash`),
    };
  };
  /** The document's top-level object, its chainId checked, with its rpcUrl, permitAttester and contracts object. */
  const header = (chainId: number) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      fail(`cannot be read as JSON (${(err as Error).message})`);
    }
    const doc = record(parsed, 'the document');
    if (doc.chainId !== chainId) fail(`chainId must be ${chainId}`);
    return {
      rpcUrl: stringOf(doc.rpcUrl, 'rpcUrl'),
      permitAttester: hexOf(doc.permitAttester, 20, 'permitAttester') as Address,
      contracts: record(doc.contracts, 'contracts'),
    };
  };
  /** Each named contract's binding under `contracts`. */
  const bindingsOf = <K extends string>(contracts: Record<string, unknown>, keys: readonly K[]) =>
    Object.fromEntries(keys.map((key) => [key, bindingOf(contracts[key], `contracts.${key}`)])) as Record<
      K,
      ContractBinding
    >;
  return { fail, record, hexOf, stringOf, bindingOf, header, bindingsOf };
}
