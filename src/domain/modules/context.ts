import type {
  ModuleReviewCapabilities,
  ModulesCapabilities,
  ModulesContext,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import type { Config } from '../../config.ts';
import { reviewDataLimits, reviewProfiles } from './review.ts';

const formats = {
  contract: 'platform.modules.api.v0.1',
  submissionFormat: 'platform.modules.submission.v0.1',
  descriptorFormat: 'platform.classic.source-package.v0.1',
} as const;

/**
 * getModulesCapabilities (public, spec/openapi/paths/modules-capabilities.yaml): upload eligibility starts here. The
 * legacy root fields do not govern intake and stay false; review readiness is read from the review capabilities
 * (getModuleReviewCapabilities).
 */
export function modulesCapabilities(config: Config): ModulesCapabilities {
  return {
    moduleContributions: {
      submissions: config.modulesSubmissions,
      apiKeyIssuance: config.modulesApiKeyIssuance,
      ...formats,
      limits: { ...config.modulesLimits },
    },
    reviewAvailable: false,
    approved: false,
    available: false,
  };
}

/**
 * getModulesContext: the key's identity (author = its wallet, the default reward wallet the same), its module
 * permissions, the live intake contract and limits, the inputs a contributor supplies, and the review policy with
 * the review readiness of getModuleReviewCapabilities.
 */
export function modulesContext(
  principal: Principal,
  config: Config,
  review: Pick<ModuleReviewCapabilities, 'reviewAvailable' | 'statusReadAvailable'>,
): ModulesContext {
  const wallet = (principal.wallet ?? '').toLowerCase();
  const holds = (scope: string) => (principal.scopes as string[]).includes(scope);
  const moduleScopes = ['modules:submit', 'modules:read'] as const;
  return {
    schemaVersion: 'platform.modules.context.v1',
    identity: { author: wallet, defaultRewardWallet: wallet },
    authorization: {
      scopes: [...principal.scopes],
      missingScopes: moduleScopes.filter((s) => !holds(s)),
      canSubmit: holds('modules:submit') && config.modulesSubmissions,
      canRead: holds('modules:read'),
    },
    intake: {
      available: config.modulesSubmissions,
      limits: { ...config.modulesLimits },
      submissionFormat: formats.submissionFormat,
      descriptorFormat: formats.descriptorFormat,
      openRuntimeIdentifiers: true,
      openHostRequirements: true,
      categoryRequired: false,
      repositoryRequired: false,
    },
    inputs: {
      requiredUserInput: ['idea'],
      optionalUserInput: ['rewardWallet'],
      agentPreparedFields: ['descriptor', 'files', 'descriptor.familySalt'],
    },
    review: {
      profiles: reviewProfiles(config.modulesQuoteEnvironmentSourceDigest),
      limits: {
        maxEngineInitializationDataBytes: reviewDataLimits.maxEngineInitializationDataBytes,
        maxEngineOperationDataBytes: reviewDataLimits.maxEngineOperationDataBytes,
        maxEngineExecutionGas: reviewDataLimits.maxEngineExecutionGas,
      },
      // The review capabilities' readiness, so the two public answers never disagree.
      available: review.reviewAvailable,
      statusReadAvailable: review.statusReadAvailable,
      unknownRequirements: 'await_review_plan',
      planRequired: true,
      approval: 'manual',
      publicationSeparate: true,
    },
  } as ModulesContext;
}
