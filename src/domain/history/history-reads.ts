import type {
  CustomLaunchHistoryListV1,
  CustomLaunchHistoryListV2,
  CustomLaunchHistoryV1,
  CustomLaunchHistoryV2,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { decodeCursor } from '../cursor.ts';
import { newestFirstPage } from '../launches/finalized-feed.ts';

/** A read-only history lane. */
export type HistoryLane = 'v2' | 'v1';

/** Each lane's record and list as served (spec/schemas/custom-launch-history*.v2 / .v1). */
interface HistoryShapes {
  v2: { record: CustomLaunchHistoryV2; list: CustomLaunchHistoryListV2 };
  v1: { record: CustomLaunchHistoryV1; list: CustomLaunchHistoryListV1 };
}

/**
 * The wallet whose history the credential reads: a wallet key reads the records whose launchWallet is its wallet.
 * Imported history carries no lineage, so a partner root or subkey reads none.
 */
function readerWallet(principal: Principal): string | null {
  return principal.kind === 'wallet' && principal.wallet ? principal.wallet.toLowerCase() : null;
}

/**
 * listCustomLaunchesV2 / listCustomLaunchesV1 (spec/openapi/paths/v2-custom-launches.yaml, v1-custom-launches.yaml):
 * one page of the lane's imported records whose launchWallet is the wallet key's wallet, newest first by import
 * order; the cursor is bound to the lane and the wallet. A partner credential reads an empty page, and any cursor it
 * passes is one this service never issued to it (400).
 */
export function listHistory<L extends HistoryLane>(
  db: Db,
  lane: L,
  principal: Principal,
  page: { limit: number; cursor: string | undefined },
): HistoryShapes[L]['list'] {
  const wallet = readerWallet(principal);
  if (wallet === null) {
    if (page.cursor !== undefined) decodeCursor(`history-${lane}:none`, page.cursor);
    return { items: [], nextCursor: null };
  }
  const { rows, nextCursor } = newestFirstPage(
    db,
    { table: 'history_launches', listName: `history-${lane}:${wallet}`, where: { lane, launch_wallet: wallet } },
    page.limit,
    page.cursor,
  );
  return { items: rows.map((row) => JSON.parse(row.item_json)), nextCursor };
}

/**
 * getCustomLaunchV2 / getCustomLaunchV1 (spec/openapi/paths/v2-custom-launch.yaml, v1-custom-launch.yaml): the
 * imported record exactly as validated at import. A record of another wallet, any read by a partner credential and
 * an unknown launchId answer alike: 404 NOT_FOUND.
 */
export function getHistory<L extends HistoryLane>(
  db: Db,
  lane: L,
  principal: Principal,
  launchId: string,
): HistoryShapes[L]['record'] {
  const wallet = readerWallet(principal);
  const row =
    wallet === null
      ? undefined
      : (statement(
          db,
          'SELECT record_json FROM history_launches WHERE lane = ? AND launch_id = ? AND launch_wallet = ?',
        ).get(lane, launchId, wallet) as { record_json: string } | undefined);
  if (!row) {
    throw new ApiError('NOT_FOUND', {
      message: `No ${lane.toUpperCase()} history record ${launchId} for this credential.`,
    });
  }
  return JSON.parse(row.record_json);
}
