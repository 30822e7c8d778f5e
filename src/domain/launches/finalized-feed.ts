import type {
  CustomLaunchFinalizedListV4,
  MultiRoleCustomLaunchFinalizedListV2,
} from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

/** The stored feed tables; each has `seq` and `item_json`, and all but the base-layer one a `chain_id`. */
type FeedTable = 'finalized_feed' | 'multi_role_finalized_feed' | 'v3_finalized_feed';
/** The imported V2/V1 history: `seq`, `record_json`, and the `lane` and `launch_wallet` a page is filtered by. */
type HistoryTable = 'history_launches';

/**
 * One page of a stored feed (or of the imported history), newest first: at most `limit` rows before the cursor's
 * position that match `chainId` and `where`, and the cursor of the next page (bound to `listName`, so one list's
 * cursor is refused by another). A row's JSON column is returned as `item_json`.
 */
export function newestFirstPage(
  db: Db,
  feed: { table: FeedTable | HistoryTable; listName: string; chainId?: string; where?: Record<string, string> },
  limit: number,
  cursor: string | undefined,
): { rows: Array<{ seq: number; item_json: string }>; nextCursor: string | null } {
  const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(feed.listName, cursor);
  const filters = Object.entries({ ...(feed.chainId === undefined ? {} : { chain_id: feed.chainId }), ...feed.where });
  const byFilters = filters.map(([column]) => `${column} = ? AND `).join('');
  const json = feed.table === 'history_launches' ? 'record_json' : 'item_json';
  const rows = db
    .prepare(`SELECT seq, ${json} AS item_json FROM ${feed.table} WHERE ${byFilters}seq < ? ORDER BY seq DESC LIMIT ?`)
    .all(...filters.map(([, value]) => value), before, limit + 1) as Array<{
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
