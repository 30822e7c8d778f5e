import { readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import type { Config } from '../config.ts';
import { schemaProblems } from '../spec/schema-registry.ts';
import { loadSourceVerificationRegistry } from './external-references.ts';
import type { LaunchChainConfig } from './launch-chain.ts';

/** What the chain gates run with: where the launch chain reads, and the permit attester's key. */
export interface ChainGatesConfig extends LaunchChainConfig {
  /** The permit attester's key: it signs EIP-712 permits (attestations), never a transaction. */
  permitAttesterKey: Hex;
}

/**
 * The chain gates of a configuration, or null when it configures none. They need two provider URLs, the
 * chain-deployment document (checked against its schema and against CANONICAL_POOL_MANAGER) and the permit attester
 * key. A half-configured chain is an error, except the permit attester key alone on a server bound to a base-layer
 * deployment (BASE_DEPLOYMENT_PATH): there it signs the base layer's permits only.
 */
export function chainGatesConfigFrom(config: Config): ChainGatesConfig | null {
  const wanted = [config.chainDeploymentPath, config.permitAttesterKey];
  if (wanted.every((v) => v === null)) return null;
  const baseLayerOnly =
    config.chainDeploymentPath === null && config.chain4663RpcUrls.length === 0 && config.baseDeploymentPath !== null;
  if (baseLayerOnly) return null;
  if (wanted.some((v) => v === null) || config.chain4663RpcUrls.length !== 2) {
    throw new Error(
      'chain gates need CHAIN_DEPLOYMENT_PATH, PERMIT_ATTESTER_KEY and two CHAIN_4663_RPC_URLS (comma-separated)',
    );
  }
  const chainDeployment = JSON.parse(readFileSync(config.chainDeploymentPath as string, 'utf8')) as ChainDeploymentV1;
  const problems = schemaProblems('chain-deployment.v1.schema.json', chainDeployment);
  if (problems.length > 0) {
    throw new Error(`${config.chainDeploymentPath} is not a chain-deployment.v1 document: ${problems.join('; ')}`);
  }
  if (
    chainDeployment.contracts.canonicalPoolManager.address.toLowerCase() !== config.canonicalPoolManager.toLowerCase()
  ) {
    throw new Error('the chain deployment binds another canonical pool manager than CANONICAL_POOL_MANAGER');
  }
  return {
    rpcUrls: config.chain4663RpcUrls as unknown as readonly [string, string],
    chainDeployment,
    permitAttesterKey: config.permitAttesterKey as Hex,
    sourceVerificationRegistry: loadSourceVerificationRegistry(config.sourceVerificationRegistryPath),
    rpcTimeoutMs: config.chainRpcTimeoutMs,
  };
}
