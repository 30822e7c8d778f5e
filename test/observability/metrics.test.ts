import type { Server } from 'node:http';
import { createPublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerTransport } from '../../src/chain/provider-transport.ts';
import { processMetricsText, recordRequest, setTrackerLag } from '../../src/observability/metrics.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { storeCountsReader } from '../../src/store/metric-counts.ts';
import { closeLoopback, listenLoopback } from '../support/http.ts';
import { parsePrometheusText } from '../support/prometheus.ts';

/*
 * The metrics' parts in one process (src/observability/metrics.ts, docs/configuration.md Metrics): the labels of a
 * request, the tracker lag's removal, a provider's failures by kind, the store's counts; and the strictness of the
 * test's own parser of the exposition format (test/support/prometheus.ts). The test worker's registry is shared with
 * the other files it runs, so each check compares a value before and after.
 */

/** The value of the sample `name` with exactly `labels` in this process's exposition (0 when absent). */
async function valueNow(name: string, labels: Record<string, string>): Promise<number> {
  const families = parsePrometheusText(await processMetricsText());
  const want = JSON.stringify(Object.entries(labels).sort());
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want) return s.value;
    }
  }
  return 0;
}

describe('the request metrics', () => {
  it('label a request by operationId and status, `none` without an operation, `aborted` for a client gone', async () => {
    const rows: Array<[Parameters<typeof recordRequest>[0], Record<string, string>]> = [
      [
        { operationId: 'getReadiness', status: 200, durationMs: 1.5 },
        { operation: 'getReadiness', status: '200' },
      ],
      [
        { status: 404, durationMs: 0.2 },
        { operation: 'none', status: '404' },
      ],
      [
        { operationId: 'createCustomLaunchV4', status: 200, durationMs: 3, aborted: true },
        { operation: 'createCustomLaunchV4', status: 'aborted' },
      ],
    ];
    for (const [observation, labels] of rows) {
      const before = await valueNow('custom_launch_http_requests_total', labels);
      const observed = await valueNow('custom_launch_http_request_duration_seconds_count', {
        operation: labels.operation as string,
      });
      recordRequest(observation);
      expect(await valueNow('custom_launch_http_requests_total', labels)).toBe(before + 1);
      expect(
        await valueNow('custom_launch_http_request_duration_seconds_count', { operation: labels.operation as string }),
      ).toBe(observed + 1);
    }
  });

  it("removes a stopped tracker's lag and never shows a negative one", async () => {
    setTrackerLag('v3', '1', 7n);
    expect(await valueNow('custom_launch_tracker_lag_blocks', { lane: 'v3', chain: '1' })).toBe(7);
    setTrackerLag('v3', '1', -2n);
    expect(await valueNow('custom_launch_tracker_lag_blocks', { lane: 'v3', chain: '1' })).toBe(0);
    setTrackerLag('v3', '1', null);
    expect(await processMetricsText()).not.toContain('custom_launch_tracker_lag_blocks{lane="v3"');
  });
});

describe('a chain provider transport', () => {
  let provider: { url: string; server: Server };
  let answer: 'down' | 'error' | 'silent' | 'ok' = 'ok';

  beforeAll(async () => {
    provider = await listenLoopback((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        if (answer === 'down') res.writeHead(503).end('down');
        else if (answer === 'error')
          res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'no' } }));
        else if (answer === 'ok') res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x2a' }));
      });
    });
  });
  afterAll(() => closeLoopback(provider.server));

  it('counts each request and each failure by kind under its chain and position, never its URL', async () => {
    const url = `${provider.url}/v2/SECRET-KEY?key=SECRET-KEY`;
    const client = createPublicClient({
      transport: providerTransport(url, { chain: '4663', position: 1 }, { retryCount: 0, timeout: 300 }),
    });
    const at = { chain: '4663', provider: '1' };
    const rows: Array<[typeof answer, 'timeout' | 'http' | 'rpc' | null]> = [
      ['ok', null],
      ['down', 'http'],
      ['error', 'rpc'],
      ['silent', 'timeout'],
    ];
    for (const [given, kind] of rows) {
      answer = given;
      const sent = await valueNow('custom_launch_chain_rpc_requests_total', at);
      const failed = kind ? await valueNow('custom_launch_chain_rpc_errors_total', { ...at, kind }) : 0;
      const outcome = await client.getBlockNumber({ cacheTime: 0 }).then(
        () => null,
        () => 'failed',
      );
      expect(outcome, given).toBe(kind === null ? null : 'failed');
      expect(await valueNow('custom_launch_chain_rpc_requests_total', at), given).toBe(sent + 1);
      if (kind) expect(await valueNow('custom_launch_chain_rpc_errors_total', { ...at, kind }), given).toBe(failed + 1);
    }
    expect(await processMetricsText()).not.toContain('SECRET-KEY');
  });
});

describe('the store counts', () => {
  let db: Db;
  beforeAll(() => {
    db = openDatabase(':memory:');
    db.prepare(
      `INSERT INTO api_keys (key_id, key_hash, kind, scopes, chains, lineage_id, created_at)
         VALUES ('k', 'h', 'wallet', '[]', '[]', 'l', 'x')`,
    ).run();
  });
  afterAll(() => db.close());

  const launch = (id: string, status: string) =>
    db
      .prepare(
        `INSERT INTO launches (launch_id, chain_id, lineage_id, owner_key_id, profile, status, launch_wallet,
           request_digest, launch_intent_hash, request_bytes, created_at, updated_at)
           VALUES (?, '4663', 'l', 'k', '4.1.0', ?, 'w', 'd', ?, x'00', 'x', 'x')`,
      )
      .run(id, status, `intent-${id}`);
  const history = (id: string, lane: string, status: string) =>
    db
      .prepare(
        `INSERT INTO history_launches (lane, launch_id, launch_wallet, status, record_json, import_id, imported_at)
           VALUES (?, ?, 'w', ?, '{}', 'i', 'x')`,
      )
      .run(lane, id, status);

  it('count launches by lane and status, history added after a first read included, and the queues', async () => {
    const read = storeCountsReader(db);
    expect((await read()).launches).toEqual([]);
    launch('a', 'finalized');
    launch('b', 'finalized');
    launch('c', 'validating');
    history('h1', 'v2', 'finalized');
    db.prepare(
      `INSERT INTO lifecycle_jobs (launch_id, state, max_attempts, updated_at) VALUES ('c', 'retry_wait', 0, 'x')`,
    ).run();
    const first = await read();
    expect(first.launches).toEqual([
      { lane: 'v4', status: 'finalized', count: 2 },
      { lane: 'v4', status: 'validating', count: 1 },
      { lane: 'v2', status: 'finalized', count: 1 },
    ]);
    expect(first.lifecycleJobs.filter((j) => j.count > 0)).toEqual([{ lane: 'v4', state: 'retry_wait', count: 1 }]);
    expect(first.lifecycleJobs).toHaveLength(9);
    expect(first.moduleReviews.map((r) => r.count)).toEqual([0, 0, 0]);
    history('h2', 'v2', 'finalized');
    history('h3', 'v1', 'failed');
    expect((await read()).launches.slice(2)).toEqual([
      { lane: 'v2', status: 'finalized', count: 2 },
      { lane: 'v1', status: 'failed', count: 1 },
    ]);
  });

  it('reads every table through an index (or the history by its rowid), never by a full scan', async () => {
    const fresh = openDatabase(':memory:');
    const prepared: string[] = [];
    const prepare = fresh.prepare.bind(fresh);
    fresh.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof fresh.prepare;
    try {
      await storeCountsReader(fresh)();
      expect(prepared.length).toBeGreaterThan(5);
      for (const sql of prepared) {
        const params = new Array((sql.match(/\?/g) ?? []).length).fill(0);
        const plan = (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map(
          (row) => row.detail,
        );
        expect(
          plan.filter((detail) => /^SCAN (?!\()/.test(detail)),
          sql,
        ).toEqual([]);
      }
    } finally {
      fresh.close();
    }
  });
});

describe('the test parser of the exposition format', () => {
  const rows: Array<[string, string, string | null]> = [
    ['a counter with labels', '# TYPE a_total counter\na_total{x="1",y="a\\"b\\\\c\\nd"} 2\n', null],
    ['NaN and Inf as Go reads them', 'a Nan\nb +Inf\nc -inf\nd 1e-3 1700000000000\n', null],
    ['no final line feed', 'a 1', 'line feed'],
    ['a bad name', '1a 1\n', 'no metric name'],
    ['a bad value', 'a one\n', 'no value'],
    ['an unquoted label value', 'a{x=1} 1\n', 'not quoted'],
    ['an unknown escape', 'a{x="\\t"} 1\n', 'label escape'],
    ['a label named twice', 'a{x="1",x="2"} 1\n', 'given twice'],
    ['a series given twice', 'a{x="1"} 1\na{x="1"} 2\n', 'given twice'],
    ['a TYPE after samples', 'a 1\n# TYPE a gauge\n', 'after its samples'],
    ['a family split', 'a 1\nb 1\na{x="1"} 1\n', 'not together'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\n', 'without le'],
    ['a suffix the type has not', '# TYPE g gauge\ng_count 1\ng 1\n', 'not together'],
  ];
  it.each(rows)('%s', (_name, given, want) => {
    if (want === null) expect(() => parsePrometheusText(given)).not.toThrow();
    else expect(() => parsePrometheusText(given)).toThrow(want);
  });
});
