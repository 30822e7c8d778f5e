/*
 * Section `get`: the validated GET of one launch (getCustomLaunchV4, spec/openapi/paths/v4-custom-launches.yaml) on
 * the app, beside the framework floor (Express 5 and express-openapi-validator over the same spec, fixed bytes, no
 * auth or budgets), the same floor with the validator's metadata step memoized as the app memoizes it (beside which
 * the project's own work shows whole) and the bare node:http read of the same row, each its own process, 32
 * connections, BENCH_SECONDS each after a warm-up.
 */

import { freshIntent } from '../soak/requests.ts';
import { connections, exampleCreate, inRounds, loadFigure, rounds, seconds, warmUp } from './harness.ts';
import { type BenchSection, ratioOf } from './report.ts';
import type { ServerProcess } from './server-process.ts';
import { inBenchFolder, seedLaunch, startAppServer, startFloorServer, v4, validateResponses } from './servers.ts';

/** Runs the section: the four servers measured one after another while all four run. */
export function run(): Promise<BenchSection> {
  return inBenchFolder('get', async (dir, keep) => {
    const app = keep(await startAppServer(dir));
    const bodies = await seedLaunch(app, freshIntent(exampleCreate).bytes);
    const floor = keep(await startFloorServer('express', dir, bodies, app.databasePath));
    const memoFloor = keep(await startFloorServer('express-memo', dir, bodies, app.databasePath));
    const bare = keep(await startFloorServer('bare', dir, bodies, app.databasePath));
    const load = (server: ServerProcess) => ({
      url: `${server.url}${v4}/${bodies.launchId}`,
      connections,
      duration: seconds,
      headers: { Authorization: `Bearer ${app.walletKey}` },
    });
    for (const server of [bare, floor, memoFloor, app]) await warmUp(load(server));
    const section: BenchSection = {
      name: 'get',
      figures: await inRounds([
        () => loadFigure('get.bare', 'GET: bare node:http, one indexed read', bare, load(bare)),
        () => loadFigure('get.floor', 'GET: framework floor (Express 5 + validator)', floor, load(floor)),
        () => loadFigure('get.floorMemo', 'GET: framework floor, metadata memoized', memoFloor, load(memoFloor)),
        () => loadFigure('get.app', 'GET: app getCustomLaunchV4', app, load(app)),
      ]),
      ratios: [],
      notes: [
        `${connections} connections, ${seconds} s each after a warm-up, the median of ${rounds} round(s) taken in turn; each server its own process`,
        `validateResponses=${validateResponses} on the app and the floor; row of ${bodies.getBytes.length} bytes`,
      ],
    };
    section.ratios.push(
      ratioOf(section, 'get.app/floor', 'GET app / floor (req/s)', 'get.app', 'get.floor', { target: '>= 0.9' }),
      ratioOf(section, 'get.app/floor.p99', 'GET app / floor (p99)', 'get.app', 'get.floor', {
        detail: 'p99',
        target: '<= 1.3',
      }),
      ratioOf(section, 'get.app/floorMemo', 'GET app / memoized floor (req/s)', 'get.app', 'get.floorMemo'),
      ratioOf(section, 'get.floorMemo/floor', 'GET memoized floor / floor (req/s)', 'get.floorMemo', 'get.floor'),
      ratioOf(section, 'get.app/bare', 'GET app / bare (req/s)', 'get.app', 'get.bare'),
      ratioOf(section, 'get.floor/bare', 'GET floor / bare (req/s)', 'get.floor', 'get.bare'),
    );
    return section;
  });
}
