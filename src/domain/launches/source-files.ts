import { createHash } from 'node:crypto';
import type { CustomLaunchCreateRequestV4, CustomLaunchSourceFileReceiptV1 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { utf8Order } from '../../core/canonical-json.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { bringVerificationForward } from '../lifecycle/source-verifier.ts';
import { wakeBeforePermit } from '../lifecycle/worker.ts';
import { storedRequest, visibility } from './launch-resource.ts';

type SourceBundleManifest = CustomLaunchCreateRequestV4['sourceBundleManifest'];

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
 * commit is on disk (synchronous=FULL); a file already held answers 200. The delivery that completes the manifest
 * of a launch still waiting before its permit schedules its lifecycle step again (the source SELFDESTRUCT rule).
 */
export function receiveSourceFile(
  db: Db,
  input: { principal: Principal; chainId: string; launchId: string; sha256: string; bytes: Buffer; now: number },
): { status: 200 | 201; body: CustomLaunchSourceFileReceiptV1 } {
  const v = visibility(input.principal);
  const launch = statement(
    db,
    `SELECT launch_id FROM launches WHERE chain_id = ? AND launch_id = ? AND ${v.where}`,
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
      const held = receivedHashes(db, input.launchId);
      // The delivery that completes the manifest brings a finalized launch's verification attempt forward, and a
      // launch still before its permit back to the source SELFDESTRUCT rule.
      if (changes === 1 && manifest.files.every((f) => held.has(f.sha256))) {
        bringVerificationForward(db, input.launchId, at);
        wakeBeforePermit(db, input.launchId, input.now);
      }
      return { changes, held };
    })
    .immediate();
  return {
    status: inserted.changes === 1 ? 201 : 200,
    body: {
      schemaVersion: 'platform.custom-launch-source-file-receipt.v1',
      chainId: '4663',
      launchId: input.launchId,
      sha256: input.sha256,
      byteLength: input.bytes.length,
      paths,
      filesReceived: manifest.files.filter((f) => inserted.held.has(f.sha256)).length,
      filesExpected: manifest.files.length,
    },
  };
}
