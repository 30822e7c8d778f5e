import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { schemaProblems } from '../../spec/schema-registry.ts';

/** The journal is unusable or binds something else: nothing was sent. The CLI exits 2. */
export class JournalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalError';
  }
}

const fileMode = 0o600;

/** `sha256:` digest of exact bytes. */
export function bytesDigest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * The journal's fingerprint of an API key: SHA-256 over a label and the key, first 16 bytes. It tells whether a
 * resume uses the credential the journal began with; it is neither the key nor the service's stored hash.
 */
export function credentialFingerprint(apiKey: string): string {
  return createHash('sha256')
    .update(`custom-launch submit journal credential v1\0${apiKey}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** An idempotency key's shape (16 to 128 of `[A-Za-z0-9._:-]`, the Idempotency-Key parameter). */
export const idempotencyKeyPattern = /^[A-Za-z0-9._:-]{16,128}$/;

/** A fresh idempotency key (idempotencyKeyPattern). */
export function newIdempotencyKey(): string {
  return `custom-launch.${randomUUID()}`;
}

/** Writes a journal file with mode 0600 and fsyncs it ('wx': create exclusively; 'w': replace). */
export function writeDurably(path: string, text: string, flags: 'wx' | 'w'): void {
  const fd = openSync(path, flags, fileMode);
  try {
    // open() applies the mode only to a file it creates; a leftover file keeps its own mode unless set here.
    fchmodSync(fd, fileMode);
    ftruncateSync(fd, 0);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fsyncs the directory that holds `path`, so a created or renamed journal survives a crash. */
export function syncDir(path: string): void {
  const fd = openSync(dirname(resolve(path)), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates a journal file exclusively (its folder first), mode 0600, fsynced, directory fsynced. An existing path is
 * refused, never overwritten; every failure is a JournalError.
 */
export function createJournalFile(path: string, doc: unknown): void {
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
  } catch (err) {
    throw new JournalError(`cannot write the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    writeDurably(path, `${JSON.stringify(doc, null, 2)}\n`, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new JournalError(`${path} already exists`);
    throw new JournalError(`cannot write the journal ${path}: ${code ?? (err as Error).message}`);
  }
  syncDir(path);
}

/** Replaces a journal file atomically (temporary file with mode 0600, fsync, rename, directory fsync). */
export function replaceJournalFile(path: string, doc: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeDurably(temporary, `${JSON.stringify(doc, null, 2)}\n`, 'w');
  renameSync(temporary, path);
  syncDir(path);
}

/** A journal file's text, read only when its mode is 0600 (no group or other access); else JournalError. */
export function readPrivateJournal(path: string): string {
  try {
    const mode = statSync(path).mode & 0o777;
    if (mode !== fileMode) {
      throw new JournalError(
        `${path} has mode ${mode.toString(8).padStart(4, '0')}; a journal must be 0600 (chmod 600)`,
      );
    }
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof JournalError) throw err;
    throw new JournalError(`cannot read the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** How a journal that cannot be used is named: not JSON, or off its schema (with the schema's problems). */
export interface JournalRefusals {
  notJson: string;
  offSchema: (problems: string[]) => string;
}

/**
 * Reads a journal back: mode 0600 (readPrivateJournal), JSON of the schema `schemaName` under spec/schemas/, and
 * request bytes that match their requestSha256. Returns the document and the exact request bytes; else JournalError.
 */
export function openJournalFile<T extends { requestBytesBase64: string; requestSha256: string }>(
  path: string,
  schemaName: string,
  refusals: JournalRefusals,
): { doc: T; bytes: Buffer } {
  const text = readPrivateJournal(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new JournalError(`${path} ${refusals.notJson}`);
  }
  const problems = schemaProblems(schemaName, parsed);
  if (problems.length > 0) throw new JournalError(`${path} ${refusals.offSchema(problems)}`);
  const doc = parsed as T;
  const bytes = Buffer.from(doc.requestBytesBase64, 'base64');
  if (bytesDigest(bytes) !== doc.requestSha256) {
    throw new JournalError(`${path}: the request bytes do not match requestSha256; the journal is damaged`);
  }
  return { doc, bytes };
}

/**
 * What every launch submit journal binds before its first request, whatever its lane: the origin, a fresh
 * idempotency key, the credential's fingerprint, the exact bytes and their digest, a pending outcome and no attempts.
 */
export function submitJournalBinding(input: { origin: string; apiKey: string; bytes: Uint8Array; now: number }) {
  return {
    origin: input.origin,
    idempotencyKey: newIdempotencyKey(),
    credentialFingerprint: credentialFingerprint(input.apiKey),
    requestSha256: bytesDigest(input.bytes),
    requestBytesBase64: Buffer.from(input.bytes).toString('base64'),
    createdAt: new Date(input.now).toISOString(),
    outcome: { state: 'pending' as const, launchId: null, httpStatus: null, code: null, requestId: null },
    attempts: [],
  };
}
