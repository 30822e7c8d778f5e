import type { Config } from '../../src/config.ts';

/**
 * The lifecycle settings of the in-process worker tests: a 20 s validation deadline, 1 s doubling backoff capped at
 * 4 s, and 10 ms polls, so a test drives the worker with its own clock and never waits on a timer.
 */
export const testLifecycle: Config['lifecycle'] = {
  validationDeadlineMs: 20_000,
  permitReissueDecisionWindowMs: 20_000,
  leaseMs: 30_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 4_000,
  pollMs: 10,
  stepDelayMs: 0,
  trackerPollMs: 10,
  sourceVerificationPollMs: 10,
  sourceVerificationRetryBaseMs: 10,
  sourceVerificationRetryMaxMs: 10,
};
