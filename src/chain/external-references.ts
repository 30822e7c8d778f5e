import { readFileSync } from 'node:fs';
import { type Address, BlockNotFoundError, type Hex, type PublicClient } from 'viem';
import type { ExternalContractReference } from '../../generated/types/service.ts';
import { keccak256Hex } from '../core/keccak.ts';

/**
 * One source-verification record the operator has checked. Public verification services (Sourcify, explorers) lie
 * outside this machine, so the server never fetches them: it trusts only evidence recorded in its registry file
 * (SOURCE_VERIFICATION_REGISTRY_PATH), which the operator fills from those services. The devnet writes one for its own
 * contracts from the local solc build.
 */
export interface SourceVerificationRecord {
  chainId: '4663';
  address: string;
  runtimeCodeHash: string;
  provider: string;
  evidenceUri: string;
  evidenceDigest: string;
}

/** The registry file's records (none without a path); throws when a record is malformed (checkRegistryRecords). */
export function loadSourceVerificationRegistry(path: string | null): SourceVerificationRecord[] {
  if (!path) return [];
  return checkRegistryRecords(JSON.parse(readFileSync(path, 'utf8')), path);
}

/**
 * Checks a registry's content: a JSON array of records for chain 4663, each with a 0x address, a lowercase runtime
 * code hash and a lowercase provider id. `where` names the source in the message.
 */
export function checkRegistryRecords(records: unknown, where: string): SourceVerificationRecord[] {
  if (!Array.isArray(records)) throw new Error(`${where}: a source-verification registry is a JSON array`);
  for (const r of records as SourceVerificationRecord[]) {
    if (
      r.chainId !== '4663' ||
      !/^0x[0-9a-fA-F]{40}$/.test(r.address) ||
      !/^0x[0-9a-f]{64}$/.test(r.runtimeCodeHash) ||
      !/^[a-z][a-z0-9._:-]{0,63}$/.test(r.provider)
    ) {
      throw new Error(
        `${where}: bad record ${JSON.stringify(r).slice(0, 200)} (chainId 4663, a 0x address, a lowercase runtime code hash, a provider id [a-z][a-z0-9._:-]{0,63})`,
      );
    }
  }
  return records as SourceVerificationRecord[];
}

/** The registry's records for one address and runtime code hash. */
export function registryRecordsFor(
  registry: readonly SourceVerificationRecord[],
  address: string,
  runtimeCodeHash: string,
): SourceVerificationRecord[] {
  return registry.filter(
    (r) => r.address.toLowerCase() === address.toLowerCase() && r.runtimeCodeHash === runtimeCodeHash.toLowerCase(),
  );
}

/**
 * Binds one external contract reference (spec/schemas/custom-launch-create-request.v4.schema.json externalContracts):
 * trusted only when the exact chain address holds code whose hash is the declared runtime hash, now and at the
 * checkpoint, on both providers; the checkpoint block is final and its hash matches; the declared role is auxiliary and
 * the address is none of the launch's own contracts; and the source-verification evidence is a record of the registry
 * for that address and code. Returns the reasons it does not bind (empty when it binds).
 */
export async function bindExternalReference(
  clients: readonly [PublicClient, PublicClient],
  ref: ExternalContractReference,
  context: {
    finalizedBlockNumber: bigint;
    reservedAddresses: readonly string[];
    registry: readonly SourceVerificationRecord[];
  },
): Promise<string[]> {
  const reasons: string[] = [];
  const address = ref.address as Address;
  const checkpointNumber = BigInt(ref.checkpoint.blockNumber);
  if (ref.graphRole !== 'auxiliary') reasons.push(`declared role ${ref.graphRole} is not auxiliary`);
  if (context.reservedAddresses.includes(address.toLowerCase())) {
    reasons.push('the address is one of the launch graph or platform contracts');
  }
  if (checkpointNumber > context.finalizedBlockNumber) {
    reasons.push(`checkpoint ${checkpointNumber} is not final (finalized block ${context.finalizedBlockNumber})`);
  } else {
    for (const [i, client] of clients.entries()) {
      const block = await client.getBlock({ blockNumber: checkpointNumber }).catch((err: unknown) => {
        // No such block is a verdict; a provider that did not answer is not (the step is retried).
        if (err instanceof BlockNotFoundError) return null;
        throw err;
      });
      if (!block || block.hash?.toLowerCase() !== ref.checkpoint.blockHash.toLowerCase()) {
        reasons.push(`provider ${i + 1}: the checkpoint block hash differs`);
        continue;
      }
      const atCheckpoint = keccak256Hex((await client.getCode({ address, blockNumber: checkpointNumber })) ?? '0x');
      if (atCheckpoint !== ref.runtimeCodeHash.toLowerCase()) {
        reasons.push(`provider ${i + 1}: the runtime code hash at the checkpoint differs`);
      }
    }
  }
  for (const [i, client] of clients.entries()) {
    const live = keccak256Hex(((await client.getCode({ address })) ?? '0x') as Hex);
    if (live !== ref.runtimeCodeHash.toLowerCase())
      reasons.push(`provider ${i + 1}: the live runtime code hash differs`);
  }
  const evidence = registryRecordsFor(context.registry, address, ref.runtimeCodeHash).find(
    (r) =>
      r.provider === ref.sourceVerification.provider &&
      r.evidenceUri === ref.sourceVerification.evidenceUri &&
      r.evidenceDigest === ref.sourceVerification.evidenceDigest,
  );
  if (!evidence) reasons.push('the source-verification evidence is not a record the server has verified');
  return reasons;
}
