import { createHash } from 'node:crypto';

/**
 * The strong ETag of body bytes: `"sha256-<base64url of their SHA-256>"` (the ETag header of
 * spec/openapi/developer-api.openapi.yaml and spec/openapi/components/headers.yaml). A string is hashed as UTF-8.
 */
export function strongEtag(bytes: string | Uint8Array): string {
  return `"sha256-${createHash('sha256').update(bytes).digest('base64url')}"`;
}

/**
 * Whether an If-None-Match value names `etag` (or is `*`): the 304 of the developer API and of the service's
 * published files (spec/openapi/components/parameters.yaml IfNoneMatch). If-None-Match compares weakly (RFC 9110),
 * so a weak tag counts by its opaque part.
 */
export function ifNoneMatchNames(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}
