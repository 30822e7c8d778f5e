import type { Config } from '../../config.ts';
import { ApiError } from '../../errors/api-error.ts';
import { jsonBody, type RouteTable } from '../operation.ts';

/**
 * POST /v2 and /v1 custom launches (spec/openapi/paths/v2-custom-launches.yaml, v1-custom-launches.yaml):
 * read-only history, new creation permanently refused (409, not retryable). A body is read within the V4 bound.
 */
export function legacyRoutes(config: Config): RouteTable {
  const body = jsonBody(config.v4BodyLimitBytes);
  return {
    createCustomLaunchV2: {
      body,
      handler: () => {
        throw new ApiError('CUSTOM_LAUNCH_V2_READ_ONLY');
      },
    },
    createCustomLaunchV1: {
      body,
      handler: () => {
        throw new ApiError('CUSTOM_LAUNCH_V1_READ_ONLY');
      },
    },
  };
}
