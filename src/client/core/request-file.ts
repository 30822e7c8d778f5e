import { readFileSync } from 'node:fs';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from './local-check-error.ts';

/** The exact bytes of a request file (what is sent, never re-serialized); REQUEST_UNREADABLE when it cannot be read. */
export function readRequestBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new LocalCheckError(
      'REQUEST_UNREADABLE',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** A lane's packed request: its create-request schema under spec/schemas/, its name, and its launchIntentHash rule. */
export interface PackedRequestKind<R extends { launchIntentHash: string }> {
  schemaName: string;
  /** What the request is, for messages ("a V3 create request"). */
  what: string;
  intentHashOf: (request: R) => string;
  /** A further local check of the valid request (throws LocalCheckError). */
  check?: (request: R, path: string) => void;
}

/**
 * Reads a packed request file and checks it locally before any network request: JSON, the lane's create-request
 * schema, the lane's own check and its launchIntentHash. Returns the exact bytes, which are what is sent, never a re-serialization.
 */
export function readPackedRequestFile<R extends { launchIntentHash: string }>(
  path: string,
  kind: PackedRequestKind<R>,
): { bytes: Buffer; request: R } {
  const bytes = readRequestBytes(path);
  let request: unknown;
  try {
    request = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new LocalCheckError('REQUEST_UNREADABLE', `${path} is not JSON: ${(err as Error).message}`);
  }
  const problems = schemaProblems(kind.schemaName, request);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${path} is not ${kind.what}:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  const valid = request as R;
  kind.check?.(valid, path);
  if (kind.intentHashOf(valid) !== valid.launchIntentHash) {
    throw new LocalCheckError('REQUEST_INVALID', `${path}: launchIntentHash does not bind the request; pack it again`);
  }
  return { bytes, request: valid };
}
