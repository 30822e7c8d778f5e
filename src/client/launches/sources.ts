import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CustomLaunchCreateRequestV4, CustomLaunchSourceFileReceiptV1 } from '../../../generated/types/service.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { type CallOptions, exchange, type Refusal, redirectRefusal, refusalOf } from '../core/transport.ts';
import { projectSourcePath } from './pack/pack.ts';
import { checkLaunchId } from './poll.ts';

/**
 * What delivering one file came to: `data` holds the receipt and whether this call stored the file (201) or the
 * service already held it (200); `error` is a definite refusal or `no_answer` (deliver again: PUT is idempotent).
 */
type Delivery =
  | { data: { receipt: CustomLaunchSourceFileReceiptV1; stored: boolean }; error?: undefined }
  | { data?: undefined; error: Refusal | { kind: 'no_answer'; reason: string } };

/**
 * The bytes of every distinct file of a request's sourceBundleManifest, read from the project folder the request
 * was packed from (`@…` paths from node_modules, as pack resolved them), each checked against its manifest hash
 * before anything is sent. A file that changed since packing is a local check failure: the launch is bound to the
 * manifest, so changed bytes can never verify.
 */
export function manifestFiles(
  projectDir: string,
  request: CustomLaunchCreateRequestV4,
): Array<{ sha256: string; paths: string[]; bytes: Buffer }> {
  const bySha = new Map<string, { sha256: string; paths: string[]; bytes: Buffer }>();
  for (const file of request.sourceBundleManifest.files) {
    const known = bySha.get(file.sha256);
    if (known) {
      known.paths.push(file.path);
      continue;
    }
    const at = projectSourcePath(projectDir, file.path);
    if (!at)
      throw new LocalCheckError('PROJECT_FILE_UNREADABLE', `${file.path} is not in ${projectDir} or node_modules`);
    const bytes = readFileSync(at);
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== file.sha256) {
      throw new LocalCheckError(
        'SOURCE_FILE_CHANGED',
        `${file.path} changed since the request was packed (sha256 ${actual}, the manifest binds ${file.sha256})`,
      );
    }
    bySha.set(file.sha256, { sha256: file.sha256, paths: [file.path], bytes });
  }
  return [...bySha.values()];
}

/**
 * Delivers one manifest file (spec/openapi/paths/v4-custom-launch-source-file.yaml, putCustomLaunchSourceFileV4;
 * PUT is idempotent: delivering a held file again answers 200, so a rerun after an interruption is always safe).
 * 201 and 200 are `data` (the receipt, and `stored` for 201); a redirect or any other status is a refusal error; no
 * answer is a `no_answer` error.
 */
export async function deliverSourceFile(
  origin: string,
  launchId: string,
  file: { sha256: string; bytes: Buffer },
  options: CallOptions,
): Promise<Delivery> {
  checkLaunchId(launchId);
  const reply = await exchange({
    origin,
    method: 'PUT',
    path: `/v4/chains/4663/custom-launches/${encodeURIComponent(launchId)}/source-files/${file.sha256}`,
    apiKey: options.apiKey,
    body: file.bytes,
    contentType: 'application/octet-stream',
    timeoutMs: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (reply.kind === 'no_answer') return { error: { kind: 'no_answer', reason: reply.reason } };
  if (reply.kind === 'redirect') return { error: redirectRefusal(reply) };
  if (reply.status === 200 || reply.status === 201) {
    return { data: { receipt: reply.json as CustomLaunchSourceFileReceiptV1, stored: reply.status === 201 } };
  }
  return { error: refusalOf(reply) };
}
