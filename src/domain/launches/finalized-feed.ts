import type { components } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

/** The public V4 finalized feed, generated from spec/schemas/custom-launch-finalized-list.v4.schema.json. */
export type CustomLaunchFinalizedListV4 = components['schemas']['CustomLaunchFinalizedListV4'];

/**
 * listFinalizedCustomLaunchesV4: public evidence of finalized router-backed launches, newest first (rows are written
 * in finalization order), paged by an opaque cursor. Rows are written only by the finality tracker; the feed serves them as stored.
 * Spec: launch-transport.md Response resources (Finalized list).
 */
export function listFinalized(
  db: Db,
  chainId: string,
  limit: number,
  cursor: string | undefined,
): CustomLaunchFinalizedListV4 {
  const listName = `v4-finalized:${chainId}`;
  const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(listName, cursor);
  const rows = db
    .prepare('SELECT seq, item_json FROM finalized_feed WHERE chain_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
    .all(chainId, before, limit + 1) as Array<{ seq: number; item_json: string }>;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    launches: page.map((r) => JSON.parse(r.item_json)),
    nextCursor: rows.length > limit && last ? encodeCursor(listName, last.seq) : null,
  } as CustomLaunchFinalizedListV4;
}

/** The shared lane's finalized feed, generated from spec/schemas/multi-role-finalized-list.v2.schema.json. */
export type MultiRoleFinalizedListV2 = components['schemas']['MultiRoleCustomLaunchFinalizedListV2'];

/**
 * listMultiRoleFinalizedCustomLaunches: the shared token-and-hook lane's finalized feed, from its own table and
 * with its own cursors, so it never mixes with the V4 feed (launch-transport.md Endpoints: "separate from the V4
 * feed"). Newest first. Rows are written only by the shared lane's finality tracking.
 */
export function listMultiRoleFinalized(
  db: Db,
  chainId: string,
  limit: number,
  cursor: string | undefined,
): MultiRoleFinalizedListV2 {
  const listName = `multi-role-finalized:${chainId}`;
  const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(listName, cursor);
  const rows = db
    .prepare(
      'SELECT seq, item_json FROM multi_role_finalized_feed WHERE chain_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    )
    .all(chainId, before, limit + 1) as Array<{ seq: number; item_json: string }>;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    launches: page.map((r) => JSON.parse(r.item_json)),
    nextCursor: rows.length > limit && last ? encodeCursor(listName, last.seq) : null,
  } as MultiRoleFinalizedListV2;
}
