import createClient, { type Client } from 'openapi-fetch';
import type {
  CustomLaunchCreateRequestV4,
  PermitReissueDispositionRequestV1,
  paths,
} from '../../../generated/types/service.ts';
import { checkOrigin } from '../core/origin.ts';
import { checkLaunchId } from './poll.ts';

/** Options of the launch client. */
export interface LaunchClientOptions {
  /** Service origin: https, or http on localhost, 127.0.0.1 or [::1]. No path, query or credentials. */
  baseUrl: string;
  /** API key for authenticated operations; read it from PLATFORM_API_KEY, never a flag or a prompt. */
  apiKey?: string;
  /** fetch implementation (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

/**
 * A typed client for the service origin, over the paths generated from spec/. It never throws on an HTTP status:
 * each call returns `{ data }` or `{ error }` (an ApiError body) with `response`. It throws only on misuse.
 * Redirects are refused, so a key is only ever sent to the configured origin.
 */
export function createLaunchClient(options: LaunchClientOptions) {
  const origin = checkOrigin(options.baseUrl);
  if (options.apiKey !== undefined && !/^[\x21-\x7e]+$/.test(options.apiKey)) {
    throw new TypeError('apiKey must be a single token of printable characters (read it from PLATFORM_API_KEY)');
  }
  const baseFetch = options.fetch ?? globalThis.fetch;
  const client: Client<paths> = createClient<paths>({
    baseUrl: origin,
    fetch: (request: Request) => baseFetch(new Request(request, { redirect: 'error' })),
    headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
  });
  const chain = { chainId: '4663' as const };
  return {
    /** The underlying openapi-fetch client, for operations without a helper below. */
    raw: client,
    readiness: () => client.GET('/readyz'),
    capabilities: () => client.GET('/v4/chains/{chainId}/capabilities', { params: { path: chain } }),
    preflight: (body: CustomLaunchCreateRequestV4) =>
      client.POST('/v4/chains/{chainId}/custom-launches/preflight', { params: { path: chain }, body }),
    /** Create; keep `idempotencyKey` and the exact body together and resend both unchanged on an ambiguous result. */
    create: (body: CustomLaunchCreateRequestV4, idempotencyKey: string) =>
      client.POST('/v4/chains/{chainId}/custom-launches', {
        params: { path: chain, header: { 'Idempotency-Key': idempotencyKey } },
        body,
      }),
    list: (query: { limit?: number; cursor?: string } = {}) =>
      client.GET('/v4/chains/{chainId}/custom-launches', { params: { path: chain, query } }),
    /** Poll with the launchId of the resource; a requestId (or anything else) throws before any request. */
    get: (launchId: string) => {
      checkLaunchId(launchId);
      return client.GET('/v4/chains/{chainId}/custom-launches/{launchId}', {
        params: { path: { ...chain, launchId } },
      });
    },
    /**
     * The controller's permit-reissue decision (decidePermitReissueV4), with the launch's wallet key only; resend an
     * ambiguous result with the same key and body (permitReissueDecisionKey and permitReissueDecisionBytes fix both).
     */
    decidePermitReissue: (launchId: string, body: PermitReissueDispositionRequestV1, idempotencyKey: string) => {
      checkLaunchId(launchId);
      return client.POST('/v4/chains/{chainId}/custom-launches/{launchId}/permit-reissue-disposition', {
        params: { path: { ...chain, launchId }, header: { 'Idempotency-Key': idempotencyKey } },
        body,
      });
    },
    listFinalized: (query: { limit?: number; cursor?: string } = {}) =>
      client.GET('/v4/chains/{chainId}/finalized-custom-launches', { params: { path: chain, query } }),
    initialBuyQuote: () => client.GET('/v4/chains/{chainId}/initial-buy-quote', { params: { path: chain } }),
    guide: () => client.GET('/v4/chains/{chainId}/launch-guide', { params: { path: chain } }),
    coverage: () => client.GET('/v4/chains/{chainId}/launch-coverage', { params: { path: chain } }),
  };
}

/** The client returned by createLaunchClient. */
export type LaunchClient = ReturnType<typeof createLaunchClient>;
