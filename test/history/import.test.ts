import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  HistoryImportError,
  importHistory,
  maxHistoryFileBytes,
  maxHistoryLineBytes,
  maxReportedProblems,
} from '../../src/domain/history/import.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { runAdmin } from '../support/admin.ts';
import { historyLaunchId, historySamplePath, historyWallets, jsonl, sampleLines, v2Line } from '../support/history.ts';

// The history import over a real SQLite file: the operator command as a child process, and the domain function for
// the bounds and conflicts.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-history-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const counts = (db: Db) =>
  Object.fromEntries(
    ['history_launches', 'v3_finalized_feed', 'public_launches'].map((table) => [
      table,
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
    ]),
  );

/** The error an import throws: its problems. */
function refusal(db: Db, bytes: Buffer): string[] {
  try {
    importHistory(db, bytes);
  } catch (err) {
    if (err instanceof HistoryImportError) return err.problems;
    throw err;
  }
  throw new Error('the import was not refused');
}

describe('npm run admin -- import-history', () => {
  it('imports the sample, prints its summary, and skips every line of a second run', async () => {
    const databasePath = join(dir, 'cli.sqlite');
    const first = await runAdmin(['import-history', historySamplePath], { DATABASE_PATH: databasePath });
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary).toEqual({
      importId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      importedAt: expect.stringMatching(/Z$/),
      counts: {
        v2: { imported: 5, skipped: 0 },
        v1: { imported: 3, skipped: 0 },
        'v3-finalized': { imported: 6, skipped: 0 },
      },
    });
    const again = await runAdmin(['import-history', historySamplePath], { DATABASE_PATH: databasePath });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual({
      v2: { imported: 0, skipped: 5 },
      v1: { imported: 0, skipped: 3 },
      'v3-finalized': { imported: 0, skipped: 6 },
    });

    const db = openDatabase(databasePath);
    try {
      expect(counts(db)).toEqual({ history_launches: 8, v3_finalized_feed: 6, public_launches: 8 });
      const listed = db
        .prepare('SELECT lane, chain_id, token_address, token_decimals, listed_at FROM public_launches ORDER BY seq')
        .all() as Array<{ lane: string; chain_id: string; token_address: string; listed_at: string }>;
      // One finalized V2 and one finalized V1 record with a token, and the six feed rows; all on chain 1, listed at
      // the first import's time with checksummed addresses.
      expect(listed.map((r) => r.lane).sort()).toEqual(['v1', 'v2', 'v3', 'v3', 'v3', 'v3', 'v3', 'v3']);
      for (const row of listed) {
        expect(row).toMatchObject({ chain_id: '1', token_decimals: 18, listed_at: summary.importedAt });
        expect(row.token_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
        expect(row.token_address).not.toBe(row.token_address.toLowerCase());
      }
      const imported = db.prepare('SELECT DISTINCT imported_at FROM v3_finalized_feed').all();
      expect(imported).toEqual([{ imported_at: summary.importedAt }]);
    } finally {
      db.close();
    }
  });

  it('reports an invalid line by its number, exits 1 and writes nothing', async () => {
    const databasePath = join(dir, 'cli-invalid.sqlite');
    const lines = sampleLines();
    const bad = structuredClone(lines[2]) as { record: Record<string, unknown> };
    bad.record.walletTransaction = { to: historyWallets.first };
    const file = join(dir, 'invalid.jsonl');
    writeFileSync(file, jsonl([lines[0], lines[1], bad, ...lines.slice(3)]));
    const run = await runAdmin(['import-history', file], { DATABASE_PATH: databasePath });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('nothing written');
    expect(run.stderr).toMatch(/^line 3: \/record must NOT have additional properties$/m);
    const db = openDatabase(databasePath);
    try {
      expect(counts(db)).toEqual({ history_launches: 0, v3_finalized_feed: 0, public_launches: 0 });
    } finally {
      db.close();
    }
  });

  it('takes exactly one file', async () => {
    const run = await runAdmin(['import-history'], { DATABASE_PATH: join(dir, 'cli-usage.sqlite') });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('import-history takes one file');
  });
});

describe('importHistory', () => {
  let db: Db;
  let n = 0;
  beforeEach(() => {
    n += 1;
    db = openDatabase(join(dir, `domain-${n}.sqlite`));
  });
  afterEach(() => db.close());

  it.each([
    ['a line at the line bound', maxHistoryLineBytes, null],
    ['a line one byte over it', maxHistoryLineBytes + 1, `line 2: ${maxHistoryLineBytes + 1} bytes, more than`],
  ])('%s (%i bytes)', (_name, size, want) => {
    const text = JSON.stringify(v2Line(1, historyWallets.first));
    // JSON allows trailing whitespace, so padding keeps the line valid at any length.
    const bytes = Buffer.from(`\n${text}${' '.repeat(size - text.length)}\n`);
    if (want === null) expect(importHistory(db, bytes).counts.v2.imported).toBe(1);
    else expect(refusal(db, bytes)).toEqual([expect.stringContaining(want)]);
  });

  it.each([
    ['a file at the file bound', maxHistoryFileBytes, null],
    ['a file one byte over it', maxHistoryFileBytes + 1, `file: ${maxHistoryFileBytes + 1} bytes, more than`],
  ])('%s (%i bytes)', (_name, size, want) => {
    const line = `${JSON.stringify(v2Line(1, historyWallets.first))}\n`;
    // Blank lines are skipped, so lines of spaces fill the file up to the size under test.
    const blank = `${' '.repeat(60_000)}\n`;
    let filler = blank.repeat(Math.floor((size - line.length) / blank.length));
    filler += ' '.repeat(size - line.length - filler.length);
    const bytes = Buffer.from(line + filler);
    expect(bytes.length).toBe(size);
    if (want === null) expect(importHistory(db, bytes).counts.v2.imported).toBe(1);
    else expect(refusal(db, bytes)).toEqual([expect.stringContaining(want)]);
  });

  it.each([
    ['not JSON', Buffer.from('{"kind": "v2",\n'), 'line 1: not JSON ('],
    ['an unknown kind', jsonl([{ kind: 'v4', record: {} }]), 'line 1: /kind must be one of v2, v1, v3-finalized'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), 'file: not UTF-8'],
    [
      'a V2 token other than its public output',
      jsonl([
        v2Line(1, historyWallets.first, {
          token: { address: `0x${'1'.repeat(40)}`, name: 'T', symbol: 'T', decimals: 18 },
          publicOutput: { tokenAddress: `0x${'2'.repeat(40)}`, hookAddress: null },
        }),
      ]),
      'line 1: /record/token/address is not /record/publicOutput/tokenAddress',
    ],
  ])('refuses %s', (_name, bytes, want) => {
    const problems = refusal(db, bytes);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.startsWith(want), problems[0]).toBe(true);
    expect(counts(db)).toEqual({ history_launches: 0, v3_finalized_feed: 0, public_launches: 0 });
  });

  const evidence = { transactionHash: `0x${'a'.repeat(64)}`, blockNumber: '7', blockHash: `0x${'b'.repeat(64)}` };
  const output = { tokenAddress: `0x${'1'.repeat(40)}`, hookAddress: null };
  it.each([
    ['prepared with a walletTransaction', { walletTransaction: null }, '/record must NOT have additional properties'],
    ['simulating with a public output', { status: 'simulating', publicOutput: output }, '/record/publicOutput'],
    [
      'failed with a public output',
      { status: 'failed', publicOutput: output, failure: { code: 'X', message: 'x' } },
      '/record/publicOutput',
    ],
    ['failed without a failure', { status: 'failed' }, '/record/failure'],
    [
      'finalized without finalizedAt',
      { status: 'finalized', chainEvidence: evidence, publicOutput: output },
      '/record/finalizedAt',
    ],
    [
      'finalized without a block',
      {
        status: 'finalized',
        chainEvidence: { ...evidence, blockNumber: null },
        publicOutput: output,
        finalizedAt: '2024-01-02T00:00:00.000Z',
      },
      '/record/chainEvidence/blockNumber',
    ],
    ['submitted without chain evidence', { status: 'submitted' }, '/record/chainEvidence'],
    ['authorized with chain evidence', { status: 'authorized', chainEvidence: evidence }, '/record/chainEvidence'],
    ['prepared with finalizedAt', { finalizedAt: '2024-01-02T00:00:00.000Z' }, '/record/finalizedAt'],
    ['a profile outside V2', { profileVersion: '3.0.0' }, '/record/profileVersion'],
    ['observationOnly false', { observationOnly: false }, '/record/observationOnly'],
  ])('refuses a V2 record %s', (_name, patch, want) => {
    const problems = refusal(db, jsonl([v2Line(1, historyWallets.first, patch)]));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^line 1: /);
    expect(problems[0]).toContain(want);
  });

  it('skips a launchId repeated with the same content (key order aside) and refuses one with other content', () => {
    const line = v2Line(1, historyWallets.first);
    const reordered = { record: Object.fromEntries(Object.entries(line.record).reverse()), kind: 'v2' };
    expect(importHistory(db, jsonl([line, reordered])).counts.v2).toEqual({ imported: 1, skipped: 1 });
    expect(importHistory(db, jsonl([reordered])).counts.v2).toEqual({ imported: 0, skipped: 1 });

    const other = v2Line(1, historyWallets.first, { status: 'validating' });
    expect(refusal(db, jsonl([v2Line(2, historyWallets.first), other]))).toEqual([
      `line 2: launchId ${historyLaunchId(1001)} is already stored with other content`,
    ]);
    expect(refusal(db, jsonl([v2Line(3, historyWallets.first), v2Line(3, historyWallets.second)]))).toEqual([
      `line 2: launchId ${historyLaunchId(1003)} is on line 1 with other content`,
    ]);
    // Neither refused file left a line behind: only the first record is stored.
    expect(counts(db)).toEqual({ history_launches: 1, v3_finalized_feed: 0, public_launches: 0 });
  });

  it(`reports at most ${maxReportedProblems} problems, the first by line`, () => {
    const lines = Array.from({ length: maxReportedProblems + 2 }, (_, i) => ({ kind: 'v9', n: i }));
    const problems = refusal(db, jsonl(lines));
    expect(problems).toHaveLength(maxReportedProblems + 1);
    expect(problems[0]).toMatch(/^line 1: /);
    expect(problems[maxReportedProblems - 1]).toMatch(new RegExp(`^line ${maxReportedProblems}: `));
    expect(problems.at(-1)).toBe('… and 2 more');
  });

  it('the sample file is valid and covers every kind, a finalized token of each history lane and each V3 profile', () => {
    const lines = sampleLines();
    expect(new Set(lines.map((l) => l.kind))).toEqual(new Set(['v2', 'v1', 'v3-finalized']));
    const profiles = lines.flatMap((l) => (l.kind === 'v3-finalized' ? [l.item.launchProfileVersion] : []));
    expect(profiles.sort()).toEqual(['2.0.0', '3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0']);
    expect(importHistory(db, readFileSync(historySamplePath)).counts['v3-finalized'].imported).toBe(6);
  });
});
