/*
 * `npm run bench`: throughput of the real app on loopback, measured with autocannon (32 connections, BENCH_SECONDS
 * per scenario, default 10). Prints figures; never fails on them. Scenarios: the validated V4 GET of one launch, the
 * V4 create with a fresh Idempotency-Key per request (each once with response validation off, once on), and a bare
 * node:http handler that reads the same row from the same SQLite file, as the floor the framework is compared to.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type LaunchRow, launchSelect, toLaunchResource } from '../../src/domain/launches/launch-resource.ts';
import {
  type AutocannonRequest,
  closeServer,
  connections,
  type Figure,
  listen,
  measure,
  type Running,
  seconds,
  startApp,
} from './harness.ts';

const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const exampleBody = readFileSync(
  new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url),
  'utf8',
);

/** The floor: node:http plus one prepared better-sqlite3 read of the same row, as the same resource JSON. */
async function startBare(databasePath: string): Promise<Running> {
  const db = new Database(databasePath, { readonly: true });
  const select = db.prepare(`${launchSelect} WHERE l.chain_id = ? AND l.launch_id = ?`);
  const prefix = '/v4/chains/4663/custom-launches/';
  const server = createServer((req, res) => {
    const row = req.url?.startsWith(prefix)
      ? (select.get('4663', req.url.slice(prefix.length)) as LaunchRow | undefined)
      : undefined;
    if (!row) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(toLaunchResource(row)));
  });
  const url = await listen(server);
  return {
    url,
    close: async () => {
      await closeServer(server);
      db.close();
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'custom-launch-bench-'));
  const base: Config = {
    ...loadConfig({}),
    databasePath: join(dir, 'bench.sqlite'),
    // Budgets and admission limits far above what a run can reach, so the figures measure work, not refusals.
    routeBudgetPerMinute: 1_000_000_000,
    admissionPerHour: 1_000_000_000,
    admissionPerDay: 1_000_000_000,
    validateResponses: false,
  };
  const running: Running[] = [];
  try {
    const plain = await startApp(base);
    running.push(plain);
    const checked = await startApp({ ...base, validateResponses: true });
    running.push(checked);
    const { apiKey } = mintWalletKey(plain.db, {
      wallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    });
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${plain.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': `bench-seed-${randomUUID()}` },
      body: exampleBody,
    });
    if (created.status !== 202) throw new Error(`seed create answered ${created.status}: ${await created.text()}`);
    const { launchId } = (await created.json()) as { launchId: string };
    const bare = await startBare(base.databasePath);
    running.push(bare);

    const getPath = `/v4/chains/4663/custom-launches/${launchId}`;
    const get = (url: string) => ({ url: `${url}${getPath}`, connections, duration: seconds, headers });
    let counter = 0;
    const create = (url: string) => ({
      url,
      connections,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/v4/chains/4663/custom-launches',
          headers,
          body: exampleBody,
          setupRequest: (request: AutocannonRequest) => {
            counter += 1;
            const key = `bench-${process.pid}-${counter.toString().padStart(10, '0')}`;
            return { ...request, headers: { ...headers, 'Idempotency-Key': key } };
          },
        },
      ],
    });

    console.log(
      `custom-launch-api throughput: loopback, ${connections} connections, ${seconds} s per scenario; ` +
        'route budget and admission limits raised to 1e9 for the run.',
    );
    console.log(
      'The app runs twice: validateResponses=false (production default) and validateResponses=true (tests/CI).',
    );
    const figures: Figure[] = [];
    figures.push(await measure('bare node:http + better-sqlite3 GET', get(bare.url)));
    figures.push(await measure('app GET launch (validateResponses=false)', get(plain.url)));
    figures.push(await measure('app GET launch (validateResponses=true)', get(checked.url)));
    figures.push(await measure('app POST create (validateResponses=false)', create(plain.url)));
    figures.push(await measure('app POST create (validateResponses=true)', create(checked.url)));

    const [bareGet, plainGet, checkedGet] = figures as [Figure, Figure, Figure, ...Figure[]];
    const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 100) / 100);
    const ratios = {
      bareOverValidatedGet: {
        validateResponsesFalse: {
          requestsPerSecond: ratio(bareGet.requestsPerSecond, plainGet.requestsPerSecond),
          p99: ratio(bareGet.p99Ms, plainGet.p99Ms),
        },
        validateResponsesTrue: {
          requestsPerSecond: ratio(bareGet.requestsPerSecond, checkedGet.requestsPerSecond),
          p99: ratio(bareGet.p99Ms, checkedGet.p99Ms),
        },
      },
    };

    const width = Math.max(...figures.map((f) => f.scenario.length));
    console.log('');
    console.log(
      `${'scenario'.padEnd(width)}  ${'req/s avg'.padStart(10)}  ${'p99 ms'.padStart(7)}  ${'errors/non-2xx'.padStart(14)}`,
    );
    for (const f of figures) {
      console.log(
        `${f.scenario.padEnd(width)}  ${f.requestsPerSecond.toFixed(0).padStart(10)}  ${String(f.p99Ms).padStart(7)}  ${`${f.errors}/${f.non2xx}`.padStart(14)}`,
      );
    }
    console.log('');
    for (const [mode, r] of Object.entries(ratios.bareOverValidatedGet)) {
      console.log(`bare / validated GET (${mode}): requests/s x${r.requestsPerSecond}, p99 x${r.p99}`);
    }
    // Every completed create should have been a fresh 202: the seed plus one launch per completed create.
    const launchesStored = (plain.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
    console.log(
      `launches stored: ${launchesStored} (create requests sent, counting those in flight at stop: ${counter})`,
    );
    console.log('');
    console.log(
      JSON.stringify({
        connections,
        seconds,
        host: '127.0.0.1',
        figures,
        ratios,
        createRequestsSent: counter,
        launchesStored,
      }),
    );
  } finally {
    for (const r of running.reverse()) await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
