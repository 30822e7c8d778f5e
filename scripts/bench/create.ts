/*
 * Section `create`: the durable create (createCustomLaunchV4, spec/openapi/paths/v4-custom-launches.yaml) of the
 * spec's V4 example, a fresh Idempotency-Key and a distinct intent per request, on the app, beside the framework
 * floor answering the same POST and body with a fixed 202 (its own process), the same floor with the validator's
 * metadata step memoized as the app memoizes it, and a raw better-sqlite3 loop inserting
 * the same bytes into a table of its own, one synchronous=FULL WAL transaction each. The app's 202s are checked
 * against the launches its file holds after the run.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openReadOnlyDatabase } from '../../src/store/db.ts';
import {
  connections,
  createBodySupply,
  createRequest,
  inRounds,
  loadFigure,
  rounds,
  seconds,
  warmUp,
  warmupSeconds,
} from './harness.ts';
import { type BenchFigure, type BenchSection, ratioOf } from './report.ts';
import {
  type AppServer,
  inBenchFolder,
  seedLaunch,
  startAppServer,
  startFloorServer,
  v4,
  validateResponses,
} from './servers.ts';

/** Distinct bodies made ahead per second of load (BENCH_CREATE_RATE, default 1000): above what a create reaches. */
const bodiesPerSecond = Number(process.env.BENCH_CREATE_RATE ?? '1000');

function storedLaunches(databasePath: string): number {
  const db = openReadOnlyDatabase(databasePath);
  try {
    return (db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Inserts `body(i)` for `seconds`, each in its own immediate synchronous=FULL WAL transaction. */
function rawSqliteFigure(path: string, body: (i: number) => string): BenchFigure {
  process.stderr.write(`  raw better-sqlite3 inserts: ${seconds} s\n`);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE raw_launches (seq INTEGER PRIMARY KEY, request_bytes BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO raw_launches (request_bytes) VALUES (?)');
    const write = db.transaction((bytes: Buffer) => insert.run(bytes));
    const started = performance.now();
    const deadline = started + seconds * 1000;
    let rows = 0;
    while (performance.now() < deadline) {
      write.immediate(Buffer.from(body(rows)));
      rows += 1;
    }
    const elapsed = (performance.now() - started) / 1000;
    return {
      id: 'create.rawSqlite',
      label: 'create: raw better-sqlite3 insert, FULL sync',
      value: Math.round(rows / elapsed),
      unit: 'rows/s',
      detail: { rows, msPerRow: Math.round(((elapsed * 1000) / rows) * 1000) / 1000 },
    };
  } finally {
    db.close();
  }
}

/** The app's create figure, with its 202s, the launches its file gained, and what else makes it doubtful. */
async function appFigure(app: AppServer, fresh: () => string): Promise<BenchFigure> {
  const before = storedLaunches(app.databasePath);
  const create = createRequest(v4, app.walletKey, fresh);
  const figure = await loadFigure('create.app', 'create: app createCustomLaunchV4', app, {
    url: app.url,
    connections,
    duration: seconds,
    requests: [create.request],
  });
  const stored = storedLaunches(app.databasePath) - before;
  const accepted = figure.detail?.status202 ?? 0;
  figure.detail = { ...figure.detail, status202: accepted, storedDuringRun: stored, sent: create.sent() };
  const warnings = figure.warnings ?? [];
  const refusal = create.firstRefusal();
  if (refusal) warnings.push(`first answer not 2xx: ${refusal}`);
  // Requests in flight when the load stops may be stored without their 202 counted; fewer rows than 202s is a loss.
  if (stored < accepted) warnings.push(`${accepted} answers 202 but only ${stored} launches stored`);
  if (warnings.length > 0) figure.warnings = warnings;
  return figure;
}

/** Runs the section: the floors, then the app, then the raw SQLite loop. */
export function run(): Promise<BenchSection> {
  return inBenchFolder('create', async (dir, keep) => {
    const app = keep(await startAppServer(dir));
    const supply = createBodySupply((seconds * rounds + warmupSeconds) * bodiesPerSecond);
    const bodies = await seedLaunch(app, supply.fresh());
    const floor = keep(await startFloorServer('express', dir, bodies, app.databasePath));
    const memoFloor = keep(await startFloorServer('express-memo', dir, bodies, app.databasePath));
    let cycled = 0;
    const floorLoad = {
      url: floor.url,
      connections,
      duration: seconds,
      requests: [createRequest(v4, app.walletKey, () => supply.cycle(cycled++)).request],
    };
    const memoFloorLoad = { ...floorLoad, url: memoFloor.url };
    await warmUp(floorLoad);
    await warmUp(memoFloorLoad);
    await warmUp({ ...floorLoad, url: app.url, requests: [createRequest(v4, app.walletKey, supply.fresh).request] });
    const [floorCreate, memoFloorCreate, appCreate] = (await inRounds([
      () => loadFigure('create.floor', 'create: framework floor, no-op 202', floor, floorLoad),
      () => loadFigure('create.floorMemo', 'create: framework floor, metadata memoized', memoFloor, memoFloorLoad),
      () => appFigure(app, supply.fresh),
    ])) as [BenchFigure, BenchFigure, BenchFigure];
    if (supply.madeLate() > 0) {
      const late = `${supply.madeLate()} bodies were made while timing (raise BENCH_CREATE_RATE)`;
      appCreate.warnings = [...(appCreate.warnings ?? []), late];
    }
    const figures = [floorCreate, memoFloorCreate, appCreate, rawSqliteFigure(join(dir, 'raw.sqlite'), supply.cycle)];
    const section: BenchSection = {
      name: 'create',
      figures,
      ratios: [],
      notes: [
        `${connections} connections, ${seconds} s each after a warm-up, the median of ${rounds} round(s) taken in turn; app and floor each their own process`,
        `body: the spec's V4 example with a distinct intent per request (${supply.cycle(0).length} bytes); ` +
          `validateResponses=${validateResponses}`,
      ],
    };
    section.ratios.push(
      ratioOf(section, 'create.app/floor', 'create app / floor (req/s)', 'create.app', 'create.floor', {
        target: '>= 0.7',
      }),
      ratioOf(section, 'create.app/floorMemo', 'create app / memoized floor', 'create.app', 'create.floorMemo'),
      ratioOf(section, 'create.app/raw', 'create app / raw SQLite', 'create.app', 'create.rawSqlite'),
      ratioOf(section, 'create.floor/raw', 'create floor / raw SQLite', 'create.floor', 'create.rawSqlite'),
    );
    return section;
  });
}
