import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { getAddress } from 'viem';
import type { HistoryImportLineV1 } from '../../../generated/schemas/history-import-line.v1.ts';
import { canonicalJson } from '../../core/canonical-json.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import type { Db } from '../../store/db.ts';
import { type PublicLaunchEntry, recordPublicLaunch } from '../public/public-launches.ts';

/** The largest import file read, in bytes (16 MiB): the whole file is one transaction. Project design. */
export const maxHistoryFileBytes = 16 * 1024 * 1024;
/** The longest line of an import file, in UTF-8 bytes without its line break (64 KiB). Project design. */
export const maxHistoryLineBytes = 64 * 1024;
/** How many problems a refused import reports at most (the first ones, by line). */
export const maxReportedProblems = 10;

const lineSchema = 'history-import-line.v1.schema.json';
const kinds = ['v2', 'v1', 'v3-finalized'] as const;
/** What one line of an import file holds (spec/schemas/history-import-line.v1.schema.json). */
export type HistoryImportKind = (typeof kinds)[number];
/** Each kind's branch of the line schema, for a problem message that names only that kind's rules. */
const kindBranch: Record<HistoryImportKind, string> = {
  v2: `${lineSchema}#/oneOf/0`,
  v1: `${lineSchema}#/oneOf/1`,
  'v3-finalized': `${lineSchema}#/oneOf/2`,
};

/** A refused import: nothing was written; each problem reads `line N: <what>` (or `file: <what>`). */
export class HistoryImportError extends Error {
  constructor(readonly problems: string[]) {
    super(`history import refused, nothing written:\n${problems.join('\n')}`);
  }
}

/** The summary `npm run admin -- import-history` prints. */
export interface HistoryImportSummary {
  importId: string;
  importedAt: string;
  counts: Record<HistoryImportKind, { imported: number; skipped: number }>;
}

/** One valid line of an import file with its 1-based line number. */
interface ParsedLine {
  lineNumber: number;
  line: HistoryImportLineV1;
}

/**
 * Parses and validates every line of a history import file (JSON Lines, UTF-8, blank lines ignored) against
 * spec/schemas/history-import-line.v1.schema.json, within maxHistoryFileBytes and maxHistoryLineBytes, and checks the
 * lines against each other (a launchId twice with other content; a V2 token that is not the public output's token).
 * Throws HistoryImportError with the first problems; writes nothing.
 */
export function parseHistoryFile(bytes: Buffer): ParsedLine[] {
  if (bytes.length > maxHistoryFileBytes) {
    throw new HistoryImportError([`file: ${bytes.length} bytes, more than the ${maxHistoryFileBytes} allowed`]);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HistoryImportError(['file: not UTF-8']);
  }
  const problems: string[] = [];
  const parsed: ParsedLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const lineNumber = index + 1;
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    const problem = lineProblem(source);
    if (typeof problem === 'string') problems.push(`line ${lineNumber}: ${problem}`);
    else parsed.push({ lineNumber, line: problem.line });
  });
  problems.push(...crossLineProblems(parsed));
  if (problems.length > 0) throw new HistoryImportError(firstProblems(problems));
  return parsed;
}

/** The problem of one line, or the valid line. */
function lineProblem(source: string): string | { line: HistoryImportLineV1 } {
  const size = Buffer.byteLength(source, 'utf8');
  if (size > maxHistoryLineBytes) return `${size} bytes, more than the ${maxHistoryLineBytes} allowed`;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (schemaProblems(lineSchema, value).length === 0) {
    const line = value as HistoryImportLineV1;
    if (line.kind === 'v2' && tokenDiffers(line))
      return '/record/token/address is not /record/publicOutput/tokenAddress';
    return { line };
  }
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (!kinds.includes(kind as HistoryImportKind)) return `/kind must be one of ${kinds.join(', ')}`;
  return schemaProblems(kindBranch[kind as HistoryImportKind], value)
    .slice(0, 3)
    .join('; ');
}

/** A V2 record naming both its token and its public output must name the same token address. */
function tokenDiffers(line: Extract<HistoryImportLineV1, { kind: 'v2' }>): boolean {
  const { token, publicOutput } = line.record;
  return (
    token !== null && publicOutput !== null && token.address.toLowerCase() !== publicOutput.tokenAddress.toLowerCase()
  );
}

/** Where a line is stored and under which launchId (a V2 record and a V3 feed item may share one). */
function storeKey(line: HistoryImportLineV1): { table: 'history_launches' | 'v3_finalized_feed'; launchId: string } {
  return line.kind === 'v3-finalized'
    ? { table: 'v3_finalized_feed', launchId: line.item.launchId }
    : { table: 'history_launches', launchId: line.record.launchId };
}

/** The stored content of a line, compared canonically so key order never makes two equal lines differ. */
function contentOf(line: HistoryImportLineV1): unknown {
  return line.kind === 'v3-finalized' ? line.item : line.record;
}

/** A launchId that appears twice in the file with other content. */
function crossLineProblems(parsed: ParsedLine[]): string[] {
  const seen = new Map<string, { lineNumber: number; content: string }>();
  const problems: string[] = [];
  for (const { lineNumber, line } of parsed) {
    const key = storeKey(line);
    const content = canonicalJson(contentOf(line));
    const earlier = seen.get(`${key.table}:${key.launchId}`);
    if (earlier && earlier.content !== content) {
      problems.push(`line ${lineNumber}: launchId ${key.launchId} is on line ${earlier.lineNumber} with other content`);
    } else if (!earlier) seen.set(`${key.table}:${key.launchId}`, { lineNumber, content });
  }
  return problems;
}

function firstProblems(problems: string[]): string[] {
  const byLine = (p: string) => Number(/^line (\d+):/.exec(p)?.[1] ?? 0);
  const sorted = [...problems].sort((a, b) => byLine(a) - byLine(b));
  return sorted.length > maxReportedProblems
    ? [...sorted.slice(0, maxReportedProblems), `… and ${sorted.length - maxReportedProblems} more`]
    : sorted;
}

/**
 * `npm run admin -- import-history <file.jsonl>`: validates the whole file first (parseHistoryFile), then writes it
 * in one transaction: v2/v1 records into history_launches (read by the GET operations of
 * spec/openapi/paths/v2-custom-launches.yaml, v1-custom-launches.yaml and their {launchId} files), v3-finalized items
 * into v3_finalized_feed with imported_at (served by listFinalizedCustomLaunchesV3 with its read-time quarantine),
 * and every finalized launch with a token into the public registry (recordPublicLaunch). A launchId already stored
 * with the same content is skipped and counted; with other content the import is refused and nothing is written.
 */
export function importHistory(db: Db, bytes: Buffer, now: Date = new Date()): HistoryImportSummary {
  const parsed = parseHistoryFile(bytes);
  const summary: HistoryImportSummary = {
    importId: randomUUID(),
    importedAt: now.toISOString(),
    counts: {
      v2: { imported: 0, skipped: 0 },
      v1: { imported: 0, skipped: 0 },
      'v3-finalized': { imported: 0, skipped: 0 },
    },
  };
  db.transaction(() => {
    const conflicts: string[] = [];
    const fresh: ParsedLine[] = [];
    const written = new Set<string>();
    for (const entry of parsed) {
      const key = storeKey(entry.line);
      const stored = storedContent(db, key);
      const seenInFile = written.has(`${key.table}:${key.launchId}`);
      if (stored === undefined && !seenInFile) {
        written.add(`${key.table}:${key.launchId}`);
        fresh.push(entry);
      } else if (stored === undefined || stored === canonicalJson(contentOf(entry.line))) {
        // A repeat within the file has the same content as its first line (parseHistoryFile refused any other).
        summary.counts[entry.line.kind].skipped += 1;
      } else {
        conflicts.push(`line ${entry.lineNumber}: launchId ${key.launchId} is already stored with other content`);
      }
    }
    if (conflicts.length > 0) throw new HistoryImportError(firstProblems(conflicts));
    for (const { line } of inStoredOrder(fresh)) {
      writeLine(db, line, summary);
      summary.counts[line.kind].imported += 1;
    }
  })();
  return summary;
}

/**
 * importHistory over a file: its size is checked before it is read, so an oversized file is refused unread.
 */
export function importHistoryFile(db: Db, path: string, now: Date = new Date()): HistoryImportSummary {
  const { size } = statSync(path);
  if (size > maxHistoryFileBytes) {
    throw new HistoryImportError([`file: ${size} bytes, more than the ${maxHistoryFileBytes} allowed`]);
  }
  return importHistory(db, readFileSync(path), now);
}

/** The canonical content stored under a launchId, or undefined when none is. */
function storedContent(db: Db, key: ReturnType<typeof storeKey>): string | undefined {
  const column = key.table === 'history_launches' ? 'record_json' : 'item_json';
  const row = db.prepare(`SELECT ${column} AS json FROM ${key.table} WHERE launch_id = ?`).get(key.launchId) as
    | { json: string }
    | undefined;
  if (!row) return undefined;
  try {
    return canonicalJson(JSON.parse(row.json));
  } catch {
    // A stored row that is not JSON (quarantined by the feed) differs from any valid line.
    return row.json;
  }
}

/**
 * The lists page newest first by insertion, so an import writes its lines oldest first: records by createdAt, feed
 * items by finalizedAt (file order breaks ties).
 */
function inStoredOrder(lines: ParsedLine[]): ParsedLine[] {
  const at = ({ line }: ParsedLine) => (line.kind === 'v3-finalized' ? line.item.finalizedAt : line.record.createdAt);
  return [...lines].sort((a, b) => at(a).localeCompare(at(b)) || a.lineNumber - b.lineNumber);
}

function writeLine(db: Db, line: HistoryImportLineV1, summary: HistoryImportSummary): void {
  const listed = { chainId: '1' as const, listedAt: summary.importedAt };
  if (line.kind === 'v3-finalized') {
    const { item, token } = line;
    db.prepare(
      'INSERT INTO v3_finalized_feed (launch_id, item_json, finalized_at, imported_at) VALUES (?, ?, ?, ?)',
    ).run(item.launchId, JSON.stringify(item), item.finalizedAt, summary.importedAt);
    recordPublicLaunch(db, {
      ...listed,
      lane: 'v3',
      launchId: item.launchId,
      tokenAddress: getAddress(item.tokenAddress),
      tokenName: token.name,
      tokenSymbol: token.symbol,
      tokenDecimals: token.decimals,
      transactionHash: item.transactionHash,
      blockNumber: item.blockNumber,
      finalizedAt: item.finalizedAt,
    });
    return;
  }
  const { record } = line;
  db.prepare(
    `INSERT INTO history_launches (lane, launch_id, launch_wallet, status, record_json, import_id, imported_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    line.kind,
    record.launchId,
    record.launchWallet.toLowerCase(),
    record.status,
    JSON.stringify(record),
    summary.importId,
    summary.importedAt,
  );
  const entry = publicEntryOf(line);
  if (entry) recordPublicLaunch(db, { ...listed, ...entry });
}

/** A finalized V2/V1 record with a token as the public registry lists it; null for any other record. */
function publicEntryOf(
  line: Exclude<HistoryImportLineV1, { kind: 'v3-finalized' }>,
): Omit<PublicLaunchEntry, 'chainId' | 'listedAt'> | null {
  const { record } = line;
  const { token, chainEvidence, finalizedAt } = record;
  if (record.status !== 'finalized' || !token || !chainEvidence?.blockNumber || !finalizedAt) return null;
  return {
    lane: line.kind,
    launchId: record.launchId,
    tokenAddress: getAddress(token.address),
    tokenName: token.name,
    tokenSymbol: token.symbol,
    tokenDecimals: token.decimals,
    transactionHash: chainEvidence.transactionHash,
    blockNumber: chainEvidence.blockNumber,
    finalizedAt,
  };
}
