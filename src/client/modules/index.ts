/**
 * The module-contribution client (spec/openapi/paths/modules-*.yaml): capabilities,
 * context, submit through a journal, receipts, the receipt list, review status and review export. Every call
 * returns `{ data }` or `{ error }` (a ModuleFailure with the client code or the service's ApiError code) and throws
 * only on misuse (TypeError), an unusable journal (JournalError) or a request that fails its local checks
 * (LocalCheckError).
 */

export type {
  ModuleIntakeReceipt,
  ModuleReviewCapabilities,
  ModuleReviewExport,
  ModuleReviewStatus,
  ModuleSubmissionRequest,
  ModulesCapabilities,
  ModulesContext,
} from '../../../generated/types/service.ts';
export { type ModuleApiKey, moduleApiKey, moduleKeyVariables } from './api-key.ts';
export {
  type AuthenticatedModuleCall,
  exportLimitBytes,
  type ModuleCall,
  responseLimitBytes,
  timeoutBounds,
} from './call.ts';
export {
  implementedFormats,
  readModulesCapabilities,
  requireUploadCapabilities,
  uploadRefusal,
} from './capabilities.ts';
export {
  contextProblems,
  readModulesContext,
} from './context.ts';
export {
  describeFailure,
  type ModuleClientCode,
  type ModuleFailure,
  type ModuleResult,
  moduleClientCodes,
} from './errors.ts';
export { type ModuleSubmitJournal, openModuleJournal } from './journal.ts';
export {
  fetchModuleReceipt,
  listModuleReceipts,
  receiptBindingProblems,
  requestDigestOf,
} from './receipt.ts';
export { checkModuleRequest, readModuleRequestFile } from './request-file.ts';
export {
  fetchModuleReviewCapabilities,
  fetchModuleReviewExport,
  fetchModuleReviewStatus,
} from './review.ts';
export { postSubmission, submitModuleRequest, submitWithModuleJournal } from './submit.ts';
