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
  chain_id: '4663' | '1';
  token_address: string;
  token_name: string;
  token_symbol: string;
  token_decimals: number | null;
  listed_at: string;
}

/** The token list built for each connection, with the registry's highest seq it was built at. */
const builtLists = new WeakMap<Db, { lastSeq: number; list: DeveloperTokenListV2 | null }>();

/**
 * getDeveloperTokenList (spec/openapi/developer-api.openapi.yaml): the listable tokens of the public launch registry
 * in finalization order (finalized_at, seq ascending), each (chain, address) once, at most maxListedTokens. Registry
 * rows are never updated or deleted, so only an added token changes the list: version minor counts the tokens and
 * timestamp is the latest listed_at among them, never the time of the read. No listable token: 404 TOKEN_LIST_EMPTY.
 */
export function developerTokenList(db: Db): DeveloperTokenListV2 {
  // An added row is the only change the registry sees, and it takes a higher seq: the list is rebuilt only then, so a
  // read costs one primary-key lookup however large the registry grows.
  const { last } = statement(db, 'SELECT max(seq) AS last FROM public_launches').get() as { last: number | null };
  const lastSeq = last ?? 0;
  let built = builtLists.get(db);
  if (built?.lastSeq !== lastSeq) {
    built = { lastSeq, list: buildTokenList(db) };
    builtLists.set(db, built);
  }
  if (built.list === null) throw new ApiError('TOKEN_LIST_EMPTY');
  return built.list;
}

/** The token list read from the registry (public_launches_listable), or null when no token is listable. */
function buildTokenList(db: Db): DeveloperTokenListV2 | null {
  const rows = statement(
    db,
    `SELECT chain_id, token_address, token_name, token_symbol, token_decimals, listed_at FROM public_launches
       WHERE token_decimals IS NOT NULL ORDER BY finalized_at, seq`,
  ).iterate() as IterableIterator<Row>;
  const seen = new Set<string>();
  const tokens: DeveloperTokenListV2['tokens'] = [];
  let timestamp = '';
  for (const r of rows) {
    // Leaving the loop ends the read: rows past the bound are never fetched.
    if (tokens.length === maxListedTokens) break;
    const token = { name: r.token_name, symbol: r.token_symbol, decimals: r.token_decimals };
    const address = getAddress(r.token_address);
    const key = `${r.chain_id}:${address}`;
    if (!fitsTokenList(token) || seen.has(key)) continue;
    seen.add(key);
    tokens.push({ chainId: Number(r.chain_id) as 4663 | 1, address, ...token, decimals: token.decimals as number });
    if (r.listed_at > timestamp) timestamp = r.listed_at;
  }
  if (tokens.length === 0) return null;
  return {
    name: 'Custom Launch Tokens',
    timestamp,
    version: { major: 1, minor: tokens.length, patch: 0 },
    tokens,
  };
}
