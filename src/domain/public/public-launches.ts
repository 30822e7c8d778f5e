import { getAddress } from 'viem';
import type { Db } from '../../store/db.ts';

/** A lane of the public launch registry (spec/schemas/developer-launches.v2.schema.json). */
export type PublicLaunchLane = 'v4' | 'multi-role' | 'v3' | 'v2' | 'v1';

/**
 * One finalized launch and its token, as the developer API publishes it (listDeveloperLaunches and
 * getDeveloperTokenList, spec/openapi/developer-api.openapi.yaml). tokenDecimals is null when the token did not
 * answer decimals(); such a token is listed among the launches and left out of the token list.
 */
export interface PublicLaunchEntry {
  lane: PublicLaunchLane;
  launchId: string;
  chainId: '4663' | '1';
  /** EIP-55 checksummed. */
  tokenAddress: string;
  tokenName: string;
  tokenSymbol: string;
  tokenDecimals: number | null;
  transactionHash: string;
  blockNumber: string;
  finalizedAt: string;
  /** When the registry gained the row (the finalization commit, or the history import). */
  listedAt: string;
}

/**
 * Adds a finalized launch to the public registry the developer API reads. Call it inside the transaction that writes
 * the lane's finalized-feed row (or imports the history row), so the registry never lags the feeds. A launch already
 * listed is left unchanged: rows are never updated, so the token list only grows.
 */
export function recordPublicLaunch(db: Db, entry: PublicLaunchEntry): void {
  db.prepare(
    `INSERT INTO public_launches (lane, launch_id, chain_id, token_address, token_name, token_symbol, token_decimals,
       transaction_hash, block_number, finalized_at, listed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (launch_id) DO NOTHING`,
  ).run(
    entry.lane,
    entry.launchId,
    entry.chainId,
    entry.tokenAddress,
    entry.tokenName,
    entry.tokenSymbol,
    entry.tokenDecimals,
    entry.transactionHash,
    entry.blockNumber,
    entry.finalizedAt,
    entry.listedAt,
  );
}

/**
 * The registry entry of a launch finalized now by a lane's tracker: the token's address EIP-55 checksummed, its name
 * and symbol from the stored request's projectMetadata, the decimals() read before the finalizing commit, and
 * listedAt equal to finalizedAt (the row is written in the transaction that finalizes the launch).
 */
export function finalizedPublicLaunch(input: {
  lane: PublicLaunchLane;
  launchId: string;
  chainId: '4663' | '1';
  tokenAddress: string;
  projectMetadata: { name: string; symbol: string };
  decimals: number | null;
  evidence: { transactionHash: string; blockNumber: string };
  finalizedAt: string;
}): PublicLaunchEntry {
  return {
    lane: input.lane,
    launchId: input.launchId,
    chainId: input.chainId,
    tokenAddress: getAddress(input.tokenAddress),
    tokenName: input.projectMetadata.name,
    tokenSymbol: input.projectMetadata.symbol,
    tokenDecimals: input.decimals,
    transactionHash: input.evidence.transactionHash,
    blockNumber: input.evidence.blockNumber,
    finalizedAt: input.finalizedAt,
    listedAt: input.finalizedAt,
  };
}
