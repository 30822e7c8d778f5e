import type { Config } from '../../config.ts';
import type { BaseLaunchRules } from './lifecycle-rules.ts';

/**
 * The base-layer admission rules of this server: the pinned rebuild (src/domain/base-layer/build.ts) and the
 * admission review (src/domain/base-layer/admission-review.ts) under the operator's rule set.
 */
export function pinnedBaseLaunchRules(_config: Config): BaseLaunchRules {
  const unavailable = 'the pinned base-layer build is not part of this server build yet';
  return {
    build: async () => ({ ok: false, code: 'V3_BUILD_FAILED', message: unavailable, remediation: unavailable }),
    review: async () => {
      throw new Error(unavailable);
    },
  };
}
