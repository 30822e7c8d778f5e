import { ApiError } from '../errors/api-error.ts';
import type { Db } from '../store/db.ts';
import { findPrincipal, type Principal } from './keys.ts';

/**
 * Authenticates `Authorization: Bearer <key>` and checks every scope the operation requires and the chain grant
 * of a chain-bound path (spec/openapi/service.openapi.yaml securitySchemes.bearerAuth): 401 UNAUTHENTICATED,
 * 403 INSUFFICIENT_SCOPE, 403 CHAIN_NOT_ALLOWED.
 */
export function authenticate(
  db: Db,
  authorization: string | undefined,
  requiredScopes: readonly string[],
  chainId: string | undefined,
  nowMs: number,
): Principal {
  const match = /^Bearer ([^\s]+)$/.exec(authorization ?? '');
  const principal = match?.[1] ? findPrincipal(db, match[1], nowMs) : null;
  if (!principal) throw new ApiError('UNAUTHENTICATED');
  const missing = requiredScopes.filter((s) => !(principal.scopes as string[]).includes(s));
  if (missing.length > 0) {
    throw new ApiError('INSUFFICIENT_SCOPE', { message: `This operation needs the scope ${missing.join(', ')}.` });
  }
  if (chainId !== undefined && !principal.chains.includes(chainId)) {
    throw new ApiError('CHAIN_NOT_ALLOWED', { message: `The API key has no grant for chain ${chainId}.` });
  }
  return principal;
}

/**
 * The module routes' authentication (spec/openapi/paths/modules-*.yaml): no active, unexpired key is
 * 401 AUTHENTICATION_REQUIRED; a key without the route's scope is 401 API_SCOPE_REQUIRED, except on the review export
 * (modules-submission-review-export.yaml, getModuleReviewExport), which names 403 INSUFFICIENT_SCOPE.
 */
export function authenticateModules(
  db: Db,
  authorization: string | undefined,
  requiredScopes: readonly string[],
  route: { reviewExport: boolean },
  nowMs: number,
): Principal {
  try {
    return authenticate(db, authorization, requiredScopes, undefined, nowMs);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'UNAUTHENTICATED') throw new ApiError('AUTHENTICATION_REQUIRED');
    if (err.code === 'INSUFFICIENT_SCOPE' && !route.reviewExport) {
      throw new ApiError('API_SCOPE_REQUIRED', {
        message: `${err.message} See authorization.missingScopes of the context.`,
      });
    }
    throw err;
  }
}
