import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import type { Config } from '../config.ts';
import { listDeveloperLaunches } from '../domain/developer/launches.ts';
import { developerManifest } from '../domain/developer/manifest.ts';
import { developerStatus } from '../domain/developer/status.ts';
import { developerTokenList } from '../domain/developer/token-list.ts';
import { capabilitiesV4 } from '../domain/public/capabilities.ts';
import { capabilitiesV3 } from '../domain/public/capabilities-v3.ts';
import { discoveryManifest } from '../domain/public/discovery-manifest.ts';
import { readiness } from '../domain/public/readiness.ts';
import { runningGates, writesGate } from '../domain/public/running-gates.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Services } from '../services.ts';
import type { Db } from '../store/db.ts';
import { migrations } from '../store/migrations.ts';
import { loadDereferencedSpec, pathPattern } from './app.ts';
import { errorMiddleware } from './error-middleware.ts';
import { ifNoneMatchNames, strongEtag } from './etag.ts';
import { pageOf } from './operation.ts';
import { RouteBudgets } from './rate-limit.ts';
import { requestId, state } from './request-context.ts';
import { observeRequests, type RequestObserver } from './request-observer.ts';

const specPath = new URL('../../generated/openapi/developer-api.dereferenced.json', import.meta.url);

/** Project design values of spec/openapi/developer-api.openapi.yaml (info.description). */
export const developerCaching = {
  cacheControl: 'public, max-age=30',
  allow: 'GET, HEAD',
  preflightMaxAgeSeconds: 600,
} as const;

/** What the developer API serves with. */
export interface DeveloperAppDeps {
  /** Its own read-only connection to the service's database (openReadOnlyDatabase). */
  db: Db;
  config: Config;
  /** The service's services: the lanes' deployments, capabilities and the deployment evidence state. */
  services: Services;
  /** The V4 lane's chain deployment when the chain gates run (the authorizer's); null otherwise. */
  chainDeployment?: ChainDeploymentV1 | null;
  now?: () => number;
  /** Called once per answered request (the request log and metrics of src/server/serve.ts). */
  observe?: RequestObserver;
}

type DeveloperRead = (query: Record<string, unknown>) => unknown;

/** The four reads by operationId, each over the read-only connection and the services' own answers. */
function developerReads(deps: DeveloperAppDeps): Record<string, DeveloperRead> {
  const { db, config, services } = deps;
  const now = deps.now ?? Date.now;
  const latestMigration = migrations.at(-1)?.version ?? 0;
  const gates = () => runningGates(config, services.evidence?.(), services.priceFeed !== null);
  const v3 = () => capabilitiesV3(config, services.baseDeployment, services.compilerVersion());
  return {
    getDeveloperStatus: () => {
      const running = gates();
      return developerStatus({
        serviceReadiness: readiness(db, latestMigration, now(), services.evidence?.() ?? null).status,
        v4: {
          writesOpen: writesGate(running).open,
          publicWrites: discoveryManifest(config, running, now(), '').versions.v4.publicWrites,
        },
        multiRole: services.multiRoleCapabilities().readiness,
        v3AcceptsNewSubmissions: v3().acceptsNewSubmissions,
      });
    },
    getDeveloperManifest: () =>
      developerManifest({
        chainDeployment: deps.chainDeployment ?? null,
        baseDeployment: services.baseDeployment,
        multiRoleDeployment: services.multiRoleDeployment,
        v4: capabilitiesV4(config, gates()),
        v3: v3(),
        multiRole: services.multiRoleCapabilities(),
      }),
    listDeveloperLaunches: (query) => {
      const { limit, cursor } = pageOf({ query });
      return listDeveloperLaunches(db, limit, cursor);
    },
    getDeveloperTokenList: () => developerTokenList(db),
  };
}

/**
 * The developer API (spec/openapi/developer-api.openapi.yaml) as its own Express app: request ids; CORS and the
 * method rule before validation (OPTIONS preflight 204, HEAD served as GET without a body, any other method 405 with
 * Allow); express-openapi-validator on the dereferenced developer spec (unknown query parameters refused, responses
 * validated when configured); a per-client-address budget per operation; strong ETags, If-None-Match 304 and public
 * caching on every 200; 404 for any other path; and the service's error middleware.
 */
export function createDeveloperApp(deps: DeveloperAppDeps): Express {
  const spec = loadDereferencedSpec(specPath);
  const reads = developerReads(deps);
  const operations = Object.entries(spec.paths).map(([path, item]) => ({
    path,
    operationId: item.get?.operationId ?? '',
    pattern: pathPattern(path),
  }));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  if (deps.observe) app.use(observeRequests(deps.observe));
  app.use(corsAndMethods(operations.map((o) => o.pattern)));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(spec) as never,
      validateApiSpec: true,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: deps.config.validateResponses ? { onError: undefined } : false,
      ajvFormats: { mode: 'full' },
      ignoreUndocumented: false,
    }),
  );
  const budgets = new RouteBudgets(deps.config.routeBudgetPerMinute, deps.now ?? Date.now);
  for (const op of operations) {
    const read = reads[op.operationId];
    if (!read) throw new Error(`the developer spec operation ${op.operationId} has no read`);
    app.get(op.path, serveRead(op.operationId, read, budgets));
  }
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ApiError('NOT_FOUND')));
  app.use(errorMiddleware);
  return app;
}

/** The CORS headers of every answer of this origin, those Node makes before Express included (answerClientErrors). */
export const developerCorsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, X-Request-Id, Retry-After',
} as const;

/**
 * Every answer of this origin may be read by any web origin, and an error is never cached. On the spec's paths an
 * OPTIONS preflight answers 204, HEAD continues as GET (Node sends no body for a HEAD request whatever the handler
 * writes), and any other method but GET is 405 with Allow.
 */
function corsAndMethods(patterns: readonly RegExp[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of Object.entries(developerCorsHeaders)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    if (!patterns.some((p) => p.test(req.path))) return next();
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', developerCaching.allow);
      res.setHeader('Access-Control-Allow-Headers', 'If-None-Match');
      res.setHeader('Access-Control-Max-Age', String(developerCaching.preflightMaxAgeSeconds));
      res.removeHeader('Cache-Control');
      res.status(204).end();
      return;
    }
    if (req.method === 'HEAD') req.method = 'GET';
    if (req.method !== 'GET') {
      return next(new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: developerCaching.allow } }));
    }
    return next();
  };
}

/** One read: its budget, then the body with its ETag and caching headers, or 304 when the client's copy is current. */
function serveRead(operationId: string, read: DeveloperRead, budgets: RouteBudgets): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    state(res).operationId = operationId;
    try {
      await budgets.take(operationId, req.socket.remoteAddress ?? 'unknown');
      const body = read(req.query as Record<string, unknown>);
      // res.json writes exactly JSON.stringify(body) (no replacer or spacing is set), so the tag names the sent bytes.
      const etag = strongEtag(JSON.stringify(body));
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', developerCaching.cacheControl);
      if (ifNoneMatchNames(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
      res.status(200).json(body);
    } catch (err) {
      next(err);
    }
  };
}
