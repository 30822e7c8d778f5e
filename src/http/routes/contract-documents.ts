import type { Config } from '../../config.ts';
import { apiReferencePageBytes, redocScriptBytes } from '../../domain/public/api-reference.ts';
import { developerApiOpenApiBytes, serviceOpenApiBytes } from '../../domain/public/contract-documents.ts';
import { ifNoneMatchNames, strongEtag } from '../etag.ts';
import { jsonBody, type OperationHandler, type RouteTable, routesOf } from '../operation.ts';

/** Project design values of spec/openapi/components/headers.yaml (PublishedFileCacheControl) and paths/docs.yaml. */
export const publishedFiles = {
  cacheControl: 'public, max-age=300',
  /** Only this origin, plus what Redoc makes itself: inline styles, data: images, a blob: worker. */
  pageContentSecurityPolicy: [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
} as const;

/**
 * Routes of the contract the server publishes (spec/openapi/paths: openapi-document, openapi-developer-api-document,
 * docs, docs-redoc-script): the two bundled OpenAPI documents, the API reference page and its Redoc bundle. Each
 * file is read once, here, when the app is built, and served as it is. None reads a body; one sent anyway meets the
 * V4 JSON bound, as on the other public reads.
 */
export function contractDocumentRoutes(config: Config): RouteTable {
  return routesOf(
    {
      getServiceOpenApiDocument: publishedFile(serviceOpenApiBytes(), 'application/json; charset=utf-8'),
      getDeveloperApiOpenApiDocument: publishedFile(developerApiOpenApiBytes(), 'application/json; charset=utf-8'),
      getApiReferencePage: publishedFile(apiReferencePageBytes(), 'text/html; charset=utf-8', {
        'Content-Security-Policy': publishedFiles.pageContentSecurityPolicy,
      }),
      getApiReferenceScript: publishedFile(redocScriptBytes(), 'text/javascript; charset=utf-8'),
    },
    { body: jsonBody(config.v4BodyLimitBytes) },
  );
}

/**
 * One published file: its bytes with their strong ETag and public caching, or 304 without a body when
 * If-None-Match names that ETag (spec/openapi/components/responses.yaml NotModified).
 */
function publishedFile(bytes: Buffer, contentType: string, headers: Record<string, string> = {}): OperationHandler {
  const { text, etag } = prepared(bytes);
  const caching = { ETag: etag, 'Cache-Control': publishedFiles.cacheControl };
  return (ctx) => {
    const ifNoneMatch = ctx.headers['if-none-match'];
    if (ifNoneMatchNames(ifNoneMatch, caching.ETag)) return { status: 304, headers: caching };
    return { status: 200, text, contentType, headers: { ...caching, ...headers } };
  };
}

/** The text and ETag of each published file, computed once per process however many apps serve it. */
const preparedFiles = new WeakMap<Buffer, { text: string; etag: string }>();

function prepared(bytes: Buffer): { text: string; etag: string } {
  let file = preparedFiles.get(bytes);
  if (!file) {
    const text = bytes.toString('utf8');
    // The body goes out as text: bytes that are not UTF-8 would not come back the same, and their ETag would lie.
    if (!Buffer.from(text, 'utf8').equals(bytes)) throw new Error('a published file is not UTF-8');
    file = { text, etag: strongEtag(bytes) };
    preparedFiles.set(bytes, file);
  }
  return file;
}
