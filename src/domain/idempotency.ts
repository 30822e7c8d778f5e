import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import type { Db } from '../store/db.ts';
import { statement } from '../store/statements.ts';

/** A stored first answer, replayed byte for byte for the same key and the same request bytes. */
export interface IdempotentReplay {
  status: number;
  body: string;
}

/**
 * Looks up `(credential, operation, Idempotency-Key)`. Same request digest: the stored first answer. Other bytes:
 * the conflict code (409). Unknown key: null. Must run inside the transaction that would record the answer.
 * Spec: launch-transport.md Endpoints (createCustomLaunchV4: 200 for an exact idempotent replay).
 */
export function findReplay(
  db: Db,
  input: { keyId: string; operation: string; idempotencyKey: string; requestDigest: string },
  conflictCode: ErrorCode = 'IDEMPOTENCY_CONFLICT',
): IdempotentReplay | null {
  const row = statement(
    db,
    `SELECT request_digest, response_status, response_body FROM idempotency_records
       WHERE key_id = ? AND operation = ? AND idempotency_key = ?`,
  ).get(input.keyId, input.operation, input.idempotencyKey) as
    | { request_digest: string; response_status: number; response_body: string }
    | undefined;
  if (!row) return null;
  if (row.request_digest !== input.requestDigest) throw new ApiError(conflictCode);
  return { status: row.response_status, body: row.response_body };
}

/** Records the first answer for an idempotency key. Call in the same transaction as the write it answers. */
export function recordAnswer(
  db: Db,
  input: { keyId: string; operation: string; idempotencyKey: string; requestDigest: string },
  answer: IdempotentReplay,
  now: string,
): void {
  statement(
    db,
    `INSERT INTO idempotency_records (key_id, operation, idempotency_key, request_digest, response_status, response_body, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(input.keyId, input.operation, input.idempotencyKey, input.requestDigest, answer.status, answer.body, now);
}
