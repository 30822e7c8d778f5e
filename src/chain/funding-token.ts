import { type Address, createPublicClient, type Hex, type PublicClient } from 'viem';
import { devnetUsdAbi } from '../../generated/contracts/abis.ts';
import { providerTransport } from './provider-transport.ts';

/**
 * What the base layer's EIP-3009 funding token reports on chain 1 (latest state): whether an authorization nonce of
 * `authorizer` is used or cancelled, and an owner's balance. Facts only; deciding on them is the caller's.
 */
export interface FundingTokenReader {
  authorizationState(token: Address, authorizer: Address, nonce: Hex): Promise<boolean>;
  balanceOf(token: Address, owner: Address): Promise<bigint>;
}

/** An EIP-712 domain as a token states it (name, version, chain id, verifying contract). */
export interface TokenEip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/** The funding-token reads over viem: the two facts of FundingTokenReader and the token's EIP-712 domain. */
export interface ViemFundingToken extends FundingTokenReader {
  /**
   * The EIP-712 domain `token` signs under, read from chain 1: its ERC-5267 `eip712Domain()`, or `name()` and
   * `version()` with the node's chain id and the token's address when it has none (the domain of
   * spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData).
   */
  readEip712Domain(token: Address): Promise<TokenEip712Domain>;
}

/**
 * The funding-token reads of the base layer over viem at `rpcUrl` (the EIP-3009 `authorizationState`, ERC-20
 * `balanceOf` and ERC-5267 `eip712Domain` of contracts/base/DevnetUsd.sol). Used by submitFundingAuthorizationV3
 * (spec/openapi/paths/v3-custom-launch-funding-authorization.yaml) and the lifecycle's typed data.
 */
export function fundingTokenReader(rpcUrl: string): ViemFundingToken {
  // The first base-layer provider position (CHAIN_1_RPC_URLS[0], or the base deployment's own URL).
  const c = createPublicClient({
    transport: providerTransport(rpcUrl, { chain: '1', position: 0 }, { timeout: 10_000, retryCount: 0 }),
  });
  return {
    authorizationState: (token, authorizer, nonce) =>
      c.readContract({
        address: token,
        abi: devnetUsdAbi,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
      }),
    balanceOf: (token, owner) =>
      c.readContract({ address: token, abi: devnetUsdAbi, functionName: 'balanceOf', args: [owner] }),
    readEip712Domain: (token) => eip712DomainOf(c, token),
  };
}

async function eip712DomainOf(c: PublicClient, token: Address): Promise<TokenEip712Domain> {
  try {
    const [, name, version, chainId, verifyingContract] = await c.readContract({
      address: token,
      abi: devnetUsdAbi,
      functionName: 'eip712Domain',
    });
    return { name, version, chainId: Number(chainId), verifyingContract };
  } catch {
    // A token without ERC-5267 still names its domain through name() and version().
    const [name, version, chainId] = await Promise.all([
      c.readContract({ address: token, abi: devnetUsdAbi, functionName: 'name' }),
      c.readContract({ address: token, abi: devnetUsdAbi, functionName: 'version' }),
      c.getChainId(),
    ]);
    return { name, version, chainId, verifyingContract: token };
  }
}
