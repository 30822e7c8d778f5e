import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/client/core/retry-after.ts';

// spec/openapi/components/headers.yaml: Retry-After is seconds or an HTTP date. A fixed `now` keeps every date exact.
const now = Date.parse('2026-11-22T10:00:00.000Z');
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe('retryAfterMs', () => {
  it.each([
    ['0 seconds', '0', 0],
    ['5 seconds', '5', 5_000],
    ['120 seconds', '120', 120_000],
    ['seconds with surrounding whitespace', ' 7 ', 7_000],
    ['an HTTP date 90 s ahead', httpDate(now + 90_000), 90_000],
    ['an HTTP date 1 s ahead', httpDate(now + 1_000), 1_000],
    ['an HTTP date exactly now', httpDate(now), 0],
    // A past date is "retry at once", not a negative wait.
    ['an HTTP date 1 s in the past', httpDate(now - 1_000), 0],
    ['an HTTP date a day in the past', httpDate(now - 86_400_000), 0],
  ])('reads %s', (_name, header, want) => {
    expect(retryAfterMs(header, now)).toBe(want);
  });

  it('the HTTP dates of the table are IMF-fixdates', () => {
    // Guards the table: toUTCString must produce the RFC 9110 form the header uses, weekday first.
    expect(httpDate(now)).toBe('Sun, 22 Nov 2026 10:00:00 GMT');
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a word', 'soon'],
    ['a negative number', '-5'],
    ['a fraction', '1.5'],
    ['an empty header', ''],
    ['only whitespace', '   '],
    ['a signed positive number', '+5'],
    ['seconds with a unit', '5s'],
    // ISO 8601 parses with Date.parse but is not an HTTP date: it names no weekday.
    ['an ISO date without weekday', '2026-11-22T10:00:00Z'],
    ['a weekday and comma followed by garbage', 'Sun, the day after tomorrow'],
  ])('does not read %s', (_name, header) => {
    expect(retryAfterMs(header, now)).toBeUndefined();
  });

  // Date.parse's legacy parser reads "Sun, 5" as a day in 2001; only the three HTTP-date forms may reach it.
  it('does not read a weekday followed by a bare number', () => {
    expect(retryAfterMs('Sun, 5', now)).toBeUndefined();
  });
});
