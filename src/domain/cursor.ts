import { ApiError } from '../errors/api-error.ts';

/**
 * Opaque page cursors: base64url of a small versioned JSON position. Clients pass them back unchanged
 * (the `cursor` parameter of spec/openapi/components/parameters.yaml). A cursor that this service did not issue is a
 * 400.
 * Project design: the cursor names the last row's sequence number and the list it belongs to.
 */
export function encodeCursor(list: string, afterSeq: number): string {
  return Buffer.from(JSON.stringify({ v: 1, l: list, s: afterSeq }), 'utf8').toString('base64url');
}

/** Decodes a cursor issued for `list`, or throws 400 INVALID_REQUEST. */
export function decodeCursor(list: string, cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      l?: unknown;
      s?: unknown;
    };
    if (parsed.v === 1 && parsed.l === list && Number.isSafeInteger(parsed.s) && (parsed.s as number) > 0) {
      return parsed.s as number;
    }
  } catch {
    // Falls through to the 400 below: the cursor is not one this service issued.
  }
  throw unknownCursor();
}

/** The 400 INVALID_REQUEST of a cursor this service did not issue for the list (or whose position no longer exists). */
export function unknownCursor(): ApiError {
  return new ApiError('INVALID_REQUEST', {
    message: 'cursor was not issued by this service for this list; pass nextCursor back unchanged.',
    issues: [{ location: '/query/cursor', message: 'unknown cursor' }],
  });
}
