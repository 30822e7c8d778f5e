import type { DeveloperLaunchesV2 } from '../../../generated/types/developer-api.ts';
import type { Db } from '../../store/db.ts';
import { decodeCursor, encodeCursor, unknownCursor } from '../cursor.ts';
import type { PublicLaunchLane } from '../public/public-launches.ts';

const list = 'developer-launches';

interface Row {
  seq: number;
  lane: PublicLaunchLane;
  launch_id: string;
  chain_id: '4663' | '1';
  token_address: string;
  token_name: string;
  token_symbol: string;
  token_decimals: number | null;
  transaction_hash: string;
  block_number: string;
  finalized_at: string;
}

/**
 * listDeveloperLaunches (spec/openapi/developer-api.openapi.yaml, spec/schemas/developer-launches.v2.schema.json):
 * one page of the public launch registry, newest first by (finalized_at, seq). The cursor names the last row's seq;
 * registry rows are never updated or deleted, so that row still fixes the position of the next page. A cursor of
 * another list, or of a row this database does not hold, is 400 INVALID_REQUEST.
 */
export function listDeveloperLaunches(db: Db, limit: number, cursor: string | undefined): DeveloperLaunchesV2 {
  const columns = `seq, lane, launch_id, chain_id, token_address, token_name, token_symbol, token_decimals,
    transaction_hash, block_number, finalized_at`;
  let rows: Row[];
  if (cursor === undefined) {
    rows = db
      .prepare(`SELECT ${columns} FROM public_launches ORDER BY finalized_at DESC, seq DESC LIMIT ?`)
      .all(limit + 1) as Row[];
  } else {
    const after = decodeCursor(list, cursor);
    const position = db.prepare('SELECT finalized_at FROM public_launches WHERE seq = ?').get(after) as
      | { finalized_at: string }
      | undefined;
    if (!position) throw unknownCursor();
    rows = db
      .prepare(
        `SELECT ${columns} FROM public_launches WHERE (finalized_at, seq) < (?, ?)
         ORDER BY finalized_at DESC, seq DESC LIMIT ?`,
      )
      .all(position.finalized_at, after, limit + 1) as Row[];
  }
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    schemaVersion: 'platform.developer-launches.v2',
    items: page.map((r) => ({
      lane: r.lane,
      launchId: r.launch_id,
      chainId: r.chain_id,
      caip2: `eip155:${r.chain_id}`,
      token: { address: r.token_address, name: r.token_name, symbol: r.token_symbol, decimals: r.token_decimals },
      transactionHash: r.transaction_hash,
      blockNumber: r.block_number,
      finalizedAt: r.finalized_at,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(list, last.seq) : null,
  };
}
