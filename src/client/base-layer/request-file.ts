import type { CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import { baseLaunchIntentHashOf } from '../../core/base-graph.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { readRequestBytes } from '../core/request-file.ts';

/**
 * Reads a packed V3 request file and checks it locally before any network request: JSON, the V3 create-request
 * schema (spec/schemas/custom-launch-create-request.v3.schema.json) and its launchIntentHash. Returns the exact bytes,
 * which are what is sent, never a re-serialization.
 */
export function readBaseLayerRequestFile(path: string): { bytes: Buffer; request: CustomLaunchCreateRequestV3 } {
  const bytes = readRequestBytes(path);
  let request: unknown;
  try {
    request = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new LocalCheckError('REQUEST_UNREADABLE', `${path} is not JSON: ${(err as Error).message}`);
  }
  const problems = schemaProblems('custom-launch-create-request.v3.schema.json', request);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `${path} is not a V3 create request:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
  }
  const valid = request as CustomLaunchCreateRequestV3;
  if (baseLaunchIntentHashOf(valid) !== valid.launchIntentHash) {
    throw new LocalCheckError('REQUEST_INVALID', `${path}: launchIntentHash does not bind the request; pack it again`);
  }
  return { bytes, request: valid };
}
