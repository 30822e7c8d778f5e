import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import type { Db } from '../store/db.ts';
import type { GroupCommit } from '../store/group-commit.ts';
import { statement } from '../store/statements.ts';

/** What an idempotency record is kept under: the credential lineage, the operation, the key and the request digest. */
export interface IdempotencyScope {
  keyId: string;
  operation: string;
  idempotencyKey: string;
  requestDigest: string;
}

/** The two steps of an idempotent write: `check` outside the write lock, `first` inside it. */
export interface IdempotentSteps<C, S extends number> {
  check: () => C;
  first: (checked: C) => { status: S; body: string };
}

/** A stored first answer, replayed byte for byte for the same key and the same request bytes. */
export interface IdempotentReplay {
  status: number;
  body: string;
}

/**
 * Looks up `(credential, operation, Idempotency-Key)`. Same request digest: the stored first answer. Other bytes:
 * the conflict code (409). Unknown key: null. Must run inside the transaction that would record the answer.
 * Spec: spec/openapi/paths/v4-custom-launches.yaml createCustomLaunchV4 (200 for an exact idempotent replay).
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

/**
 * One idempotent write (create, module submit, subkey issue and rotate). A replay of the same key and bytes answers
 * its first answer as 200 before any rule is checked again (the first answer stands whatever today's rules say);
 * the same key with other bytes is `conflictCode`. Otherwise `check` runs outside the write lock (pure CPU over the
 * request), then `first` runs in one immediate transaction that looks for a replay once more, since a concurrent first
 * request with the same key may have committed meanwhile. `first` records its answer with recordAnswer.
 */
export function idempotentWrite<C, S extends number>(
  db: Db,
  idem: IdempotencyScope,
  steps: IdempotentSteps<C, S>,
  conflictCode: ErrorCode = 'IDEMPOTENCY_CONFLICT',
): { status: 200 | S; body: string } {
  const earlier = findReplay(db, idem, conflictCode);
  if (earlier) return { status: 200, body: earlier.body };
  const checked = steps.check();
  return db.transaction(() => replayOrFirst(db, idem, steps, checked, conflictCode)).immediate();
}

/**
 * idempotentWrite whose transaction is one savepoint of a group commit (src/store/group-commit.ts): the same replay,
 * conflict and check order, and the answer settles only after the batch's synchronous=FULL commit returned.
 * Spec: spec/openapi/paths/v4-custom-launches.yaml createCustomLaunchV4.
 */
export async function groupedIdempotentWrite<C, S extends number>(
  group: GroupCommit,
  idem: IdempotencyScope,
  steps: IdempotentSteps<C, S>,
  conflictCode: ErrorCode = 'IDEMPOTENCY_CONFLICT',
): Promise<{ status: 200 | S; body: string }> {
  const earlier = findReplay(group.db, idem, conflictCode);
  if (earlier) return { status: 200, body: earlier.body };
  const checked = steps.check();
  return group.run(() => replayOrFirst(group.db, idem, steps, checked, conflictCode));
}

/** Inside the write lock: a first request with the same key that committed meanwhile answers as its replay. */
function replayOrFirst<C, S extends number>(
  db: Db,
  idem: IdempotencyScope,
  steps: IdempotentSteps<C, S>,
  checked: C,
  conflictCode: ErrorCode,
): { status: 200 | S; body: string } {
  const replay = findReplay(db, idem, conflictCode);
  return replay ? { status: 200, body: replay.body } : steps.first(checked);
}
