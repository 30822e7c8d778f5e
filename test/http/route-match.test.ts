import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceSpec } from '../../src/http/app.ts';
import { compileRoute, memoizedMetadata, pathMatcher, type UniqueRoute } from '../../src/http/route-match.ts';

// src/http/route-match.ts: the validator's metadata step, memoized per operation, sets on every request what the stock
// step sets (the same route, schema and path parameters), and the stock step still answers what the memo cannot.
const spec = loadServiceSpec();
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  methods.filter((m) => item[m]).map((method) => ({ method, path, compiled: compileRoute(path) })),
);

/** The validator's first two steps (path parameters, metadata) over the service spec, stock. */
function validatorSteps(): RequestHandler[] {
  const steps = OpenApiValidator.middleware({
    apiSpec: structuredClone(spec) as never,
    validateApiSpec: false,
    validateRequests: false,
    validateResponses: false,
    ignoreUndocumented: false,
  }) as unknown as RequestHandler[];
  const at = steps.findIndex((s) => s.name === 'metadataMiddleware');
  return steps.slice(0, at + 1);
}

type Summary = { status: number; body: unknown };

/** An app that answers what the metadata step set: the route, the path parameters and a digest of the schema. */
function captureApp(steps: RequestHandler[], prepare?: RequestHandler): express.Express {
  const app = express();
  if (prepare) app.use(prepare);
  app.use(steps);
  app.use((req: Request, res: Response) => {
    const openapi = (req as Request & { openapi?: Record<string, unknown> }).openapi;
    if (!openapi) return res.json({ openapi: null });
    const { schema, _responseSchema, ...rest } = openapi;
    const digest = (v: unknown) =>
      v === undefined ? null : createHash('sha256').update(JSON.stringify(v)).digest('hex');
    return res.json({ ...rest, params: req.params, schema: digest(schema), responseSchema: digest(_responseSchema) });
  });
  app.use((err: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ error: err.message });
  });
  return app;
}

describe('the memoized metadata step of the validator', () => {
  const servers: Server[] = [];
  let stockUrl = '';
  let memoUrl = '';
  let stockRuns = 0;
  const listen = (app: express.Express) =>
    new Promise<string>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
      });
      servers.push(server);
    });

  beforeAll(async () => {
    stockUrl = await listen(captureApp(validatorSteps()));
    const steps = validatorSteps();
    const metadata = steps.pop() as RequestHandler;
    const counted: RequestHandler = (req, res, next) => {
      stockRuns += 1;
      return metadata(req, res, next);
    };
    const match = pathMatcher(operations);
    const unique = new WeakMap<Request, UniqueRoute>();
    const prepare: RequestHandler = (req, _res, next) => {
      unique.set(req, match(req).unique);
      next();
    };
    memoUrl = await listen(captureApp([...steps, memoizedMetadata(counted, (req) => unique.get(req))], prepare));
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  const send = async (base: string, method: string, path: string): Promise<Summary> => {
    const r = await fetch(`${base}${path}`, { method: method.toUpperCase() });
    return { status: r.status, body: await r.json() };
  };
  /** Every template with its parameters filled by `value`. */
  const fill = (template: string, value: string) => template.replace(/\{[^}]+\}/g, value);

  const variants: Array<[string, (template: string) => string]> = [
    ['plain values', (t) => fill(t, '4663')],
    ['a percent-encoded value', (t) => fill(t, 'a%20b%2Fc')],
    ['a trailing slash', (t) => `${fill(t, 'x1')}/`],
    ['upper case', (t) => fill(t, 'Ab').toUpperCase()],
    ['a query', (t) => `${fill(t, 'q')}?limit=1`],
    ['a malformed escape', (t) => fill(t, '%E0%A4%A')],
  ];

  // `serial` numbers the validator instance that set the metadata: each app's own, compared within the app.
  const withoutSerial = ({ status, body }: Summary): Summary => {
    const { serial: _serial, ...rest } = (body ?? {}) as Record<string, unknown>;
    return { status, body: rest };
  };

  it.each(variants)('sets what the stock step sets for every operation, with %s', async (_name, pathOf) => {
    for (const op of operations) {
      const path = pathOf(op.path);
      const stock = await send(stockUrl, op.method, path);
      // The first request of an operation may run the stock step; the second is served from the memo.
      const first = await send(memoUrl, op.method, path);
      expect(withoutSerial(first), `${op.method} ${path}`).toEqual(withoutSerial(stock));
      expect(await send(memoUrl, op.method, path), `${op.method} ${path}`).toEqual(first);
    }
  });

  it('runs the stock step only for the first request of an operation when one template matches', async () => {
    const path = '/v4/chains/4663/custom-launches/0e6f2a3c-5b1d-4c8e-9f00-1a2b3c4d5e6f';
    await send(memoUrl, 'get', path);
    const before = stockRuns;
    for (let i = 0; i < 5; i++) await send(memoUrl, 'get', path.replace('5e6f', `5e6${i}`));
    expect(stockRuns).toBe(before);
  });

  it('leaves to the stock step a path two templates match, a method of no operation and an unknown path', async () => {
    const cases: Array<[string, string]> = [
      ['get', '/v4/chains/4663/custom-launches/preflight'],
      ['delete', '/v4/chains/4663/custom-launches'],
      ['get', '/v9/unknown'],
    ];
    for (const [method, path] of cases) {
      const stock = withoutSerial(await send(stockUrl, method, path));
      const before = stockRuns;
      expect(withoutSerial(await send(memoUrl, method, path))).toEqual(stock);
      expect(withoutSerial(await send(memoUrl, method, path))).toEqual(stock);
      expect(stockRuns - before, `${method} ${path}`).toBe(2);
    }
  });
});
