import type { CustomLaunchCreateRequestV4 } from '../../../generated/types/service.ts';
import { inspectImage } from '../../core/image.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { readRequestBytes } from '../core/request-file.ts';

/**
 * Reads a packed request file and checks it locally before any network request: JSON, the create-request schema,
 * and the metadata image decoded (JPEG, WebP and animated GIF refused). Returns the exact bytes, which are what is
 * sent, never a re-serialization.
 */
export function readRequestFile(path: string): { bytes: Buffer; request: CustomLaunchCreateRequestV4 } {
  const bytes = readRequestBytes(path);
  let request: unknown;
  try {
    request = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new LocalCheckError('REQUEST_UNREADABLE', `${path} is not JSON: ${(err as Error).message}`);
  }
  const artifact = (request as { projectMetadataImageArtifact?: { bytesBase64?: unknown; mediaType?: unknown } })
    ?.projectMetadataImageArtifact;
  if (artifact && typeof artifact.bytesBase64 === 'string') {
    const inspection = inspectImage(Buffer.from(artifact.bytesBase64, 'base64'), String(artifact.mediaType));
    if (!inspection.ok) throw new LocalCheckError('IMAGE_REFUSED', `${path}: ${inspection.code}: ${inspection.detail}`);
  }
  const problems = schemaProblems('custom-launch-create-request.v4.schema.json', request);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${path} is not a V4 create request:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  return { bytes, request: request as CustomLaunchCreateRequestV4 };
}
