import type { CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import { baseLaunchIntentHashOf } from '../../core/base-graph.ts';
import { readPackedRequestFile } from '../core/request-file.ts';

/**
 * Reads a packed V3 request file and checks it locally before any network request: JSON, the V3 create-request
 * schema (spec/schemas/custom-launch-create-request.v3.schema.json) and its launchIntentHash. Returns the exact bytes,
 * which are what is sent, never a re-serialization.
 */
export function readBaseLayerRequestFile(path: string): { bytes: Buffer; request: CustomLaunchCreateRequestV3 } {
  return readPackedRequestFile<CustomLaunchCreateRequestV3>(path, {
    schemaName: 'custom-launch-create-request.v3.schema.json',
    what: 'a V3 create request',
    intentHashOf: baseLaunchIntentHashOf,
  });
}
