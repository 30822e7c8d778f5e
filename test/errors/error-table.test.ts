import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.ts';
import { errorCodes, errorTable } from '../../src/errors/codes.ts';

const schema = JSON.parse(readFileSync(new URL('../../spec/schemas/api-error.schema.json', import.meta.url), 'utf8'));
const specCodes: string[] = schema.$defs.ApiErrorCode.enum;

// One closed error table: the table, the spec's enum and the behaviour agree both ways.
describe('error table', () => {
  it('lists exactly the codes of the spec enum, both ways', () => {
    expect([...errorCodes].sort()).toEqual([...specCodes].sort());
  });

  it.each(errorCodes)('%s builds a body with its status, retryable flag and a bounded message', (code) => {
    const entry = errorTable[code];
    const err = new ApiError(code);
    expect(err.status).toBe(entry.status);
    const body = err.toBody('00000000-0000-4000-8000-000000000000');
    expect(body.error.code).toBe(code);
    expect(body.error.retryable).toBe(entry.retryable);
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(body.error.message.length).toBeLessThanOrEqual(1024);
    if (entry.status === 429 || entry.status === 503) expect(body.error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('marks exactly the 429s, the 408 and the transient 503s retryable', () => {
    for (const code of errorCodes) {
      const { status, retryable } = errorTable[code];
      // A request that did not arrive in time succeeds when the same bytes are sent again promptly.
      if (status === 408) expect(retryable, code).toBe(true);
      else if (status < 429) expect(retryable, code).toBe(false);
      if (status === 429) expect(retryable, code).toBe(true);
    }
    expect(errorCodes.filter((c) => errorTable[c].status === 408)).toEqual(['REQUEST_TIMEOUT']);
  });

  it('names the documented codes with their documented statuses', () => {
    expect(errorTable.UNAUTHENTICATED.status).toBe(401);
    expect(errorTable.INSUFFICIENT_SCOPE.status).toBe(403);
    expect(errorTable.CHAIN_NOT_ALLOWED.status).toBe(403);
    expect(errorTable.NOT_FOUND.status).toBe(404);
    expect(errorTable.CUSTOM_LAUNCH_V2_READ_ONLY).toMatchObject({ status: 409, retryable: false });
    expect(errorTable.CUSTOM_LAUNCH_V1_READ_ONLY).toMatchObject({ status: 409, retryable: false });
  });
});
