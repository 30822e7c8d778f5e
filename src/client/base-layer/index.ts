/**
 * The base-layer (V3, chain 1) launch client (spec/openapi/paths/v3-*.yaml): pack a project into a
 * CustomLaunchCreateRequestV3, preflight, submit through the V3 journal, read and wait, send the controller's funding
 * signature, cancel. Every network call returns `{ data }` or `{ error }`; the client never signs.
 */
export {
  type BaseLayerCallOptions,
  type BaseLayerCallResult,
  type BaseLayerReadResult,
  type BaseLayerWaitGoal,
  type BaseLayerWaitOptions,
  type BaseLayerWaitResult,
  baseLayerStatusOrder,
  cancelBaseLayerLaunch,
  fundingTypedDataOf,
  type NoAnswer,
  preflightBaseLayerLaunch,
  reachedBaseLayerStatus,
  readBaseLayerCapabilities,
  readBaseLayerLaunch,
  requireBaseLayerWrites,
  sendFundingSignature,
  waitForBaseLayerLaunch,
} from './calls.ts';
export {
  type BaseLayerSubmitJournalV1,
  createBaseLayerJournal,
  openBaseLayerJournal,
  saveBaseLayerJournal,
} from './journal.ts';
export {
  type BaseLayerProjectManifestV1,
  baseLayerManifestFile,
  checkBaseLayerManifest,
  readBaseLayerManifest,
} from './manifest.ts';
export {
  type BaseLayerDeployment,
  type BaseLayerPackOptions,
  type BaseLayerPackResult,
  packBaseLayerLaunch,
} from './pack.ts';
export { readBaseLayerRequestFile } from './request-file.ts';
export {
  type BaseLayerSubmitOptions,
  type BaseLayerSubmitResult,
  baseLayerCreatePath,
  submitBaseLayerWithJournal,
} from './submit.ts';
