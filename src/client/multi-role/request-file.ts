import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../../generated/types/service.ts';
import { inspectImage } from '../../core/image.ts';
import { multiRoleLaunchIntentHashOf } from '../../core/multi-role-graph.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { readPackedRequestFile } from '../core/request-file.ts';

/**
 * Reads a packed shared-lane request file and checks it locally before any network request: JSON, the create-request
 * schema (spec/schemas/multi-role-create-request.v2.schema.json), the image decoded as its PNG or single-frame GIF
 * media type (JPEG, WebP and animated GIF refused) and its launchIntentHash. Returns the exact bytes,
 * which are what is sent, never a re-serialization.
 */
export function readMultiRoleRequestFile(path: string): {
  bytes: Buffer;
  request: MultiRoleCustomLaunchCreateRequestV2;
} {
  return readPackedRequestFile<MultiRoleCustomLaunchCreateRequestV2>(path, {
    schemaName: 'multi-role-create-request.v2.schema.json',
    what: 'a shared-lane create request',
    intentHashOf: multiRoleLaunchIntentHashOf,
    check: ({ projectMetadata: { image } }, path) => {
      const inspection = inspectImage(Buffer.from(image.contentBase64, 'base64'), image.mediaType);
      if (!inspection.ok)
        throw new LocalCheckError('IMAGE_REFUSED', `${path}: ${inspection.code}: ${inspection.detail}`);
    },
  });
}
