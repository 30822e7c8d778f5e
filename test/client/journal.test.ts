import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/auth/keys.ts';
import {
  bytesDigest,
  credentialFingerprint,
  JournalError,
  newIdempotencyKey,
} from '../../src/client/core/journal-file.ts';
import { createJournal, openJournal, saveJournal } from '../../src/client/launches/journal.ts';

// spec/schemas/launch-submit-journal.v1.schema.json: the journal binds the origin, one idempotency key and the exact
// request bytes before the first request; it is the one file a killed client resumes from, so it must be private
// (0600), intact (bytes match their digest) and hold no credential.

let dir: string;
let serial = 0;
const apiKey = `clk_${'A1b2C3d4E5'.repeat(4)}xyz`;
const otherKey = `clk_${'Z9y8X7w6V5'.repeat(4)}uvw`;
const origin = 'https://launch.example';
const now = Date.parse('2026-11-22T10:00:00.000Z');
// Not UTF-8 and with a NUL: only exact bytes survive a round trip through base64.
const bytes = Buffer.concat([Buffer.from('{"schemaVersion":"x"}\n', 'utf8'), Buffer.from([0x00, 0xff, 0xfe, 0x80])]);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'journal-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh path in the test folder, and a journal created there. */
const freshPath = () => join(dir, `journal-${++serial}.json`);
function created(): { path: string; doc: ReturnType<typeof createJournal> } {
  const path = freshPath();
  return { path, doc: createJournal(path, { origin, apiKey, bytes, now }) };
}
const mode = (path: string) => statSync(path).mode & 0o777;

describe('createJournal', () => {
  it('writes a file of mode 0600 binding origin, key fingerprint, digest and bytes', () => {
    const { path, doc } = created();
    expect(mode(path)).toBe(0o600);
    expect(doc).toMatchObject({
      schemaVersion: 'platform.custom-launch-submit-journal.v1',
      origin,
      apiVersion: 4,
      chainId: '4663',
      credentialFingerprint: credentialFingerprint(apiKey),
      requestSha256: bytesDigest(bytes),
      requestBytesBase64: bytes.toString('base64'),
      createdAt: '2026-11-22T10:00:00.000Z',
      outcome: { state: 'pending', launchId: null, httpStatus: null, code: null, requestId: null },
      attempts: [],
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(doc);
  });

  it('refuses a path that already exists and leaves it as it was', () => {
    const { path } = created();
    const before = readFileSync(path);
    expect(() => createJournal(path, { origin, apiKey: otherKey, bytes: Buffer.from('other'), now })).toThrow(
      JournalError,
    );
    expect(() => createJournal(path, { origin, apiKey, bytes, now })).toThrow(/already exists/);
    expect(readFileSync(path)).toEqual(before);
  });

  it('creates a missing folder, and still writes the journal with mode 0600', () => {
    const path = join(dir, 'no-such-folder', 'nested', 'journal.json');
    createJournal(path, { origin, apiKey, bytes, now });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(openJournal(path).bytes.equals(Buffer.from(bytes))).toBe(true);
  });

  it('refuses a path it cannot write', () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    expect(() => createJournal(join(blocker, 'journal.json'), { origin, apiKey, bytes, now })).toThrow(
      /cannot write the journal/,
    );
  });

  it('never writes the API key, nor the hash the service stores of it', () => {
    const { path } = created();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(hashKey(apiKey));
    expect(text).not.toContain(hashKey(apiKey).slice(0, 32));
  });

  it('draws a new idempotency key per journal', () => {
    const a = created().doc;
    const b = created().doc;
    expect(a.idempotencyKey).not.toBe(b.idempotencyKey);
  });
});

describe('openJournal', () => {
  it('round-trips the exact bytes and the idempotency key', () => {
    const { path, doc } = created();
    const opened = openJournal(path);
    expect(Buffer.compare(opened.bytes, bytes)).toBe(0);
    expect(opened.doc.idempotencyKey).toBe(doc.idempotencyKey);
    expect(opened.doc).toEqual(doc);
  });

  it.each([
    ['0644', 0o644],
    ['0640', 0o640],
    ['0604', 0o604],
    ['0660', 0o660],
    ['0700', 0o700],
    ['0400', 0o400],
  ])('refuses mode %s, naming 0600', (shown, fileMode) => {
    const { path } = created();
    chmodSync(path, fileMode);
    expect(() => openJournal(path)).toThrow(JournalError);
    expect(() => openJournal(path)).toThrow(new RegExp(`mode ${shown}; a journal must be 0600`));
  });

  it('opens again once the mode is back to 0600', () => {
    const { path } = created();
    chmodSync(path, 0o644);
    expect(() => openJournal(path)).toThrow(JournalError);
    chmodSync(path, 0o600);
    expect(openJournal(path).bytes).toEqual(bytes);
  });

  it('refuses a missing file', () => {
    expect(() => openJournal(freshPath())).toThrow(JournalError);
    expect(() => openJournal(freshPath())).toThrow(/cannot read the journal .*ENOENT/);
  });

  /** Rewrites a created journal's JSON in place (writeFileSync keeps the 0600 mode of an existing file). */
  function tampered(edit: (doc: any) => void, text?: string): string {
    const { path, doc } = created();
    const copy: any = structuredClone(doc);
    edit(copy);
    writeFileSync(path, text ?? JSON.stringify(copy));
    expect(mode(path)).toBe(0o600);
    return path;
  }

  it.each([
    [
      'requestBytesBase64 changed by one byte',
      (doc: any) => {
        const changed = Buffer.from(doc.requestBytesBase64, 'base64');
        changed[3] = (changed[3] ?? 0) ^ 0x01;
        doc.requestBytesBase64 = changed.toString('base64');
      },
      /request bytes do not match requestSha256/,
    ],
    [
      'requestBytesBase64 with one byte cut off',
      (doc: any) => {
        doc.requestBytesBase64 = Buffer.from(doc.requestBytesBase64, 'base64').subarray(1).toString('base64');
      },
      /request bytes do not match requestSha256/,
    ],
    [
      'requestSha256 of other bytes',
      (doc: any) => {
        doc.requestSha256 = bytesDigest(Buffer.from('other'));
      },
      /request bytes do not match requestSha256/,
    ],
    ['an extra property', (doc: any) => (doc.apiKey = 'x'), /is not a journal: .*must NOT have additional properties/],
    ['no idempotencyKey', (doc: any) => delete doc.idempotencyKey, /is not a journal: .*idempotencyKey/],
    ['an idempotency key of 15 characters', (doc: any) => (doc.idempotencyKey = 'a'.repeat(15)), /idempotencyKey/],
    ['an idempotency key of 129 characters', (doc: any) => (doc.idempotencyKey = 'a'.repeat(129)), /idempotencyKey/],
    ['an uppercase fingerprint', (doc: any) => (doc.credentialFingerprint = 'A'.repeat(32)), /credentialFingerprint/],
    ['apiVersion 3', (doc: any) => (doc.apiVersion = 3), /apiVersion/],
  ])('refuses a journal with %s', (_name, edit, want) => {
    const path = tampered(edit);
    expect(() => openJournal(path)).toThrow(JournalError);
    expect(() => openJournal(path)).toThrow(want);
  });

  it.each([
    ['an idempotency key of 16 characters', 'a'.repeat(16)],
    ['an idempotency key of 128 characters', 'a'.repeat(128)],
  ])('opens a journal with %s', (_name, key) => {
    const path = tampered((doc) => (doc.idempotencyKey = key));
    expect(openJournal(path).doc.idempotencyKey).toBe(key);
  });

  it('refuses a file that is not JSON', () => {
    const path = tampered(() => {}, '{"schemaVersion":');
    expect(() => openJournal(path)).toThrow(JournalError);
    expect(() => openJournal(path)).toThrow(/is not a journal: not JSON/);
  });
});

describe('saveJournal', () => {
  it('replaces the journal, keeps mode 0600 and leaves no temporary file', () => {
    const { path, doc } = created();
    const next = structuredClone(doc);
    next.attempts.push({ at: '2026-11-22T10:00:01.000Z', result: 'answer', httpStatus: 202 });
    next.outcome = {
      state: 'accepted',
      launchId: '00000000-0000-4000-8000-000000000000',
      httpStatus: 202,
      code: null,
      requestId: 'req-1',
    };
    saveJournal(path, next);
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const opened = openJournal(path);
    expect(opened.doc).toEqual(next);
    expect(opened.bytes).toEqual(bytes);
  });

  it('writes 0600 even over a journal whose mode was widened', () => {
    // The rename puts the temporary file's inode in place, so the old file's mode does not survive.
    const { path, doc } = created();
    chmodSync(path, 0o644);
    saveJournal(path, doc);
    expect(mode(path)).toBe(0o600);
    expect(openJournal(path).doc).toEqual(doc);
  });

  // open() applies a mode only to a file it creates: a leftover temporary file of mode 0644 (a killed save, a reused
  // pid) must not pass its mode on to the journal.
  it('writes 0600 even over a leftover temporary file of mode 0644', () => {
    const { path, doc } = created();
    const leftover = `${path}.${process.pid}.tmp`;
    writeFileSync(leftover, 'left over', { mode: 0o644 });
    expect(mode(leftover)).toBe(0o644);
    saveJournal(path, doc);
    expect(mode(path)).toBe(0o600);
  });
});

describe('newIdempotencyKey', () => {
  it('matches the IdempotencyKey shape and differs per call', () => {
    const keys = Array.from({ length: 100 }, () => newIdempotencyKey());
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9._:-]{16,128}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('credentialFingerprint', () => {
  it('is 32 lowercase hex, stable for one key and different for another', () => {
    const fp = credentialFingerprint(apiKey);
    expect(fp).toMatch(/^[0-9a-f]{32}$/);
    expect(credentialFingerprint(apiKey)).toBe(fp);
    expect(credentialFingerprint(otherKey)).not.toBe(fp);
    expect(credentialFingerprint(`${apiKey} `)).not.toBe(fp);
  });

  it('is neither the key nor (a prefix of) the service stored hash', () => {
    const fp = credentialFingerprint(apiKey);
    expect(fp).not.toContain(apiKey);
    // hashKey is sha256(key) in hex, 64 characters: a fingerprint that were its first half would leak half the
    // stored hash to anyone who reads the journal.
    expect(hashKey(apiKey)).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(fp).not.toBe(hashKey(apiKey));
    expect(hashKey(apiKey).startsWith(fp)).toBe(false);
    expect(hashKey(apiKey)).not.toContain(fp);
  });
});

describe('bytesDigest', () => {
  it.each([
    ['no bytes', Buffer.alloc(0), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['"abc"', Buffer.from('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ])('digests %s (FIPS 180-2 vectors)', (_name, given, want) => {
    expect(bytesDigest(given)).toBe(want);
  });
});
