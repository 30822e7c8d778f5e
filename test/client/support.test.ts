import { describe, expect, it } from 'vitest';
import { supportLine, utcNow } from '../../src/client/core/support.ts';
import { refusalOf, requestIdPattern, uuidPattern } from '../../src/client/core/transport.ts';
import { checkLaunchId } from '../../src/client/launches/poll.ts';
import { describeFailure, serviceFailure } from '../../src/client/modules/errors.ts';

// Support messages contain only error.requestId, HTTP status, UTC time and public code,
// never a key. common.schema.json $defs.RequestId and $defs.Uuid: a request id is never a launchId.

const requestId = 'req_5f0c2a9e7b3d41c8a6e2f9d0b1c3a4e5';
const at = '2026-11-24T16:00:00.123Z';
const iso = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;

describe('supportLine', () => {
  it.each<[string, Parameters<typeof supportLine>[0], string]>([
    [
      'a refusal',
      { requestId, status: 404, at, code: 'NOT_FOUND' },
      `support: requestId ${requestId}, HTTP 404, ${at}, NOT_FOUND`,
    ],
    [
      'a client refusal without an ApiError',
      { requestId: null, status: 302, at, code: 'REDIRECT_REFUSED' },
      `support: requestId none, HTTP 302, ${at}, REDIRECT_REFUSED`,
    ],
    [
      'no answer',
      { requestId: null, status: null, at, code: null },
      `support: requestId none, HTTP none, ${at}, no code`,
    ],
  ])('%s', (_name, facts, want) => {
    expect(supportLine(facts)).toBe(want);
  });

  it('states UTC time as ISO 8601 with Z', () => {
    expect(utcNow(Date.parse('2026-11-24T18:00:00.000+02:00'))).toBe('2026-11-24T16:00:00.000Z');
    expect(utcNow()).toMatch(iso);
  });

  it('a refusal carries the time of its answer, and its message never the key (the support line takes none)', () => {
    const key = 'clk_secretsecretsecretsecret';
    const before = Date.now();
    const refusal = refusalOf(
      {
        status: 403,
        text: '',
        json: { error: { code: 'FORBIDDEN', message: `bad ${key}`, requestId, retryable: false } },
      },
      key,
    );
    expect(refusal.message).toBe('bad [redacted]');
    expect(Date.parse(refusal.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(refusal.at)).toBeLessThanOrEqual(Date.now());
    expect(supportLine(refusal)).toBe(`support: requestId ${requestId}, HTTP 403, ${refusal.at}, FORBIDDEN`);
  });

  it("the module client's line quotes the support line when the service answered with a requestId", () => {
    const answered = serviceFailure(
      {
        status: 404,
        text: '',
        json: { error: { code: 'NOT_FOUND', message: 'no such draft', requestId, retryable: false } },
      },
      { post: false },
    );
    expect(answered.at).toMatch(iso);
    expect(describeFailure(answered)).toBe(
      `NOT_FOUND (HTTP 404): no such draft [support: requestId ${requestId}, HTTP 404, ${answered.at}, NOT_FOUND]`,
    );
    const unanswered = serviceFailure({ status: 502, text: 'bad gateway', json: undefined }, { post: false });
    expect(describeFailure(unanswered)).not.toContain('support:');
  });
});

describe('request ids and launch ids never meet', () => {
  it.each<[string, string, RegExp | null]>([
    ['a launchId', '0b6f7a5e-3c1d-4e2f-8a9b-0c1d2e3f4a5b', null],
    [
      'a request id',
      requestId,
      /is a requestId \(the per-call support correlation id\), not a launchId; nothing was sent/,
    ],
    ['a request id in capitals', requestId.toUpperCase(), /is not a launchId/],
    ['a request id one digit short', requestId.slice(0, -1), /is not a launchId/],
    ['an uppercase UUID', '0B6F7A5E-3C1D-4E2F-8A9B-0C1D2E3F4A5B', /is not a launchId/],
    ['a UUID with version digit 0', '0b6f7a5e-3c1d-0e2f-8a9b-0c1d2e3f4a5b', /is not a launchId/],
  ])('checkLaunchId: %s', (_name, id, refused) => {
    if (refused === null) expect(() => checkLaunchId(id)).not.toThrow();
    else expect(() => checkLaunchId(id)).toThrow(refused);
  });

  it('the two patterns exclude each other', () => {
    expect(requestIdPattern.test(requestId)).toBe(true);
    expect(uuidPattern.test(requestId)).toBe(false);
    const launchId = '0b6f7a5e-3c1d-4e2f-8a9b-0c1d2e3f4a5b';
    expect(uuidPattern.test(launchId)).toBe(true);
    expect(requestIdPattern.test(launchId)).toBe(false);
    // Even a UUID's 32 hex digits behind req_ is a request id, and no UUID.
    const prefixed = `req_${launchId.replaceAll('-', '')}`;
    expect(requestIdPattern.test(prefixed)).toBe(true);
    expect(uuidPattern.test(prefixed)).toBe(false);
  });
});
