/**
 * The package's library entry: the launch client (spec/openapi/paths/v4-*.yaml), the module-contribution client
 * (spec paths modules-*.yaml) and the partner subkey client. Every call returns `{ data }` or `{ error }` and throws
 * only on misuse (TypeError), an unusable journal (JournalError) or a request that fails its local checks
 * (LocalCheckError).
 */
export { checkOrigin } from './core/origin.ts';
export { type SupportFacts, supportLine } from './core/support.ts';
/** The wallet review's metadata check and the launchId check. */
export { BoundMetadataMismatch, type CheckedMetadata, checkBoundMetadata } from './launches/bound-metadata.ts';
export {
  type ApiErrorBody,
  type CustomLaunchCreateRequestV4,
  createLaunchClient,
  type LaunchClient,
  type LaunchClientOptions,
  type LaunchResourceV4,
} from './launches/client.ts';
export { checkLaunchId } from './launches/poll.ts';
export * from './modules/index.ts';
/** The partner subkey client: list, issue, rotate and revoke with a partner root's key. */
export {
  type DeliveredSubkey,
  type IssuedSubkey,
  issueSubkey,
  listSubkeys,
  type PartnerSubkeyListV1,
  type PartnerSubkeyRequestV1,
  type PartnerSubkeyV1,
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
