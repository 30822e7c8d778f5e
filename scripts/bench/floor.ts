/*
 * A baseline server of the bench, run as its own process by scripts/bench/servers.ts (`node --import tsx
 * scripts/bench/floor.ts`), so it competes with the app on equal terms. BENCH_FLOOR picks it:
 * - `express`, the framework floor: Express 5 and express-openapi-validator over the same dereferenced service spec
 *   the app loads (src/http/app.ts loadServiceSpec), the app's body limit and validateResponses setting, and no auth,
 *   budgets or project code; GET getCustomLaunchV4 answers the fixed bytes of one launch, POST createCustomLaunchV4
 *   a fixed 202 body.
 * - `express-memo`: the same floor with the validator's metadata step memoized as the app memoizes it
 *   (src/http/route-match.ts): the stock step compiles every path template on every request, which the app no longer
 *   does, so beside this floor the project's own work per request shows whole.
 * - `bare`: node:http, one indexed read of the launch row from the app's SQLite file (DATABASE_PATH), then the same
 *   bytes.
 * It logs `{"msg":"bench floor listening","url":...}` and stops on SIGTERM or SIGINT.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadConfig } from '../../src/config.ts';
import { launchSelect } from '../../src/domain/launches/launch-resource.ts';
import { loadServiceSpec } from '../../src/http/app.ts';
import { compileRoute, pathMatcher, type UniqueRoute, withMemoizedMetadata } from '../../src/http/route-match.ts';
import { openReadOnlyDatabase } from '../../src/store/db.ts';

const config = loadConfig();
const kind = process.env.BENCH_FLOOR;
const getBytes = readFileSync(process.env.BENCH_FLOOR_GET_BODY ?? '', 'utf8');
const createBytes = readFileSync(process.env.BENCH_FLOOR_CREATE_BODY ?? '', 'utf8');

/** The app's match of a request to its one path template, for the memoized metadata step (`express-memo`). */
function uniqueRoutes(): { prepare: RequestHandler; unique: (req: Request) => UniqueRoute } {
  const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
  const operations = Object.entries(loadServiceSpec().paths).flatMap(([path, item]) =>
    methods.filter((m) => item[m]).map((method) => ({ method, path, compiled: compileRoute(path) })),
  );
  const match = pathMatcher(operations);
  const found = new WeakMap<Request, UniqueRoute>();
  return {
    prepare: (req, _res, next) => {
      found.set(req, match(req).unique);
      next();
    },
    unique: (req) => found.get(req),
  };
}

function expressFloor(memoized: boolean): Server {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const routes = memoized ? uniqueRoutes() : null;
  if (routes) app.use(routes.prepare);
  app.use(
    express.json({ limit: config.v4BodyLimitBytes, type: ['application/json', 'application/*+json'], strict: false }),
  );
  const validator = OpenApiValidator.middleware({
    apiSpec: structuredClone(loadServiceSpec()) as never,
    validateApiSpec: true,
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: config.validateResponses ? { onError: undefined } : false,
    ajvFormats: { mode: 'full' },
    ignoreUndocumented: false,
    validateSecurity: false,
  }) as unknown as RequestHandler[];
  app.use(routes ? withMemoizedMetadata(validator, routes.unique) : validator);
  // With response validation on, the validator sees the body only through res.json.
  const answer = (res: Response, status: number, bytes: string) =>
    config.validateResponses
      ? res.status(status).json(JSON.parse(bytes))
      : res.status(status).type('application/json').send(bytes);
  app.get('/v4/chains/:chainId/custom-launches/:launchId', (_req, res) => answer(res, 200, getBytes));
  app.post('/v4/chains/:chainId/custom-launches', (_req, res) => answer(res, 202, createBytes));
  app.use((err: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ code: 'FLOOR_ERROR', message: err.message ?? 'error' });
  });
  return app.listen(0, '127.0.0.1');
}

function bareFloor(): Server {
  const db = openReadOnlyDatabase(config.databasePath);
  const select = db.prepare(`${launchSelect} WHERE l.chain_id = ? AND l.launch_id = ?`);
  const prefix = '/v4/chains/4663/custom-launches/';
  return createServer((req, res) => {
    const row = req.url?.startsWith(prefix) ? select.get('4663', req.url.slice(prefix.length)) : undefined;
    if (!row) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"code":"NOT_FOUND"}');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(getBytes);
  }).listen(0, '127.0.0.1');
}

if (kind !== 'express' && kind !== 'express-memo' && kind !== 'bare')
  throw new Error(`BENCH_FLOOR must be express, express-memo or bare, got "${kind}"`);
const server = kind === 'bare' ? bareFloor() : expressFloor(kind === 'express-memo');
server.once('listening', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'bench floor listening',
      kind,
      url: `http://127.0.0.1:${port}`,
      pid: process.pid,
    }),
  );
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
