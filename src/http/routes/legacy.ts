import { ApiError } from '../../errors/api-error.ts';
import type { OperationHandler } from '../operation.ts';

/** POST /v2 and /v1 custom launches: read-only history, new creation permanently refused (409, not retryable). */
export const legacyOperations: Record<string, OperationHandler> = {
  createCustomLaunchV2: () => {
    throw new ApiError('CUSTOM_LAUNCH_V2_READ_ONLY');
  },
  createCustomLaunchV1: () => {
    throw new ApiError('CUSTOM_LAUNCH_V1_READ_ONLY');
  },
};
