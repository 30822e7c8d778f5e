import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../local-check-error.ts';
import type { ModuleSubmissionRequest } from './receipt.ts';

/** Reference maxima the client checks before sending (modules-subkeys-developer-api.md Limits). */
export const requestLimits = { maxTotalBytes: 16_777_216, maxRequestBytes: 25_165_824 } as const;

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Checks a submission request's exact bytes before anything is sent: JSON, the submission-request schema, the
 * files matching the descriptor's inventory exactly (each path once; the declared hash equal to the inventory's,
 * OPEN_SOURCE_HASH; the decoded bytes matching their hash and size, MODULE_FILE_HASH), at most 16 MiB decoded and
 * 24 MiB serialized. Throws LocalCheckError (the CLI exits 3); returns the parsed request.
 */
export function checkModuleRequest(bytes: Uint8Array, name = 'the request'): ModuleSubmissionRequest {
  if (bytes.length > requestLimits.maxRequestBytes) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${name} is ${bytes.length} bytes; a serialized request may have at most ${requestLimits.maxRequestBytes}`,
    );
  }
  let request: unknown;
  try {
    request = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new LocalCheckError('REQUEST_UNREADABLE', `${name} is not UTF-8 JSON: ${(err as Error).message}`);
  }
  const problems = schemaProblems('module-submission-request.v0.1.schema.json', request);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${name} is not a module submission request (platform.modules.submission.v0.1):\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  const r = request as ModuleSubmissionRequest;
  const inventory = new Map(r.descriptor.source.files.map((f) => [f.path, f]));
  const seen = new Set<string>();
  let total = 0;
  for (const file of r.files) {
    const entry = inventory.get(file.path);
    if (!entry) throw new LocalCheckError('REQUEST_INVALID', `${name}: files has ${file.path}, not in the inventory`);
    if (seen.has(file.path)) throw new LocalCheckError('REQUEST_INVALID', `${name}: ${file.path} is submitted twice`);
    seen.add(file.path);
    if (file.sha256 !== entry.sha256) {
      throw new LocalCheckError(
        'REQUEST_INVALID',
        `${name}: OPEN_SOURCE_HASH: ${file.path} differs from its inventory hash`,
      );
    }
    // The generated type widens `bytes` to unknown (its schema's anyOf); the schema checked it is a base64 string.
    const encoded = file.bytes as string;
    const decoded = Buffer.from(encoded, 'base64');
    if (decoded.toString('base64') !== encoded || sha256Hex(decoded) !== file.sha256 || decoded.length !== entry.size) {
      throw new LocalCheckError(
        'REQUEST_INVALID',
        `${name}: MODULE_FILE_HASH: the bytes of ${file.path} do not match their sha256 and size`,
      );
    }
    total += decoded.length;
  }
  for (const path of inventory.keys()) {
    if (!seen.has(path))
      throw new LocalCheckError('REQUEST_INVALID', `${name}: inventory file ${path} is not submitted`);
  }
  if (total > requestLimits.maxTotalBytes) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${name}: the files hold ${total} bytes; at most ${requestLimits.maxTotalBytes} may be submitted`,
    );
  }
  return r;
}

/** Reads a request file and checks it (checkModuleRequest). The bytes returned are what is sent, never re-serialized. */
export function readModuleRequestFile(path: string): { bytes: Buffer; request: ModuleSubmissionRequest } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new LocalCheckError(
      'REQUEST_UNREADABLE',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  return { bytes, request: checkModuleRequest(bytes, path) };
}
