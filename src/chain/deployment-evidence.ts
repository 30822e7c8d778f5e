import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Address, createPublicClient, type Hex, http, keccak256, toBytes } from 'viem';
import type { components } from '../../generated/types/service.ts';
import { digestOf } from '../core/request-hashes.ts';
import { artifact, artifacts } from '../solidity/artifacts.ts';

export type ChainDeployment = components['schemas']['ChainDeploymentV1'];
type RootName = 'permitAuthority' | 'graphFactory' | 'platformLaunchStampRouter';
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One of the two fixed provider positions: its identity and its JSON-RPC URL. */
export interface ProviderPosition {
  providerId: string;
  trustDomain: string;
  url: string;
}

/** The platform's finality policy for chain 4663 (its digest binds chainDeployment.finality). */
export const finalityPolicy = {
  policyId: 'l2.finalized-on-ethereum',
  policyRevision: 1,
  rule: 'l2-block <= finalized',
} as const;
const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** Resulting contracts in the order the reference fixes. */
const rootOrder: RootName[] = ['permitAuthority', 'graphFactory', 'platformLaunchStampRouter'];

function withDigest<T extends Record<string, unknown>>(value: T): T & { evidenceDigest: string } {
  return { ...value, evidenceDigest: digestOf(value) };
}

/** The git object id (SHA-1 blob id) of a file: what `git hash-object` prints for it. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * Reads a root deployment back from the chain through both provider positions and returns the chain-deployment
 * document (chain-deployment.v1 with deployment-evidence.v1). Both providers must return identical transactions,
 * receipts and code; any disagreement throws. On the devnet there is no base layer: the finality evidence records the
 * devnet's own `safe` and `finalized` blocks standing in for the batch posting and base-layer finality
 * (CHAIN-NOTES.md "On anvil"), with batch number 0.
 */
export async function readChainDeploymentEvidence(input: {
  providers: readonly ProviderPosition[];
  rootTransactionHash: Hex;
  poolManagerTransactionHash: Hex;
}): Promise<ChainDeployment> {
  const clients = input.providers.map((p) => createPublicClient({ transport: http(p.url) }));
  const [first] = clients;
  if (!first || clients.length !== 2) throw new Error('two provider positions are required');
  // Raw JSON-RPC answers, so the digests cover exactly what each provider returned.
  const raw = (i: number, method: string, params: unknown[]) =>
    (clients[i] as typeof first).request({ method, params } as never) as Promise<Json>;
  const agreed = async (method: string, params: unknown[]) => {
    const answers = await Promise.all([raw(0, method, params), raw(1, method, params)]);
    if (JSON.stringify(answers[0]) !== JSON.stringify(answers[1])) throw new Error(`providers disagree on ${method}`);
    return answers;
  };

  const [txs, receipts] = await Promise.all([
    agreed('eth_getTransactionByHash', [input.rootTransactionHash]),
    agreed('eth_getTransactionReceipt', [input.rootTransactionHash]),
  ]);
  const tx = txs[0] as { [key: string]: string };
  const receipt = receipts[0] as { [key: string]: Json };
  if (receipt.status !== '0x1') throw new Error('the root deployment transaction reverted');
  const blockNumber = BigInt(receipt.blockNumber as string);
  const blockHash = receipt.blockHash as Hex;
  const before = await first.getBlock({ blockNumber: blockNumber - 1n });

  const logs = (receipt.logs as Array<{ [key: string]: Json }>).map((log) => ({
    address: (log.address as string).toLowerCase(),
    topics: log.topics as string[],
    data: log.data as string,
    logIndex: BigInt(log.logIndex as string).toString(),
  }));
  // RootDeployed(address indexed root, bytes32 runtimeCodeHash), one per root in deployment order.
  const roots = logs.map((log) => `0x${(log.topics[1] as string).slice(26)}` as Address);
  if (roots.length !== 3) throw new Error(`the root deployment emitted ${roots.length} RootDeployed logs, not 3`);
  const codeHashAt = async (client: typeof first, address: Address, at: bigint) =>
    keccak256((await client.getCode({ address, blockNumber: at })) ?? '0x');

  const resultingContracts = await Promise.all(
    rootOrder.map(async (contract, i) => {
      const address = roots[i] as Address;
      const providerReadbacks = await Promise.all(
        input.providers.map(async (provider, p) => {
          const client = clients[p] as typeof first;
          return withDigest({
            schemaVersion: 'platform.l2-atomic-root-runtime-transition-provider-readback.v1' as const,
            providerId: provider.providerId,
            trustDomain: provider.trustDomain,
            contract,
            address,
            preDeploymentBlockNumber: (blockNumber - 1n).toString(),
            preDeploymentBlockHash: before.hash as Hex,
            preDeploymentRuntimeCodeHash: await codeHashAt(client, address, blockNumber - 1n),
            deploymentBlockNumber: blockNumber.toString(),
            deploymentBlockHash: blockHash,
            deploymentRuntimeCodeHash: await codeHashAt(client, address, blockNumber),
          });
        }),
      );
      const [a, b] = providerReadbacks;
      if (!a || !b || a.deploymentRuntimeCodeHash !== b.deploymentRuntimeCodeHash) {
        throw new Error(`providers disagree on the code of ${contract}`);
      }
      return {
        contract,
        address,
        runtimeCodeHash: a.deploymentRuntimeCodeHash,
        previousBlockRuntimeCodeHash: a.preDeploymentRuntimeCodeHash,
        providerReadbacks: [a, b] as [typeof a, typeof b],
        stateEvidenceDigest: digestOf({ contract, providerReadbacks }),
      };
    }),
  );
  const byName = Object.fromEntries(resultingContracts.map((c) => [c.contract, c])) as Record<
    RootName,
    (typeof resultingContracts)[number]
  >;

  const transactionReadbacks = input.providers.map((provider, p) =>
    withDigest({
      providerId: provider.providerId,
      trustDomain: provider.trustDomain,
      transactionHash: input.rootTransactionHash,
      transactionResponseDigest: digestOf(txs[p] as Json),
      transactionReceiptDigest: digestOf(receipts[p] as Json),
    }),
  );

  const safe = await first.getBlock({ blockTag: 'safe' });
  const finalized = await first.getBlock({ blockTag: 'finalized' });
  if (finalized.number < blockNumber) throw new Error('the root deployment is not final yet');
  const policyDigest = digestOf(finalityPolicy);
  const postedAt = await first.getBlock({
    blockNumber: blockNumber + 32n <= safe.number ? blockNumber + 32n : safe.number,
  });

  const deploymentEvidence = withDigest({
    schemaVersion: 'platform.l2-atomic-root-deployment-evidence.v1' as const,
    deploymentId: 'l2-mainnet-custom-launch-v1' as const,
    chainId: '4663' as const,
    coveredContracts: ['platformLaunchStampRouter', 'graphFactory', 'permitAuthority'] as [
      'platformLaunchStampRouter',
      'graphFactory',
      'permitAuthority',
    ],
    transactionHash: input.rootTransactionHash,
    from: (tx.from as string).toLowerCase(),
    to: (tx.to as string).toLowerCase(),
    valueWei: '0' as const,
    selector: (tx.input as string).slice(0, 10),
    calldataHash: keccak256(tx.input as Hex),
    calldataBytes: ((tx.input as string).length - 2) / 2,
    nonce: BigInt(tx.nonce as string).toString(),
    transactionIndex: BigInt(receipt.transactionIndex as string).toString(),
    receiptStatus: '1' as const,
    blockNumber: blockNumber.toString(),
    blockHash,
    receiptLogs: logs,
    receiptLogsDigest: digestOf(logs),
    providerReadbacks: transactionReadbacks as [
      (typeof transactionReadbacks)[number],
      (typeof transactionReadbacks)[number],
    ],
    resultingContracts: rootOrder.map((name) => byName[name]),
    ethereumFinalityEvidence: withDigest({
      schemaVersion: 'platform.l2-ethereum-finality-evidence.v1' as const,
      policyDigest,
      l2BlockNumber: blockNumber.toString(),
      l2BlockHash: blockHash,
      parentChainId: '1' as const,
      batchSequenceNumber: '0',
      parentChainBlockNumber: (postedAt.number as bigint).toString(),
      parentChainBlockHash: postedAt.hash as Hex,
      parentChainFinalizedBlockNumber: (finalized.number as bigint).toString(),
    }),
    sourceVerification: {
      status: 'exact_match' as const,
      observationProvider: 'local-solc-build',
      releaseAuthority: false as const,
      protectedBuildDigest: artifacts().compilerInputDigest,
      finalizedBytecodeBindingDigest: digestOf({
        finalizedBlockNumber: blockNumber.toString(),
        runtimeCodeHashes: rootOrder.map((name) => byName[name].runtimeCodeHash),
      }),
    },
  });

  const genesis = await first.getBlock({ blockNumber: 0n });
  const poolManagerReceipt = await first.getTransactionReceipt({ hash: input.poolManagerTransactionHash });
  const poolManagerAddress = poolManagerReceipt.contractAddress as Address;
  const poolManagerCodeHash = await codeHashAt(first, poolManagerAddress, blockNumber);
  const permitAuthoritySource = readFileSync(
    new URL(`../../${artifact('PermitAuthority').sourcePath}`, import.meta.url),
  );

  const chainDeployment = {
    schemaVersion: 'platform.custom-launch-chain-deployment.v1' as const,
    chainDeploymentId: 'l2-mainnet-custom-launch-v1' as const,
    chainId: '4663' as const,
    caip2: 'eip155:4663' as const,
    finality: {
      schemaVersion: 'platform.custom-launch-finality-policy-ref.v1' as const,
      policyId: finalityPolicy.policyId,
      policyRevision: finalityPolicy.policyRevision,
      policyDigest,
    },
    foundationSourceCommitment: keccak256(toBytes(artifacts().compilerInputDigest)),
    deploymentEvidence,
    permit2GenesisProvenance: withDigest({
      schemaVersion: 'platform.l2-permit2-genesis-provenance.v1' as const,
      genesisBlockHash: genesis.hash as Hex,
      address: permit2Address,
      runtimeCodeHash: await codeHashAt(first, permit2Address, 0n),
    }),
    permitAuthoritySourceProvenance: withDigest({
      schemaVersion: 'platform.l2-permit-authority-source-provenance.v1' as const,
      sourceCommit: gitBlobId(permitAuthoritySource),
      sourceBundleDigest: `sha256:${createHash('sha256').update(permitAuthoritySource).digest('hex')}`,
      compilerVersion: artifacts().compilerVersion,
      runtimeCodeHash: byName.permitAuthority.runtimeCodeHash,
    }),
    externalRootDeploymentEvidence: withDigest({
      schemaVersion: 'platform.l2-external-root-deployment-evidence.v1' as const,
      canonicalPoolManager: {
        address: poolManagerAddress.toLowerCase(),
        runtimeCodeHash: poolManagerCodeHash,
        deploymentTransactionHash: input.poolManagerTransactionHash,
        deploymentBlockNumber: poolManagerReceipt.blockNumber.toString(),
        deploymentBlockHash: poolManagerReceipt.blockHash,
      },
    }),
    contracts: {
      platformLaunchStampRouter: {
        address: byName.platformLaunchStampRouter.address.toLowerCase(),
        runtimeCodeHash: byName.platformLaunchStampRouter.runtimeCodeHash,
      },
      graphFactory: {
        address: byName.graphFactory.address.toLowerCase(),
        runtimeCodeHash: byName.graphFactory.runtimeCodeHash,
      },
      permitAuthority: {
        address: byName.permitAuthority.address.toLowerCase(),
        runtimeCodeHash: byName.permitAuthority.runtimeCodeHash,
      },
      canonicalPoolManager: { address: poolManagerAddress.toLowerCase(), runtimeCodeHash: poolManagerCodeHash },
    },
  };
  return chainDeployment as ChainDeployment;
}
