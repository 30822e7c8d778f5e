import type {
  CustomLaunchFinalizedListV4,
  MultiRoleCustomLaunchFinalizedListV2,
} from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

/** The stored feed tables; each has `seq` and `item_json`, and all but the base-layer one a `chain_id`. */
type FeedTable = 'finalized_feed' | 'multi_role_finalized_feed' | 'v3_finalized_feed';

/**
 * One page of a stored feed, newest first: at most `limit` rows before the cursor's position, and the cursor of
 * the next page (bound to `listName`, so one feed's cursor is refused by another).
 */
export function newestFirstPage(
  db: Db,
  feed: { table: FeedTable; listName: string; chainId?: string },
  limit: number,
  cursor: string | undefined,
): { rows: Array<{ seq: number; item_json: string }>; nextCursor: string | null } {
  const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(feed.listName, cursor);
  const byChain = feed.chainId === undefined ? '' : 'chain_id = ? AND ';
  const rows = db
    .prepare(`SELECT seq, item_json FROM ${feed.table} WHERE ${byChain}seq < ? ORDER BY seq DESC LIMIT ?`)
    .all(...(feed.chainId === undefined ? [] : [feed.chainId]), before, limit + 1) as Array<{
    seq: number;
    item_json: string;
  }>;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? encodeCursor(feed.listName, last.seq) : null };
}

/**
 * listFinalizedCustomLaunchesV4: public evidence of finalized router-backed launches, newest first (rows are written
 * in finalization order), paged by an opaque cursor. Rows are written only by the finality tracker; the feed serves
 * them as stored. Spec: spec/openapi/paths/v4-finalized-custom-launches.yaml,
 * spec/schemas/custom-launch-finalized-list.v4.schema.json.
 */
export function listFinalized(
  db: Db,
  chainId: string,
  limit: number,
  cursor: string | undefined,
): CustomLaunchFinalizedListV4 {
  const { rows, nextCursor } = newestFirstPage(
    db,
    { table: 'finalized_feed', listName: `v4-finalized:${chainId}`, chainId },
    limit,
    cursor,
  );
  return { launches: rows.map((r) => JSON.parse(r.item_json)), nextCursor } as CustomLaunchFinalizedListV4;
}

/**
 * listMultiRoleFinalizedCustomLaunches: the shared token-and-hook lane's finalized feed, from its own table and
 * with its own cursors, so it never mixes with the V4 feed (spec/openapi/paths/multi-role-finalized.yaml). Newest
 * first. Rows are written only by the shared lane's finality tracking.
 */
export function listMultiRoleFinalized(
  db: Db,
  chainId: string,
  limit: number,
  cursor: string | undefined,
): MultiRoleCustomLaunchFinalizedListV2 {
  const { rows, nextCursor } = newestFirstPage(
    db,
    { table: 'multi_role_finalized_feed', listName: `multi-role-finalized:${chainId}`, chainId },
    limit,
    cursor,
  );
  return { launches: rows.map((r) => JSON.parse(r.item_json)), nextCursor } as MultiRoleCustomLaunchFinalizedListV2;
}
