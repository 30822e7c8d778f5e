import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
// Ajv's minLength/maxLength count without walking strings that hold no surrogate pair (before any validator compiles).
import './ajv-string-length.ts';
import { authenticate, authenticateModules } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import { ApiError } from '../errors/api-error.ts';
import { buildServices, type ServiceInputs, type Services } from '../services.ts';
import type { Db } from '../store/db.ts';
import { errorMiddleware, logInternal, storageRefusal } from './error-middleware.ts';
import type {
  BodyPolicy,
  OperationContext,
  OperationHandler,
  OperationResult,
  OperationRoute,
  RouteTable,
} from './operation.ts';
import { PartnerBudgets, RouteBudgets } from './rate-limit.ts';
import { requestId, state } from './request-context.ts';
import { observeRequests, type RequestObserver } from './request-observer.ts';
import { type CompiledRoute, compileRoute, pathMatcher, withMemoizedMetadata } from './route-match.ts';
import { buildRoutes, unmatchedBody } from './routes/index.ts';
import { parsedJsonIssues, strictJsonIssues } from './strict-json.ts';

const specPath = new URL('../../generated/openapi/service.dereferenced.json', import.meta.url);
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface SpecOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
}
export type SpecDocument = { paths: Record<string, Partial<Record<(typeof methods)[number], SpecOperation>>> };

let serviceSpec: (SpecDocument & Record<string, unknown>) | undefined;

/**
 * The dereferenced service spec, without `$id`, as express-openapi-validator needs it: parsed once per process (3 MB
 * of JSON) and never modified (the validator is given its own copy).
 */
export function loadServiceSpec(): SpecDocument & Record<string, unknown> {
  serviceSpec ??= loadDereferencedSpec(specPath);
  return serviceSpec;
}

/** A dereferenced spec of generated/openapi, without its generator stamp, as express-openapi-validator needs it. */
export function loadDereferencedSpec(path: URL): SpecDocument & Record<string, unknown> {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as SpecDocument & Record<string, unknown>;
  delete doc['x-generated'];
  return doc;
}

/** Removes `undefined` members so the response validator and the wire see the same object. */
function stripUndefined(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null));
}

/**
 * Sends an operation's result. A JSON body is serialized once, the bytes res.json would send; only when the validator
 * checks responses (it wraps res.json) does it go through res.json, as the object the wire will carry (a result with
 * both a body and its exact JSON text sends the text unless responses are validated).
 */
function send(res: Response, result: OperationResult, responsesValidated: boolean): void {
  if (result.headers) for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  res.status(result.status);
  if (responsesValidated && result.body !== undefined) {
    res.json(stripUndefined(result.body));
  } else if (result.rawJson !== undefined) {
    res.type('application/json').send(result.rawJson);
  } else if (result.text !== undefined) {
    res.type(result.contentType ?? 'text/plain').send(result.text);
  } else {
    res.type('application/json').send(JSON.stringify(result.body ?? null));
  }
}

/** One operation of the spec with its route and the pattern its path template matches. */
interface RoutedOperation {
  method: (typeof methods)[number];
  path: string;
  operationId: string;
  route: OperationRoute;
  /** The path template as the validator compiles it: its regexp is the pattern requests are matched with. */
  compiled: CompiledRoute;
  parse: RequestHandler;
}

/**
 * Builds the Express 5 app: request ids; each request matched to its spec operation, whose route's gate and body
 * parser run first; the validator fed the dereferenced spec (request validation always, response validation when
 * configured) with the route's bearer authentication and the chain binding as its security handler; per-route
 * budgets; every operation's handler or 501 NOT_IMPLEMENTED; and the one error middleware.
 */
export function createApp(
  deps: Omit<ServiceInputs, 'now'> & {
    now?: () => number;
    /** The services the routes serve with; built here from the other members when absent. */
    services?: Services;
    /** Replaces every route handler (the validator and auth stay): lets a test observe what the validator admits. */
    operations?: Record<string, OperationHandler>;
    /** Called once per answered request (the request log and the request metrics of src/server/serve.ts). */
    observe?: RequestObserver;
  },
): Express {
  const { db, config } = deps;
  const spec = loadServiceSpec();
  const now = deps.now ?? Date.now;
  const services = deps.services ?? buildServices({ ...deps, now });
  const routes = withHandlers(buildRoutes(services), deps.operations);
  const operations = routedOperations(spec, routes);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  if (deps.observe) app.use(observeRequests(deps.observe));
  app.use(prepareRequest(operations, bodyParser(unmatchedBody(config))));
  securityOf.set(app, bearerAuth(db, now, routes, new PartnerBudgets(db, now)));
  app.use(sharedValidator(spec, config.validateResponses));
  const budgets = new RouteBudgets(config.routeBudgetPerMinute, now);
  app.use(dispatch(operations, budgets, config.validateResponses));
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ApiError('NOT_FOUND')));
  app.use(errorMiddleware);
  return app;
}

type BearerAuth = ReturnType<typeof bearerAuth>;

/** Each app's bearer authentication, which the process's one validator calls for the app a request reached. */
const securityOf = new WeakMap<Express, BearerAuth>();

/** The validator of each response-validation setting, built once per process (see sharedValidator). */
const validators = new Map<boolean, RequestHandler[]>();

/**
 * express-openapi-validator over the dereferenced spec (request validation always, response validation when
 * configured), built once per process and setting: its spec check, its crawl of the 3 MB dereferenced spec and its
 * compiled schemas are the same for every app, and cost about a third of a second of CPU each time (a test process
 * builds many apps). The bearer authentication is each app's own, looked up by the app the request reached. Its
 * metadata step is memoized per operation (src/http/route-match.ts): the stock step compiles every path template on
 * every request.
 */
function sharedValidator(spec: SpecDocument, validateResponses: boolean): RequestHandler[] {
  let validator = validators.get(validateResponses);
  if (!validator) {
    const stock = OpenApiValidator.middleware({
      apiSpec: structuredClone(spec) as never,
      validateApiSpec: true,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: validateResponses ? { onError: undefined } : false,
      ajvFormats: { mode: 'full' },
      ignoreUndocumented: false,
      validateSecurity: {
        handlers: {
          bearerAuth: (req, scopes) => {
            const auth = securityOf.get(req.app as Express);
            if (!auth)
              throw new Error('a request reached the validator through an app that registered no authentication');
            return auth(req as Request, scopes);
          },
        },
      },
    });
    validator = withMemoizedMetadata(stock as unknown as RequestHandler[], (_req, res) => state(res).uniqueRoute);
    validators.set(validateResponses, validator);
  }
  return validator;
}

/** The routes with a test's handlers in place of every handler (an operation the test leaves out answers 501). */
function withHandlers(routes: RouteTable, handlers: Record<string, OperationHandler> | undefined): RouteTable {
  if (!handlers) return routes;
  return Object.fromEntries(
    Object.entries(routes).map(([operationId, route]) => [operationId, { ...route, handler: handlers[operationId] }]),
  );
}

/**
 * Every operation of the spec with its route. A spec operation without a route, a route of no spec operation, or a
 * route whose authentication disagrees with the operation's bearerAuth is a broken build, refused at start-up.
 */
function routedOperations(spec: SpecDocument, routes: RouteTable): RoutedOperation[] {
  const operations: RoutedOperation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      const route = routes[op.operationId];
      if (!route) throw new Error(`the spec operation ${op.operationId} has no route`);
      const secured = (op.security ?? []).some((s) => 'bearerAuth' in s);
      if (secured !== (route.auth !== undefined)) {
        throw new Error(`the route of ${op.operationId} must declare auth exactly when the spec declares bearerAuth`);
      }
      const compiled = compileRoute(path);
      operations.push({ method, path, operationId: op.operationId, route, compiled, parse: bodyParser(route.body) });
    }
  }
  const known = new Set(operations.map((o) => o.operationId));
  for (const operationId of Object.keys(routes)) {
    if (!known.has(operationId)) throw new Error(`the route ${operationId} names no operation of the spec`);
  }
  return operations;
}

/** The pattern of a spec path template as Express routes match it: any case, an optional trailing slash. */
export function pathPattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

/**
 * Reads a body as its policy says. JSON bytes must be strict JSON text (src/http/strict-json.ts) before the request
 * goes on, so the request hash over the kept raw bytes and the parsed body read the same document: checked after
 * JSON.parse (which most bodies need nothing more than: parsedJsonIssues), and bytes JSON.parse refuses are scanned
 * for the reason. Any JSON value parses (a bare `0`, and the schema rejects a non-object).
 */
function bodyParser(body: BodyPolicy): RequestHandler {
  if (body.kind === 'raw') return express.raw({ type: body.mediaType, limit: body.limit });
  const parse = express.json({
    limit: body.limit,
    type: ['application/json', 'application/*+json'],
    verify: (_req: Request, res: Response, buf: Buffer) => {
      state(res).rawBody = buf;
    },
    strict: false,
  });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      const raw = state(res).rawBody;
      if (raw) {
        const unparsed = (err as { type?: unknown } | undefined)?.type === 'entity.parse.failed';
        const issues = err ? (unparsed ? strictJsonIssues(raw) : []) : parsedJsonIssues(raw, req.body);
        const first = issues[0];
        if (first) {
          return next(
            new ApiError('MALFORMED_JSON', {
              issues,
              message: `The request body is not strict JSON: ${first.location} ${first.message}`,
            }),
          );
        }
      }
      next(err);
    });
}

/**
 * Before validation: the request's operation (by method and path; a path of another method lends its body policy
 * for the 405) checks its gate, then its body is read. A request of no spec path is read with `unmatched`.
 */
function prepareRequest(operations: readonly RoutedOperation[], unmatched: RequestHandler): RequestHandler {
  const match = pathMatcher(operations);
  return (req: Request, res: Response, next: NextFunction) => {
    const { onPath, exact, unique } = match(req);
    if (exact) {
      state(res).route = exact.route;
      state(res).operationId = exact.operationId;
      state(res).uniqueRoute = unique;
    }
    const refusal = exact?.route.gate?.();
    if (refusal) return next(refusal);
    const parse = (exact ?? onPath[0])?.parse ?? unmatched;
    return parse(req, res, next);
  };
}

type ValidatedRequest = Request & {
  openapi?: { pathParams?: Record<string, string>; schema?: { operationId?: string } };
};

/** The validator's bearerAuth security handler: the operation's route names the authentication. */
function bearerAuth(db: Db, now: () => number, routes: RouteTable, partnerBudgets: PartnerBudgets) {
  return (req: Request, scopes: string[]) => {
    const res = req.res as Response;
    try {
      const openapi = (req as ValidatedRequest).openapi;
      const operationId = openapi?.schema?.operationId ?? '';
      const chainId = openapi?.pathParams?.chainId;
      const auth = routes[operationId]?.auth ?? 'wallet';
      const grantedChain = chainId ?? routes[operationId]?.laneChainId;
      const principal =
        auth === 'wallet'
          ? authenticate(db, req.headers.authorization, scopes, grantedChain, now())
          : authenticateModules(
              db,
              req.headers.authorization,
              scopes,
              { reviewExport: auth !== 'modules' && auth.modules.reviewExport },
              now(),
            );
      state(res).principal = principal;
      // A partner budget counts every authenticated request of its operations, valid or not.
      partnerBudgets.take(operationId, principal);
      checkChainBinding(chainId, req.body);
      return true;
    } catch (err) {
      // A store that refused the budget's count is its retryable 503; anything else but a public ApiError (a broken
      // database, say) is an internal failure, never a 401.
      const refusal = err instanceof ApiError ? err : storageRefusal((err as { code?: unknown } | null)?.code);
      if (!refusal) logInternal(state(res).requestId, err);
      state(res).authError = refusal ?? new ApiError('INTERNAL');
      throw err;
    }
  };
}

/**
 * Runs the operation prepareRequest matched by method and path (the validator admitted the request for that same
 * operation): one lookup instead of Express trying every operation's route in turn. No operation: on to NOT_FOUND.
 */
function dispatch(
  operations: readonly RoutedOperation[],
  budgets: RouteBudgets,
  responsesValidated: boolean,
): RequestHandler {
  const runners = new Map(operations.map((op) => [op.operationId, runOperation(op, budgets, responsesValidated)]));
  return (req: Request, res: Response, next: NextFunction) => {
    const operationId = state(res).operationId;
    const run = operationId === undefined ? undefined : runners.get(operationId);
    if (!run) return next();
    return run(req, res, next);
  };
}

/** The Express handler of one operation: its budget, then its handler (or 501) on the validated input. */
function runOperation(op: RoutedOperation, budgets: RouteBudgets, responsesValidated: boolean): RequestHandler {
  const handler = op.route.handler ?? notImplemented;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const s = state(res);
      await budgets.take(op.operationId, s.principal?.keyId ?? req.socket.remoteAddress ?? 'unknown');
      const ctx: OperationContext = {
        operationId: op.operationId,
        requestId: s.requestId,
        // The validator's decoded path parameters of the operation (every one a string in the spec).
        params: (req as ValidatedRequest).openapi?.pathParams ?? {},
        query: req.query as Record<string, unknown>,
        headers: req.headers,
        body: req.body,
        rawBody: s.rawBody,
        principal: s.principal,
        listenOrigin: listenOrigin(req.socket.localAddress, req.socket.localPort),
      };
      send(res, await handler(ctx), responsesValidated);
    } catch (err) {
      next(err);
    }
  };
}

/** The http origin of the socket a request arrived on (an IPv6 address in brackets). */
function listenOrigin(address: string | undefined, port: number | undefined): string {
  const host = (address ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${port ?? 0}`;
}

/**
 * A body bound to a chain must name the path's chain (a chainId path parameter must equal the chain bound in any
 * request body). Checked before schema validation so a mismatch is a 409 CHAIN_MISMATCH, not a 400.
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
 * which would fail that request with "other side closed". A request's headers and the whole request must arrive
 * within `timeouts` (Config `http`; by default 66 s and Node's 300 s), else 408 REQUEST_TIMEOUT (answerClientErrors).
 * Call it before the server emits `listening`: Node starts its timeout check then.
 */
export function keepIdleConnections(server: Server, timeouts?: Config['http']): Server {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = timeouts?.headersTimeoutMs ?? 66_000;
  server.requestTimeout = timeouts?.requestTimeoutMs ?? 300_000;
  // Node checks both timeouts every connectionsCheckingInterval (30 s by default, kept for the default timeouts): a
  // short timeout needs a closer check to be kept within half of itself.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    30_000,
    Math.max(50, Math.floor(server.headersTimeout / 2)),
  );
  return server;
}
