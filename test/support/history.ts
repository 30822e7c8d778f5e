import { readFileSync } from 'node:fs';
import type { HistoryImportLineV1 } from '../../generated/schemas/history-import-line.v1.ts';

/** The sample history file the docs and the conformance server use (examples/history/history-sample.jsonl). */
export const historySamplePath = new URL('../../examples/history/history-sample.jsonl', import.meta.url).pathname;

/** The sample's lines, parsed. */
export function sampleLines(): HistoryImportLineV1[] {
  return readFileSync(historySamplePath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HistoryImportLineV1);
}

/** The wallets the sample's records belong to. */
export const historyWallets = {
  first: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  second: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
} as const;

/** A history launchId of the sample's shape (lowercase UUID v4): `n` names it. */
export const historyLaunchId = (n: number) => `5a1e0000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * A valid V2 record line in `prepared` (no evidence, no output) for `wallet`, created `n` minutes after a fixed
 * instant so several sort in order; `patch` replaces record fields.
 */
export function v2Line(
  n: number,
  wallet: string,
  patch: Record<string, unknown> = {},
): Extract<HistoryImportLineV1, { kind: 'v2' }> {
  const createdAt = new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString();
  return {
    kind: 'v2',
    record: {
      schemaVersion: 'platform.custom-launch-history.v2',
      launchId: historyLaunchId(1000 + n),
      chainId: '1',
      caip2: 'eip155:1',
      launchWallet: wallet,
      status: 'prepared',
      profileVersion: '2.0.0',
      token: null,
      publicOutput: null,
      chainEvidence: null,
      failure: null,
      createdAt,
      updatedAt: createdAt,
      finalizedAt: null,
      observationOnly: true,
      ...patch,
    },
  } as Extract<HistoryImportLineV1, { kind: 'v2' }>;
}

/** JSON Lines of `lines`. */
export const jsonl = (lines: unknown[]): Buffer => Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
