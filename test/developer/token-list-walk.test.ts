import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { developerTokenList, maxListedTokens } from '../../src/domain/developer/token-list.ts';
import { type PublicLaunchEntry, recordPublicLaunch } from '../../src/domain/public/public-launches.ts';
import { openReadOnlyDatabase } from '../../src/store/db.ts';
import { type DeveloperServer, startDeveloperServer } from '../support/developer.ts';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * getDeveloperTokenList (spec/openapi/developer-api.openapi.yaml) as the registry grows: the developer API keeps its
 * walk over the registry and takes added rows in, so every answer must equal the list read from the start by a fresh
 * connection, whether a row lands after the listed ones, before them (a history import), or past the token bound.
 */

let service: TestServer;
let developer: DeveloperServer;
let n = 0;

function entry(finalizedAt: string, edit: Partial<PublicLaunchEntry> = {}): PublicLaunchEntry {
  n++;
  const hex = n.toString(16).padStart(6, '0');
  return {
    lane: 'v4',
    launchId: `0b0c0d0e-0000-4000-8000-000000${hex}`,
    chainId: '4663',
    tokenAddress: getAddress(`0x${'cd'.repeat(17)}${hex}`),
    tokenName: `Walk ${n}`,
    tokenSymbol: `WK${n}`,
    tokenDecimals: 18,
    transactionHash: `0x${hex.repeat(10)}${'0'.repeat(4)}`,
    blockNumber: String(100 + n),
    finalizedAt,
    listedAt: finalizedAt,
    ...edit,
  };
}

const at = (day: number) => new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString();

/** The list a connection of its own reads from the registry's first row. */
function fromStart(): unknown {
  const fresh = openReadOnlyDatabase(service.config.databasePath);
  try {
    return developerTokenList(fresh);
  } finally {
    fresh.close();
  }
}

beforeAll(async () => {
  service = await startServer();
  developer = await startDeveloperServer(service);
});

afterAll(async () => {
  await developer?.close();
  await service?.close();
});

describe('the token list as rows are added', () => {
  it.each([
    ['the first tokens', 'changed', () => [entry(at(10)), entry(at(11)), entry(at(12))]],
    ['a token finalized after the listed ones', 'changed', () => [entry(at(20))]],
    ['a token finalized before them (a history import)', 'changed', () => [entry(at(1))]],
    ['a token finalized at the same instant as the last', 'changed', () => [entry(at(20))]],
    ['a token whose decimals are unknown', 'same', () => [entry(at(30), { tokenDecimals: null })]],
    [
      'a token already listed on its chain',
      'same',
      () => [entry(at(31), { tokenAddress: getAddress(`0x${'cd'.repeat(17)}000001`) })],
    ],
    [
      'tokens up to the bound',
      'changed',
      () => Array.from({ length: maxListedTokens }, (_, i) => entry(at(40 + i / 1000))),
    ],
    ['a token finalized after the bound', 'same', () => [entry(at(100_000))]],
    ['a token finalized before the bound', 'changed', () => [entry(at(2))]],
  ] as Array<[string, 'same' | 'changed', () => PublicLaunchEntry[]]>)(
    '%s: the list is %s',
    async (_name, want, rows) => {
      const before = await call(`${developer.url}/api/v2/token-list`);
      const added = rows();
      service.db.transaction(() => {
        for (const row of added) recordPublicLaunch(service.db, row);
      })();
      const after = await call(`${developer.url}/api/v2/token-list`);
      expect(after.status).toBe(200);
      expect(after.json).toEqual(fromStart());
      expect(after.json.tokens.length).toBeLessThanOrEqual(maxListedTokens);
      if (before.status === 200) expect(after.text === before.text ? 'same' : 'changed').toBe(want);
    },
  );
});
