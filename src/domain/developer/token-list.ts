import { getAddress } from 'viem';
import type { DeveloperTokenListV2 } from '../../../generated/types/developer-api.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

/** The token-lists format's bound on the number of tokens (spec/schemas/developer-token-list.v2.schema.json). */
export const maxListedTokens = 10_000;

/**
 * Whether a finalized launch's token fits the token-lists format as spec/schemas/developer-token-list.v2.schema.json
 * narrows it: decimals known (0..255), name of 1 to 60 characters matching `^[ \S+]+$`, symbol of 1 to 20 characters
 * matching `^\S+$` (lengths in code points, as JSON Schema counts them).
 */
export function fitsTokenList(token: { name: string; symbol: string; decimals: number | null }): boolean {
  const { name, symbol, decimals } = token;
  const nameLength = [...name].length;
  const symbolLength = [...symbol].length;
  return (
    decimals !== null &&
    Number.isInteger(decimals) &&
    decimals >= 0 &&
    decimals <= 255 &&
    nameLength >= 1 &&
    nameLength <= 60 &&
    /^[ \S+]+$/u.test(name) &&
    symbolLength >= 1 &&
    symbolLength <= 20 &&
    /^\S+$/u.test(symbol)
  );
}

interface Row {
  seq: number;
  chain_id: '4663' | '1';
  token_address: string;
  token_name: string;
  token_symbol: string;
  token_decimals: number | null;
  finalized_at: string;
  listed_at: string;
}

/** The token list of one connection as last built: the walk over the registry in finalization order so far. */
interface Walk {
  /** The registry's highest seq when last read. */
  lastSeq: number;
  /** The last row the walk took in (finalization order), null before any. */
  last: Pick<Row, 'finalized_at' | 'seq'> | null;
  tokens: DeveloperTokenListV2['tokens'];
  seen: Set<string>;
  timestamp: string;
  list: DeveloperTokenListV2 | null;
}

const walks = new WeakMap<Db, Walk>();
const columns = 'seq, chain_id, token_address, token_name, token_symbol, token_decimals, finalized_at, listed_at';

/**
 * getDeveloperTokenList (spec/openapi/developer-api.openapi.yaml): the listable tokens of the public launch registry
 * in finalization order (finalized_at, seq ascending), each (chain, address) once, at most maxListedTokens. Registry
 * rows are never updated or deleted, so only an added token changes the list: version minor counts the tokens and
 * timestamp is the latest listed_at among them, never the time of the read. No listable token: 404 TOKEN_LIST_EMPTY.
 */
export function developerTokenList(db: Db): DeveloperTokenListV2 {
  // Added rows are the registry's only change, each with a higher seq: a read with none added costs one primary-key
  // lookup, and rows added after the walk's position are taken in without walking the registry again.
  const { last } = statement(db, 'SELECT max(seq) AS last FROM public_launches').get() as { last: number | null };
  const lastSeq = last ?? 0;
  let walk = walks.get(db);
  if (walk?.lastSeq !== lastSeq) {
    walk = (walk && extend(db, walk, lastSeq)) ?? walkFromStart(db, lastSeq);
    walk.lastSeq = lastSeq;
    walks.set(db, walk);
  }
  if (walk.list === null) throw new ApiError('TOKEN_LIST_EMPTY');
  return walk.list;
}

/** The walk over the registry up to `lastSeq`, from its first row in finalization order. */
function walkFromStart(db: Db, lastSeq: number): Walk {
  const walk: Walk = { lastSeq: 0, last: null, tokens: [], seen: new Set(), timestamp: '', list: null };
  const rows = statement(
    db,
    `SELECT ${columns} FROM public_launches WHERE token_decimals IS NOT NULL AND seq <= ? ORDER BY finalized_at, seq`,
  ).iterate(lastSeq) as IterableIterator<Row>;
  take(walk, rows);
  return walk;
}

/**
 * The walk with the rows added since it was built (up to `lastSeq`), when each sorts after its position (the usual
 * case: a launch finalizes after those before it); null when one sorts before it (a history import), so the list is
 * walked again.
 */
function extend(db: Db, walk: Walk, lastSeq: number): Walk | null {
  const added = statement(
    db,
    `SELECT ${columns} FROM public_launches WHERE seq > ? AND seq <= ? AND token_decimals IS NOT NULL
       ORDER BY finalized_at, seq`,
  ).all(walk.lastSeq, lastSeq) as Row[];
  const position = walk.last;
  const after = (r: Row) =>
    position === null ||
    r.finalized_at > position.finalized_at ||
    (r.finalized_at === position.finalized_at && r.seq > position.seq);
  if (!added.every(after)) return null;
  take(walk, added);
  return walk;
}

/** Takes rows (in finalization order, after the walk's position) into the walk until the list holds the bound. */
function take(walk: Walk, rows: Iterable<Row>): void {
  const before = walk.tokens.length;
  for (const r of rows) {
    // Leaving the loop ends the read: rows past the bound are never fetched.
    if (walk.tokens.length === maxListedTokens) break;
    walk.last = { finalized_at: r.finalized_at, seq: r.seq };
    const token = { name: r.token_name, symbol: r.token_symbol, decimals: r.token_decimals };
    const address = getAddress(r.token_address);
    const key = `${r.chain_id}:${address}`;
    if (!fitsTokenList(token) || walk.seen.has(key)) continue;
    walk.seen.add(key);
    walk.tokens.push({
      chainId: Number(r.chain_id) as 4663 | 1,
      address,
      ...token,
      decimals: token.decimals as number,
    });
    if (r.listed_at > walk.timestamp) walk.timestamp = r.listed_at;
  }
  if (walk.tokens.length === before) return;
  walk.list = {
    name: 'Custom Launch Tokens',
    timestamp: walk.timestamp,
    version: { major: 1, minor: walk.tokens.length, patch: 0 },
    tokens: [...walk.tokens],
  };
}
