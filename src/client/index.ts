/**
 * The package's library entry: the launch client (spec/openapi/paths/v4-*.yaml), the base-layer V3 launch client
 * (spec/openapi/paths/v3-*.yaml), the module-contribution client
 * (spec paths modules-*.yaml) and the partner subkey client. Every call returns `{ data }` or `{ error }` and throws
 * only on misuse (TypeError), an unusable journal (JournalError) or a request that fails its local checks
 * (LocalCheckError).
 */

export type {
  ApiError as ApiErrorBody,
  CustomLaunchCapabilitiesV3,
  CustomLaunchCreateRequestV3,
  CustomLaunchCreateRequestV4,
  CustomLaunchFundingTypedDataV3,
  CustomLaunchPreflightV3,
  CustomLaunchResourceV3 as LaunchResourceV3,
  CustomLaunchResourceV4 as LaunchResourceV4,
  PartnerSubkeyListV1,
  PartnerSubkeyRequestV1,
  PartnerSubkeyV1,
} from '../../generated/types/service.ts';
export * from './base-layer/index.ts';
export { checkOrigin } from './core/origin.ts';
export { type SupportFacts, supportLine } from './core/support.ts';
/** The wallet review's metadata check and the launchId check. */
export { BoundMetadataMismatch, type CheckedMetadata, checkBoundMetadata } from './launches/bound-metadata.ts';
export {
  createLaunchClient,
  type LaunchClient,
  type LaunchClientOptions,
} from './launches/client.ts';
export { checkLaunchId } from './launches/poll.ts';
export * from './modules/index.ts';
export * from './multi-role/index.ts';
/** The partner subkey client: list, issue, rotate and revoke with a partner root's key. */
export {
  type DeliveredSubkey,
  type IssuedSubkey,
  issueSubkey,
  listSubkeys,
  revokeSubkey,
  rotateSubkey,
  type SubkeyCallOptions,
  type SubkeyFailed,
  type SubkeyFailure,
  type SubkeyListResult,
  type SubkeyRevokeResult,
  type SubkeyWriteOptions,
  type SubkeyWriteResult,
  subkeyRequestBytes,
} from './subkeys.ts';
