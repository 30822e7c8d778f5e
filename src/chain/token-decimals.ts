import type { Address, PublicClient } from 'viem';

/** The selector of ERC-20 `decimals()`. */
const decimalsSelector = '0x313ce567';

/**
 * A token's `decimals()` as the developer API's registry records it (spec/schemas/developer-launches.v2.schema.json
 * token.decimals): one eth_call at the latest block; a revert, a failed call, an answer that is not exactly one
 * 32-byte word, or a value above 255 is null (the token is then left out of the token list). Never throws.
 */
export async function readTokenDecimals(client: PublicClient, token: Address): Promise<number | null> {
  try {
    const { data } = await client.call({ to: token, data: decimalsSelector });
    if (data?.length !== 66) return null;
    const value = BigInt(data);
    return value <= 255n ? Number(value) : null;
  } catch {
    return null;
  }
}
