import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { auth, call } from '../support/http.ts';
import { startServer, type TestServer, v4BytesFor } from '../support/server.ts';

// A controllable clock: windows move only when a test moves them.
let nowMs = Date.parse('2026-11-22T00:00:00.000Z');
const now = () => nowMs;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

let n = 0;
const create = (server: TestServer, key: string, idem = `rate-limit-key-${++n}`.padEnd(16, '0')) =>
  call(`${server.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': idem }),
    body: v4BytesFor(idem),
  });

describe('new-request admission (120 per hour and 500 per day by default, global)', () => {
  it('admits up to the hourly quota, refuses the next with 429 and Retry-After, and replays consume nothing', async () => {
    s = await startServer({ admissionPerHour: 3, admissionPerDay: 5 }, now);
    const a = s.key();
    const b = s.key();
    const firstKey = 'rate-limit-first-key';
    expect((await create(s, a, firstKey)).status).toBe(202);
    nowMs += 1000;
    expect((await create(s, a)).status).toBe(202);
    // Global, not per credential: a second credential draws on the same quota.
    expect((await create(s, b)).status).toBe(202);
    const refused = await create(s, a);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'ADMISSION_QUOTA_EXHAUSTED', retryable: true });
    // The first admission leaves the rolling hour 3,600 s after it was made; 1 s has passed since.
    expect(refused.headers.get('retry-after')).toBe('3599');
    expect(refused.json.error.retryAfterSeconds).toBe(3599);
    expect((await create(s, a, firstKey)).status).toBe(200);
    const launches = (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
    expect(launches).toBe(3);
  });

  it('opens again when the oldest admission leaves the hour, and stops at the daily quota', async () => {
    s = await startServer({ admissionPerHour: 3, admissionPerDay: 5 }, now);
    const key = s.key();
    for (let i = 0; i < 3; i++) expect((await create(s, key)).status).toBe(202);
    expect((await create(s, key)).status).toBe(429);
    nowMs += 3_600_000 - 1;
    expect((await create(s, key)).status).toBe(429);
    nowMs += 1;
    expect((await create(s, key)).status).toBe(202);
    expect((await create(s, key)).status).toBe(202);
    // Five admissions in the rolling day: the hourly window has room but the daily quota does not.
    expect((await create(s, key)).status).toBe(429);
    nowMs += 3_600_000;
    const daily = await create(s, key);
    expect(daily.status).toBe(429);
    expect(daily.json.error.message).toContain('per day');
    expect(Number(daily.headers.get('retry-after'))).toBeGreaterThan(3600);
  });
});

describe('per-route budgets (Project design: a configurable number per minute, route and caller)', () => {
  it('serves the budget, answers 429 RATE_LIMITED with Retry-After past it, and resets after the window', async () => {
    s = await startServer({ routeBudgetPerMinute: 3 }, now);
    const url = `${s.url}/v4/chains/4663/capabilities`;
    for (let i = 0; i < 3; i++) expect((await call(url)).status).toBe(200);
    const limited = await call(url);
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect(limited.headers.get('retry-after')).toBe('60');
    // Another route has its own budget.
    expect((await call(`${s.url}/v4/chains/4663/launch-guide`)).status).toBe(200);
    nowMs += 59_999;
    expect((await call(url)).status).toBe(429);
    nowMs += 1;
    expect((await call(url)).status).toBe(200);
  });

  it('counts authenticated callers per credential', async () => {
    s = await startServer({ routeBudgetPerMinute: 2 }, now);
    const a = s.key();
    const b = s.key();
    const url = `${s.url}/v4/chains/4663/custom-launches`;
    expect((await call(url, { headers: auth(a) })).status).toBe(200);
    expect((await call(url, { headers: auth(a) })).status).toBe(200);
    expect((await call(url, { headers: auth(a) })).status).toBe(429);
    expect((await call(url, { headers: auth(b) })).status).toBe(200);
  });
});

describe('the admission quota settings stay within what the capabilities document can publish (1 to 1,000,000)', () => {
  it.each([
    ['ADMISSION_PER_HOUR', '0', false],
    ['ADMISSION_PER_HOUR', '1', true],
    ['ADMISSION_PER_HOUR', '1000000', true],
    ['ADMISSION_PER_HOUR', '1000001', false],
    ['ADMISSION_PER_DAY', '0', false],
    ['ADMISSION_PER_DAY', '1', true],
    ['ADMISSION_PER_DAY', '1000000', true],
    ['ADMISSION_PER_DAY', '1000001', false],
  ])('%s=%s accepted: %s', (name, raw, accepted) => {
    const load = () => loadConfig({ [name]: raw });
    if (accepted) expect(load).not.toThrow();
    else expect(load).toThrow(`${name} must be from 1 to 1000000`);
  });
});
