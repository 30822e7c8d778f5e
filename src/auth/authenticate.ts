import { ApiError } from '../errors/api-error.ts';
import type { Db } from '../store/db.ts';
import { findPrincipal, type Principal } from './keys.ts';

/**
 * Authenticates `Authorization: Bearer <key>` and checks every scope the operation requires and the chain grant
 * of a chain-bound path. Spec: launch-transport.md Authentication 1-4; 401 UNAUTHENTICATED, 403 INSUFFICIENT_SCOPE,
 * 403 CHAIN_NOT_ALLOWED.
 */
export function authenticate(
  db: Db,
  authorization: string | undefined,
  requiredScopes: readonly string[],
  chainId: string | undefined,
): Principal {
  const match = /^Bearer ([^\s]+)$/.exec(authorization ?? '');
  const principal = match?.[1] ? findPrincipal(db, match[1]) : null;
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
