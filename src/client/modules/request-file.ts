import type { IntakeLimits, ModuleSubmissionRequest } from '../../../generated/types/service.ts';
import { checkSubmittedFiles, ModuleFileRuleError, moduleLimits } from '../../core/module-files.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { readRequestBytes } from '../core/request-file.ts';

/**
 * Checks a submission request's exact bytes before anything is sent: JSON, the submission-request schema, the
 * files matching the descriptor's inventory exactly (each path once; the declared hash equal to the inventory's,
 * OPEN_SOURCE_HASH; the decoded bytes matching their hash and size, MODULE_FILE_HASH), at most 16 MiB decoded and
 * 24 MiB serialized. Throws LocalCheckError (the CLI exits 3); returns the parsed request.
 */
export function checkModuleRequest(bytes: Uint8Array, name = 'the request'): ModuleSubmissionRequest {
  if (bytes.length > moduleLimits.maxRequestBytes) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${name} is ${bytes.length} bytes; a serialized request may have at most ${moduleLimits.maxRequestBytes}`,
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
  // The very rules the server applies at intake, so a request the client sends never fails them there.
  try {
    checkSubmittedFiles(r);
  } catch (err) {
    if (!(err instanceof ModuleFileRuleError)) throw err;
    throw new LocalCheckError('REQUEST_INVALID', `${name}: ${err.code}: ${err.message}`);
  }
  return r;
}

/** Reads a request file and checks it (checkModuleRequest). The bytes returned are what is sent, never re-serialized. */
export function readModuleRequestFile(path: string): { bytes: Buffer; request: ModuleSubmissionRequest } {
  const bytes = readRequestBytes(path);
  return { bytes, request: checkModuleRequest(bytes, path) };
}

/**
 * Checks a request against the intake limits a deployment publishes (public capabilities
 * moduleContributions.limits; a deployment may publish lower limits, which the client checks first): the serialized bytes, files per request, path length, each file's size and the total
 * raw source. Throws LocalCheckError naming the published limit; nothing of the request is sent.
 */
export function checkPublishedLimits(bytes: Uint8Array, limits: IntakeLimits, name = 'the request'): void {
  if (bytes.length > limits.maxRequestBytes) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${name} is ${bytes.length} bytes; this deployment publishes a limit of ${limits.maxRequestBytes} serialized bytes`,
    );
  }
  const request = JSON.parse(new TextDecoder().decode(bytes)) as ModuleSubmissionRequest;
  try {
    checkSubmittedFiles(request, limits);
  } catch (err) {
    if (!(err instanceof ModuleFileRuleError)) throw err;
    throw new LocalCheckError('REQUEST_INVALID', `${name} exceeds a limit this deployment publishes: ${err.message}`);
  }
}
