/**
 * The shared-lane (MultiRole V2, chain 4663) launch client (spec/openapi/paths/multi-role-*.yaml): capabilities and
 * their write gate, preflight, submit through the lane's journal, read and wait. Every network call returns
 * `{ data }` or `{ error }`; the client never signs.
 */
export {
  type MultiRoleCallOptions,
  type MultiRoleCallResult,
  type MultiRoleReadResult,
  type MultiRoleStatus,
  type MultiRoleWaitGoal,
  type MultiRoleWaitOptions,
  type MultiRoleWaitResult,
  multiRoleLanePath,
  multiRoleStatusOrder,
  preflightMultiRoleLaunch,
  reachedMultiRoleStatus,
  readMultiRoleCapabilities,
  readMultiRoleLaunch,
  requireMultiRoleWrites,
  waitForMultiRoleLaunch,
} from './calls.ts';
export {
  createMultiRoleJournal,
  type MultiRoleSubmitJournalV1,
  openMultiRoleJournal,
  saveMultiRoleJournal,
} from './journal.ts';
export { readMultiRoleRequestFile } from './request-file.ts';
export { type MultiRoleSubmitOptions, type MultiRoleSubmitResult, submitMultiRoleWithJournal } from './submit.ts';
