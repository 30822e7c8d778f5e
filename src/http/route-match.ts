import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { pathToRegexp } from 'path-to-regexp';

/** A spec path template compiled as express-openapi-validator compiles it to match a request. */
export interface CompiledRoute {
  /** The template in Express form (`{chainId}` as `:chainId`), the validator's `expressRoute`. */
  expressRoute: string;
  regexp: RegExp;
  /** The names of the template's parameters, in the order of the regexp's groups. */
  keys: string[];
}

/**
 * Compiles a spec path template exactly as express-openapi-validator's metadata step does on every request
 * (`pathToRegexp(expressRoute, { sensitive: false, strict: false })` of the pinned path-to-regexp: any case, one
 * optional trailing slash, a parameter one segment long), once.
 */
export function compileRoute(template: string): CompiledRoute {
  if (template.includes('*')) throw new Error(`wildcard path templates are not supported: ${template}`);
  const expressRoute = template.replace(/\{([^/}]+)\}/g, ':$1');
  const { regexp, keys } = pathToRegexp(expressRoute, { sensitive: false });
  return { expressRoute, regexp, keys: keys.map((k) => k.name) };
}

/** An operation the app routes: its method, its spec path template and that template compiled. */
export interface MatchableOperation {
  method: string;
  path: string;
  compiled: CompiledRoute;
}

/** What a request's method and path matched: the operations on its path, the one of its method, and uniqueness. */
export interface PathMatch<O extends MatchableOperation> {
  onPath: O[];
  exact: O | undefined;
  /** The route the validator will match too (memoizedMetadata), when exactly one template matched. */
  unique: UniqueRoute;
}

/**
 * Matches requests to `operations` by path, with the regexps the validator compiles. A template's parameters each
 * match one segment, so only templates of as many segments can match; a path that none of them matches (an empty
 * segment, say) is tried against every operation.
 */
export function pathMatcher<O extends MatchableOperation>(operations: readonly O[]): (req: Request) => PathMatch<O> {
  const bySegments = new Map<number, O[]>();
  for (const op of operations) {
    const n = segmentCount(op.path);
    bySegments.set(n, [...(bySegments.get(n) ?? []), op]);
  }
  return (req) => {
    const path = req.path;
    const matches = (o: O) => o.compiled.regexp.test(path);
    const sameLength = (bySegments.get(segmentCount(path)) ?? []).filter(matches);
    const onPath = sameLength.length > 0 ? sameLength : operations.filter(matches);
    const method = req.method.toLowerCase();
    const exact = onPath.find((o) => o.method === method);
    // The validator matches the original URL's path with the same regexps: when that is this path and one template
    // alone matched it, the validator's match is this one.
    const unique: UniqueRoute =
      exact && onPath.every((o) => o.path === exact.path) && validatorPath(req) === path
        ? { key: `${exact.method} ${exact.path}`, route: exact.compiled }
        : undefined;
    return { onPath, exact, unique };
  };
}

/** The number of `/`-separated segments of a path, without a trailing slash (one optional slash matches). */
function segmentCount(path: string): number {
  let n = 0;
  const end = path.endsWith('/') ? path.length - 1 : path.length;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** The path the validator matches: the original URL without its query (express-openapi-validator's lookupRoute). */
export function validatorPath(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** What the validator's metadata step sets on a request, less the path parameters. */
interface RouteMetadata {
  expressRoute: string;
  openApiRoute: string;
  schema: unknown;
  serial: number;
  _responseSchema?: unknown;
}

type OpenApiRequest = Request & { openapi?: RouteMetadata & { pathParams: Record<string, string> } };

/** The one route a request's path matched among every template of the spec, or none; set before validation. */
export type UniqueRoute = { key: string; route: CompiledRoute } | undefined;

/**
 * express-openapi-validator's metadata step, memoized per operation. The stock step compiles the path template of
 * every operation in turn with path-to-regexp on every request until one matches (about a fifth of a validated GET's
 * CPU here; the floor in scripts/bench pays it too). When the app has already matched the request's path to exactly
 * one template (`unique`, with path-to-regexp's own regexp of the same template: the stock step can find no other),
 * the metadata the stock step set for the first request of that operation is reused, with this request's path
 * parameters decoded as the stock step decodes them; otherwise, and for an operation's first request, the stock step
 * runs. test/http/route-match.test.ts compares both for every operation. `metadataStep` is the validator's own
 * middleware (named metadataMiddleware in the pinned express-openapi-validator).
 */
export function memoizedMetadata(
  metadataStep: RequestHandler,
  unique: (req: Request, res: Response) => UniqueRoute,
): RequestHandler {
  const memo = new Map<string, RouteMetadata>();
  return (req: Request, res: Response, next: NextFunction) => {
    const match = unique(req, res);
    const kept = match && memo.get(match.key);
    if (match && kept) {
      const params = pathParams(match.route, validatorPath(req));
      if (params) {
        (req as OpenApiRequest).openapi = { ...kept, pathParams: params };
        req.params = params;
        return next();
      }
    }
    return metadataStep(req, res, (err?: unknown) => {
      const openapi = (req as OpenApiRequest).openapi;
      if (!err && match && openapi && openapi.expressRoute === match.route.expressRoute) {
        const { pathParams: _params, ...metadata } = openapi;
        memo.set(match.key, metadata);
      }
      next(err);
    });
  };
}

/** The decoded path parameters of `path`, or null when it does not match or a parameter does not decode. */
function pathParams(route: CompiledRoute, path: string): Record<string, string> | null {
  const found = route.regexp.exec(path);
  if (!found) return null;
  const params: Record<string, string> = {};
  try {
    for (let i = 0; i < route.keys.length; i++)
      params[route.keys[i] as string] = decodeURIComponent(found[i + 1] ?? '');
  } catch {
    // The stock step answers a malformed escape with its own 400.
    return null;
  }
  return params;
}

/**
 * The validator's middlewares with its metadata step memoized (memoizedMetadata). A validator without a step of that
 * name (another express-openapi-validator release) is refused at start-up rather than run unmemoized.
 */
export function withMemoizedMetadata(
  validator: RequestHandler[],
  unique: (req: Request, res: Response) => UniqueRoute,
): RequestHandler[] {
  const index = validator.findIndex((step) => step.name === 'metadataMiddleware');
  if (index === -1) throw new Error('express-openapi-validator has no metadataMiddleware step to memoize');
  return validator.map((step, i) => (i === index ? memoizedMetadata(step, unique) : step));
}
