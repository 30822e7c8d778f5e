import { createHash } from 'node:crypto';
import type { components } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { utf8Order } from '../canonical-json.ts';
import { visibility } from './launch-service.ts';
import type { CreateRequestV4 } from './request-rules.ts';

export type SourceFileReceiptV1 = components['schemas']['CustomLaunchSourceFileReceiptV1'];
type SourceBundleManifest = CreateRequestV4['sourceBundleManifest'];

/** The stored request of a launch, parsed (its bytes were validated against the create schema at create). */
export function storedRequest(db: Db, launchId: string): CreateRequestV4 {
  const row = statement(db, 'SELECT request_bytes FROM launches WHERE launch_id = ?').get(launchId) as
    | { request_bytes: Buffer }
    | undefined;
  if (!row) throw new Error(`launch ${launchId} is not stored`);
  return JSON.parse(row.request_bytes.toString('utf8')) as CreateRequestV4;
}

function receivedHashes(db: Db, launchId: string): Set<string> {
  const rows = statement(db, 'SELECT sha256 FROM launch_source_files WHERE launch_id = ?').all(launchId) as Array<{
    sha256: string;
  }>;
  return new Set(rows.map((r) => r.sha256));
}

/**
 * putCustomLaunchSourceFileV4 (project design; spec/openapi/paths/v4-custom-launch-source-file.yaml): stores the
 * bytes of one file of the launch's sourceBundleManifest, addressed by its SHA-256. A launch outside the
 * credential's visibility is 404; a hash the manifest does not list is 409 SOURCE_FILE_NOT_IN_MANIFEST; bytes with
 * another hash are 400 SOURCE_FILE_DIGEST_MISMATCH; neither persists anything. 201 is answered only after the
 * commit is on disk (synchronous=FULL); a file already held answers 200.
 */
export function receiveSourceFile(
  db: Db,
  input: { principal: Principal; chainId: string; launchId: string; sha256: string; bytes: Buffer; now: number },
): { status: 200 | 201; body: SourceFileReceiptV1 } {
  const v = visibility(input.principal);
  const launch = statement(
    db,
    `SELECT launch_id FROM launches WHERE chain_id = ? AND launch_id = ? AND ${v.column} = ?`,
  ).get(input.chainId, input.launchId, v.value) as { launch_id: string } | undefined;
  if (!launch) {
    throw new ApiError('NOT_FOUND', {
      message: `No launch ${input.launchId} on chain ${input.chainId} for this credential.`,
    });
  }
  const manifest: SourceBundleManifest = storedRequest(db, input.launchId).sourceBundleManifest;
  const paths = manifest.files
    .filter((f) => f.sha256 === input.sha256)
    .map((f) => f.path)
    .sort(utf8Order);
  if (paths.length === 0) {
    throw new ApiError('SOURCE_FILE_NOT_IN_MANIFEST', {
      message: `The sourceBundleManifest of launch ${input.launchId} lists no file with SHA-256 ${input.sha256}.`,
    });
  }
  const actual = createHash('sha256').update(input.bytes).digest('hex');
  if (actual !== input.sha256) {
    throw new ApiError('SOURCE_FILE_DIGEST_MISMATCH', {
      message: `The body's SHA-256 is ${actual} (${input.bytes.length} bytes), not ${input.sha256} as the path names.`,
    });
  }
  const at = new Date(input.now).toISOString();
  const inserted = db
    .transaction(() => {
      statement(db, 'INSERT OR IGNORE INTO source_blobs (sha256, bytes) VALUES (?, ?)').run(input.sha256, input.bytes);
      const changes = statement(
        db,
        'INSERT OR IGNORE INTO launch_source_files (launch_id, sha256, received_at) VALUES (?, ?, ?)',
      ).run(input.launchId, input.sha256, at).changes;
      // A finalized launch waiting for its sources is attempted again at once.
      bringVerificationForward(db, input.launchId, at);
      return changes;
    })
    .immediate();
  const held = receivedHashes(db, input.launchId);
  return {
    status: inserted === 1 ? 201 : 200,
    body: {
      schemaVersion: 'platform.custom-launch-source-file-receipt.v1',
      chainId: '4663',
      launchId: input.launchId,
      sha256: input.sha256,
      byteLength: input.bytes.length,
      paths,
      filesReceived: manifest.files.filter((f) => held.has(f.sha256)).length,
      filesExpected: manifest.files.length,
    },
  };
}

/**
 * Brings a finalized launch's next source-verification attempt forward to `at` (a delivered file, a provider record):
 * only while verification is pending and due later; final verification is never reopened.
 */
export function bringVerificationForward(db: Db, launchId: string, at: string): void {
  statement(
    db,
    'UPDATE finalized_feed SET verify_next_at = ? WHERE launch_id = ? AND verify_next_at IS NOT NULL AND verify_next_at > ?',
  ).run(at, launchId, at);
}

/**
 * The delivered text of every manifest file by path, or the paths still missing. Source text is UTF-8 (solc reads
 * sources as text; the packer hashed the UTF-8 bytes of the text it compiled).
 */
export function heldSources(
  db: Db,
  launchId: string,
  manifest: SourceBundleManifest,
): { sources: Record<string, string>; missing: string[] } {
  const sources: Record<string, string> = {};
  const missing: string[] = [];
  const read = statement(
    db,
    `SELECT b.bytes FROM launch_source_files f JOIN source_blobs b ON b.sha256 = f.sha256
     WHERE f.launch_id = ? AND f.sha256 = ?`,
  );
  for (const file of manifest.files) {
    const row = read.get(launchId, file.sha256) as { bytes: Buffer } | undefined;
    if (row) sources[file.path] = row.bytes.toString('utf8');
    else missing.push(file.path);
  }
  return { sources, missing };
}
