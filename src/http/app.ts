import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { authenticate, authenticateModules } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { ExternalReferenceBinder } from '../domain/launches/preflight.ts';
import type { EvidenceStateKind } from '../domain/public/deployment-evidence-check.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Db } from '../store/db.ts';
import { errorMiddleware, logInternal } from './error-middleware.ts';
import type { OperationContext, OperationHandler, OperationResult } from './operation.ts';
import { PartnerBudgets, RouteBudgets } from './rate-limit.ts';
import { requestId, state } from './request-context.ts';
import { buildOperations } from './routes/index.ts';

const specPath = new URL('../../generated/openapi/service.dereferenced.json', import.meta.url);
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** The per-file bound of sourceBundleManifest (custom-launch-create-request.v4 SourceBundleFile.byteLength). */
const sourceFileLimitBytes = 5_242_880;
const sourceFilePath = /^\/v4\/chains\/[^/]+\/custom-launches\/[^/]+\/source-files\/[^/]+$/;

interface SpecOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
}
type SpecDocument = { paths: Record<string, Partial<Record<(typeof methods)[number], SpecOperation>>> };

/** The dereferenced service spec, without `$id`, as express-openapi-validator needs it. */
export function loadServiceSpec(): SpecDocument & Record<string, unknown> {
  const doc = JSON.parse(readFileSync(specPath, 'utf8')) as SpecDocument & Record<string, unknown>;
  delete doc['x-generated'];
  return doc;
}

/** Removes `undefined` members so the response validator and the wire see the same object. */
function stripUndefined(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null));
}

function send(res: Response, result: OperationResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.status(result.status);
  if (result.rawJson !== undefined) {
    res.type('application/json').send(result.rawJson);
  } else if (result.text !== undefined) {
    res.type(result.contentType ?? 'text/plain').send(result.text);
  } else {
    res.json(stripUndefined(result.body));
  }
}

/**
 * Builds the Express 5 app: request ids, JSON parsing with per-route byte limits, the validator fed the
 * dereferenced spec (request validation always, response validation when configured), bearer auth and chain
 * binding as the spec's security handler, per-route budgets, every spec operation routed to its handler or to
 * 501 NOT_IMPLEMENTED, and the one error middleware.
 */
export function createApp(deps: {
  db: Db;
  config: Config;
  now?: () => number;
  /** Replaces every route handler (the validator and auth stay): lets a test observe what the validator admits. */
  operations?: Record<string, OperationHandler>;
  /** The bound deployment evidence's state (issue 7 item 5); absent on a server without chain gates. */
  evidence?: () => EvidenceStateKind;
  /** The module review worker runs in this process (review capabilities' worker authority). */
  reviewWorkerRunning?: () => boolean;
  /** The chain gates' read-only external-reference binding for preflight; absent on a server without chain gates. */
  referenceBinder?: ExternalReferenceBinder | null;
}) {
  const { db, config } = deps;
  const spec = loadServiceSpec();
  const now = deps.now ?? Date.now;
  const budgets = new RouteBudgets(config.routeBudgetPerMinute, now);
  const partnerBudgets = new PartnerBudgets(now);
  const operations =
    deps.operations ??
    buildOperations({
      db,
      config,
      now,
      evidence: deps.evidence,
      reviewWorkerRunning: deps.reviewWorkerRunning,
      referenceBinder: deps.referenceBinder,
    });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  // A deployment that takes no module uploads says so before anything else about the upload is read
  // or checked (not even the body is parsed).
  app.post('/v1/modules/submissions', (_req: Request, _res: Response, next: NextFunction) =>
    next(
      config.modulesSubmissions
        ? undefined
        : new ApiError('MODULE_SUBMISSIONS_UNAVAILABLE', { retryAfterSeconds: 3600 }),
    ),
  );
  const keepRaw = (_req: Request, res: Response, buf: Buffer) => {
    state(res).rawBody = buf;
  };
  // Not strict: any JSON value parses (a bare `0` is valid JSON), and the schema then rejects what is not an object.
  const json = (limit: number) =>
    express.json({ limit, type: ['application/json', 'application/*+json'], verify: keepRaw, strict: false });
  app.use('/v1/modules', json(config.modulesLimits.maxRequestBytes));
  app.use('/v3', json(config.v3BodyLimitBytes));
  // A subkey request is five small fields (project design: 16 KiB is far above any valid body).
  app.use('/v1/partner', json(16_384));
  // A delivered source file is raw bytes, at most the manifest's per-file bound, and never parsed as JSON (a body
  // of another media type then meets the validator's 415, not a JSON parse error).
  const sourceFileBody = express.raw({ type: 'application/octet-stream', limit: sourceFileLimitBytes });
  const v4Json = json(config.v4BodyLimitBytes);
  app.use((req: Request, res: Response, next: NextFunction) =>
    sourceFilePath.test(req.path) ? sourceFileBody(req, res, next) : v4Json(req, res, next),
  );

  app.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(spec) as never,
      validateApiSpec: true,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: config.validateResponses ? { onError: undefined } : false,
      ajvFormats: { mode: 'full' },
      ignoreUndocumented: false,
      validateSecurity: {
        handlers: {
          bearerAuth: (req: Request, scopes: string[]) => {
            const res = req.res as Response;
            try {
              const openapi = (
                req as Request & {
                  openapi?: { pathParams?: Record<string, string>; schema?: { operationId?: string } };
                }
              ).openapi;
              const chainId = openapi?.pathParams?.chainId;
              const principal = req.path.startsWith('/v1/modules/')
                ? authenticateModules(
                    db,
                    req.headers.authorization,
                    scopes,
                    { reviewExport: req.path.endsWith('/review-export') },
                    now(),
                  )
                : authenticate(db, req.headers.authorization, scopes, chainId, now());
              state(res).principal = principal;
              // A partner budget counts every authenticated request of its operations, valid or not.
              partnerBudgets.take(openapi?.schema?.operationId ?? '', principal);
              checkChainBinding(chainId, req.body);
              return true;
            } catch (err) {
              // Anything but a public ApiError (a broken database, say) is an internal failure, never a 401.
              if (!(err instanceof ApiError)) logInternal(state(res).requestId, err);
              state(res).authError = err instanceof ApiError ? err : new ApiError('INTERNAL');
              throw err;
            }
          },
        },
      },
    }),
  );

  for (const [path, item] of Object.entries(spec.paths)) {
    const expressPath = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      const handler: OperationHandler = operations[op.operationId] ?? notImplemented;
      app[method](expressPath, async (req: Request, res: Response, next: NextFunction) => {
        try {
          const s = state(res);
          budgets.take(op.operationId, s.principal?.keyId ?? req.socket.remoteAddress ?? 'unknown');
          const ctx: OperationContext = {
            operationId: op.operationId,
            requestId: s.requestId,
            params: req.params as Record<string, string>,
            query: req.query as Record<string, unknown>,
            headers: req.headers,
            body: req.body,
            rawBody: s.rawBody,
            principal: s.principal,
            listenOrigin: listenOrigin(req.socket.localAddress, req.socket.localPort),
          };
          send(res, await handler(ctx));
        } catch (err) {
          next(err);
        }
      });
    }
  }

  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ApiError('NOT_FOUND')));
  app.use(errorMiddleware);
  return app;
}

/** The http origin of the socket a request arrived on (an IPv6 address in brackets). */
function listenOrigin(address: string | undefined, port: number | undefined): string {
  const host = (address ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${port ?? 0}`;
}

/**
 * A V4 body bound to a chain must name the path's chain (launch-transport.md Endpoints: "it must equal the chain
 * bound in any request body"). Checked before schema validation so a mismatch is a 409, not a 400.
 */
function checkChainBinding(pathChainId: string | undefined, body: unknown): void {
  if (pathChainId === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const bodyChainId = (body as { chainId?: unknown }).chainId;
  if (bodyChainId !== undefined && bodyChainId !== pathChainId) {
    throw new ApiError('CHAIN_MISMATCH', {
      message: `The path chainId ${pathChainId} does not equal the request's chainId ${JSON.stringify(bodyChainId).slice(0, 32)}.`,
    });
  }
}

const notImplemented: OperationHandler = (ctx) => {
  throw new ApiError('NOT_IMPLEMENTED', {
    message: `${ctx.operationId} is in the contract but this deployment does not implement it yet.`,
  });
};

/**
 * Idle keep-alive connections stay open longer than clients keep them (undici and most HTTP clients close an idle
 * socket after about 4 s; proxies after up to 60 s), so the server never closes a socket a client is just reusing,
 * which would fail that request with "other side closed".
 */
export function keepIdleConnections(server: Server): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
