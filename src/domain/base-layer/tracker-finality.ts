import type { BaseLaunchRow } from './launch-store.ts';
import { type BaseFinalizedItem, type BaseTrackerContext, commitTracked, evidenceOf } from './tracker-commit.ts';

/**
 * submitted: re-reads the block hash at the transaction's height on both providers (a mismatch is a reorg: back to
 * `authorized` with CHAIN_REORG_DETECTED among the finding codes, the evidence cleared and the search resumed below
 * that block); once the block is at or below both providers' `finalized` tag, `finalized` with the evidence and the
 * v3_finalized_feed row (FinalizedLaunch of spec/schemas/custom-launch-finalized-list.v3.schema.json).
 */
export async function followSubmitted(ctx: BaseTrackerContext, row: BaseLaunchRow): Promise<void> {
  const evidence = evidenceOf(row);
  if (!evidence?.blockNumber || !evidence.blockHash)
    throw new Error(`launch ${row.launch_id}: submitted without evidence`);
  const height = BigInt(evidence.blockNumber);
  const hash = await ctx.chain.agreedBlockHash(height);
  if (hash?.toLowerCase() !== evidence.blockHash.toLowerCase()) {
    const codes = JSON.parse(row.finding_codes_json) as string[];
    commitTracked(ctx, row, 'authorized', {
      chain_evidence_json: null,
      public_output_json: null,
      tracked_to_block: Number(height - 1n),
      finding_codes_json: JSON.stringify([...new Set([...codes, 'CHAIN_REORG_DETECTED'])].slice(-64)),
    });
    return;
  }
  if ((await ctx.chain.finalizedHeight()) < height) return;
  const output = JSON.parse(row.public_output_json ?? 'null') as { tokenAddress: string; hookAddress: string } | null;
  if (!output) throw new Error(`launch ${row.launch_id}: submitted without public output`);
  const finalizedAt = new Date(ctx.now()).toISOString();
  const item: BaseFinalizedItem = {
    launchId: row.launch_id,
    launchProfileVersion: row.profile_version,
    chainId: '1',
    tokenAddress: output.tokenAddress,
    hookAddress: output.hookAddress,
    transactionHash: evidence.transactionHash,
    blockNumber: evidence.blockNumber,
    finalizedAt,
  };
  commitTracked(ctx, row, 'finalized', {}, item);
}
