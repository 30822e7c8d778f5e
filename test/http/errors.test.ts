import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingCodes } from '../../src/domain/launches/finding-codes.ts';
import { errorTable } from '../../src/errors/codes.ts';
import { captureLogs } from '../../src/observability/logger.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { exampleBytes, freshV4Bytes, startServer, type TestServer, v4Example } from '../support/server.ts';

let s: TestServer;
let key: string;
const launches = () => (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;

function expectApiError(r: Reply, status: number, code: string, retryable = false): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.json)).toEqual(['error']);
  expect(r.json.error).toMatchObject({ code, retryable, requestId: r.headers.get('x-request-id') });
  expect(r.json.error.requestId).toMatch(requestIdPattern);
  expect(r.json.error.message.length).toBeGreaterThan(0);
}

/** common.schema.json $defs.RequestId: req_ and 32 lowercase hex digits. */
const requestIdPattern = /^req_[0-9a-f]{32}$/;
/** common.schema.json $defs.Uuid, the shape of a launchId. */
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

beforeAll(async () => {
  // A small V4 body limit so the oversized case needs no megabytes; the example is about 3 KiB... see the size test.
  s = await startServer({ v4BodyLimitBytes: 64 * 1024 });
  key = s.key();
});
afterAll(() => s.close());

describe('request body errors (each its own ApiError, nothing persisted)', () => {
  const url = () => `${s.url}/v4/chains/4663/custom-launches`;
  const headers = (extra: Record<string, string> = {}) =>
    auth(key, { 'Idempotency-Key': 'errors-test-key-0001', ...extra });

  it('400 MALFORMED_JSON for a body that is not JSON', async () => {
    expectApiError(
      await call(url(), { method: 'POST', headers: headers(), body: '{"schemaVersion":' }),
      400,
      'MALFORMED_JSON',
    );
    expect(launches()).toBe(0);
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not application/json', async () => {
    const r = await call(url(), {
      method: 'POST',
      headers: headers({ 'Content-Type': 'text/plain' }),
      body: exampleBytes(v4Example),
    });
    expectApiError(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(launches()).toBe(0);
  });

  it('413 PAYLOAD_TOO_LARGE one byte over the limit, accepted at the limit', async () => {
    const example = exampleBytes(v4Example);
    const limit = s.config.v4BodyLimitBytes;
    expect(Buffer.byteLength(example)).toBeLessThan(limit);
    // JSON allows trailing whitespace: pad the same request to exactly the limit, then one byte more.
    const atLimit = example + ' '.repeat(limit - Buffer.byteLength(example));
    const over = `${atLimit} `;
    expectApiError(
      await call(url(), {
        method: 'POST',
        headers: headers({ 'Idempotency-Key': 'errors-test-key-0002' }),
        body: over,
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(launches()).toBe(0);
    const ok = await call(url(), {
      method: 'POST',
      headers: headers({ 'Idempotency-Key': 'errors-test-key-0003' }),
      body: atLimit,
    });
    expect(ok.status, ok.text).toBe(202);
    expect(launches()).toBe(1);
  });

  it('400 INVALID_REQUEST for a JSON body that breaks the schema, listing issues', async () => {
    const r = await call(url(), {
      method: 'POST',
      headers: headers({ 'Idempotency-Key': 'errors-test-key-0004' }),
      body: '{}',
    });
    expectApiError(r, 400, 'INVALID_REQUEST');
    expect(r.json.error.issues.length).toBeGreaterThan(0);
    expect(r.json.error.issues.length).toBeLessThanOrEqual(50);
  });
});

describe('routing errors', () => {
  it('404 NOT_FOUND for an unknown path', async () => {
    expectApiError(await call(`${s.url}/v5/nothing-here`), 404, 'NOT_FOUND');
  });

  it('405 METHOD_NOT_ALLOWED with an Allow header for a known path', async () => {
    const r = await call(`${s.url}/v4/chains/4663/capabilities`, { method: 'DELETE' });
    expectApiError(r, 405, 'METHOD_NOT_ALLOWED');
    expect(r.headers.get('allow')?.toUpperCase()).toContain('GET');
  });

  it('501 NOT_IMPLEMENTED for a spec operation this deployment does not implement yet', async () => {
    // Every operation has a handler today: a server given no handlers shows what one without a handler answers
    // (its 501 is declared by no operation now, so responses are not validated against the spec here).
    const bare = await startServer({ validateResponses: false }, undefined, {});
    try {
      const body = readFileSync(
        new URL('../../spec/examples/permit-reissue-disposition-request.v1.json', import.meta.url),
        'utf8',
      );
      const launchId = (JSON.parse(body) as { launchId: string }).launchId;
      expectApiError(
        await call(`${bare.url}/v4/chains/4663/custom-launches/${launchId}/permit-reissue-disposition`, {
          method: 'POST',
          headers: auth(bare.key(), { 'Idempotency-Key': 'errors-test-not-implemented-1' }),
          body,
        }),
        501,
        'NOT_IMPLEMENTED',
      );
    } finally {
      await bare.close();
    }
  });
});

describe('request ids (common.schema.json $defs.RequestId)', () => {
  it('every answer carries a fresh req_ id, a shape no launchId (a UUID) can have', async () => {
    const create = await call(`${s.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'errors-test-request-id-0001' }),
      body: freshV4Bytes(),
    });
    expect(create.status, create.text).toBe(202);
    const launchId = create.json.launchId as string;
    const ids = [create.headers.get('x-request-id')];
    for (let i = 0; i < 3; i++) ids.push((await call(`${s.url}/readyz`)).headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(requestIdPattern);
      expect(id).not.toMatch(uuidPattern);
    }
    // The other side: the launchId is a UUID and never a request id.
    expect(launchId).toMatch(uuidPattern);
    expect(launchId).not.toMatch(requestIdPattern);
  });
});

describe('documented refusals', () => {
  it.each([
    ['/v2/custom-launches', 'CUSTOM_LAUNCH_V2_READ_ONLY'],
    ['/v1/custom-launches', 'CUSTOM_LAUNCH_V1_READ_ONLY'],
  ])('POST %s answers 409 %s, not retryable', async (path, code) => {
    expectApiError(await call(`${s.url}${path}`, { method: 'POST' }), 409, code);
  });

  it('the initial-buy quote answers a retryable 503 with Retry-After and never a made-up price', async () => {
    const r = await call(`${s.url}/v4/chains/4663/initial-buy-quote`);
    expectApiError(r, 503, 'PRICE_SOURCE_UNAVAILABLE', true);
    expect(r.headers.get('retry-after')).toBe(String(s.config.quoteRetryAfterSeconds));
    expect(r.json.error.retryAfterSeconds).toBe(s.config.quoteRetryAfterSeconds);
  });
});

describe('public reads', () => {
  it('the coverage report never authorizes a request', async () => {
    const r = await call(`${s.url}/v4/chains/4663/launch-coverage`);
    expect(r.status).toBe(200);
    expect(r.json.requestAuthorization).toEqual({ requestAuthorized: false });
    expect(r.json.structuralFormat.tokenAndHookMayShareAddress).toBe(false);
  });

  // This in-process server runs the chain-free gates and no chain gate (no chain deployment is bound).
  it('the coverage report says what this server runs, and obligations come from the finding table', async () => {
    const r = await call(`${s.url}/v4/chains/4663/launch-coverage`);
    const coverage = Object.fromEntries(
      r.json.verifierCoverage.map((v: { verifierId: string; coverage: string }) => [v.verifierId, v.coverage]),
    );
    for (const id of ['request.schema', 'request.rules', 'metadata.image', 'static.baseline']) {
      expect(coverage[id], id).not.toBe('not_covered');
    }
    for (const id of ['hook.callbacks', 'external.references', 'router.simulation']) {
      expect(coverage[id], id).toBe('not_covered');
    }
    const router = r.json.verifierCoverage.find((v: { verifierId: string }) => v.verifierId === 'router.simulation');
    expect(router.description).toContain('CHAIN_NOT_CONFIGURED');
    expect(r.json.findingObligations.map((o: { code: string }) => o.code)).toEqual(Object.keys(findingCodes));
  });

  it('the launch guide names the workflow and recovery from the error table', async () => {
    const r = await call(`${s.url}/v4/chains/4663/launch-guide`);
    expect(r.status).toBe(200);
    expect(r.json.schemaVersion).toBe('platform.l2-launch-guide.v1');
    expect(r.json.errorRecovery.find((e: { code: string }) => e.code === 'RATE_LIMITED').retry).toBe(
      'same_bytes_after_retry_after',
    );
    // Every code the guide cites is a real one: a finding or an error code.
    const cited = r.json.scenarioAssessments.flatMap((a: { findingCodes: string[] }) => a.findingCodes);
    expect(cited.length).toBeGreaterThan(0);
    for (const code of cited) expect(code in findingCodes || code in errorTable, code).toBe(true);
    for (const e of r.json.errorRecovery) expect(e.code in errorTable, e.code).toBe(true);
  });

  it('readiness reports ready with its checks', async () => {
    const r = await call(`${s.url}/readyz`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'ready', checks: [{ name: 'database', ok: true, reason: null }] });
  });

  it('capabilities report the enforced limits and the fee policy', async () => {
    const r = await call(`${s.url}/v4/chains/4663/capabilities`);
    expect(r.status).toBe(200);
    expect(r.json.limits.admission).toEqual({
      newRequestsPerHour: s.config.admissionPerHour,
      newRequestsPerDay: s.config.admissionPerDay,
      exactReplaysConsume: false,
    });
    expect(r.json.feePolicy).toMatchObject({ policyId: 'Native20', feeBps: 20, rounding: 'up_to_next_wei' });
  });
});

describe('a locked database', () => {
  it('answers a retryable 503 UNAVAILABLE with Retry-After and persists nothing', async () => {
    const locked = await startServer({ busyTimeoutMs: 50 });
    const lockedKey = locked.key();
    const other = new Database(locked.config.databasePath);
    other.exec('BEGIN IMMEDIATE');
    try {
      const r = await call(`${locked.url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: auth(lockedKey, { 'Idempotency-Key': 'locked-database-key' }),
        body: exampleBytes(v4Example),
      });
      expectApiError(r, 503, 'UNAVAILABLE', true);
      expect(r.headers.get('retry-after')).toBe('1');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((locked.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n).toBe(0);
    await locked.close();
  });
});

describe('a bounded 500', () => {
  it('carries the request id and no secret, stack or internal message; the log has the request id', async () => {
    const broken = await startServer();
    const brokenKey = broken.key();
    const capture = captureLogs();
    const logged = capture.lines;
    broken.db.close();
    try {
      const r = await call(`${broken.url}/v4/chains/4663/custom-launches`, { headers: auth(brokenKey) });
      expectApiError(r, 500, 'INTERNAL');
      expect(r.text).not.toContain(brokenKey);
      expect(r.text).not.toMatch(/at .*\.ts:\d+|database|sqlite|Error:/i);
      expect(logged.join('\n')).toContain(r.json.error.requestId);
      expect(logged.join('\n')).not.toContain(brokenKey);
    } finally {
      capture.restore();
      await broken.close().catch(() => undefined);
    }
  });
});
