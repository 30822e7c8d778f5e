import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { respawnDelayMs } from '../../src/server/cluster.ts';

describe('WORKERS: the number of server processes on one port and file (1 to 64, default 1)', () => {
  it.each([
    ['unset', undefined, 1],
    ['empty', '', 1],
    ['0', '0', 'WORKERS must be from 1 to 64, got 0'],
    ['1', '1', 1],
    ['2', '2', 2],
    ['64', '64', 64],
    ['65', '65', 'WORKERS must be from 1 to 64, got 65'],
    ['-1', '-1', 'WORKERS must be a non-negative integer, got "-1"'],
    ['1.5', '1.5', 'WORKERS must be a non-negative integer, got "1.5"'],
    ['two', 'two', 'WORKERS must be a non-negative integer, got "two"'],
  ] as const)('WORKERS %s', (_title, given, want) => {
    const load = () => loadConfig(given === undefined ? {} : { WORKERS: given });
    if (typeof want === 'number') expect(load().workers).toBe(want);
    else expect(load).toThrow(want);
  });

  it.each([
    ['1', ':memory:', true],
    ['2', ':memory:', false],
    ['2', '/tmp/one-file.sqlite', true],
  ])('WORKERS=%s with DATABASE_PATH=%s accepted: %s', (workers, databasePath, accepted) => {
    const load = () => loadConfig({ WORKERS: workers, DATABASE_PATH: databasePath });
    if (accepted) expect(load).not.toThrow();
    else expect(load).toThrow('WORKERS above 1 needs DATABASE_PATH to be a file');
  });
});

describe('the wait before a replacement worker is forked', () => {
  it.each([
    [0, 0],
    [1, 100],
    [2, 200],
    [6, 3200],
    [7, 5000],
    [30, 5000],
  ])('after %i workers in a row died young: %i ms', (deaths, want) => {
    expect(respawnDelayMs(deaths)).toBe(want);
  });
});
