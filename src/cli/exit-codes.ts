/**
 * The CLI's exit codes, one table for the code, `--help` and docs/cli.md (a test keeps them in agreement).
 * Project design.
 */
export const exitCodes = {
  ok: { code: 0, meaning: 'done' },
  internal: { code: 1, meaning: 'internal error of the client (a bug: report it with the command line)' },
  usage: {
    code: 2,
    meaning:
      'usage or configuration: bad arguments, PLATFORM_API_KEY missing, an origin the rule refuses, or a journal that is unusable or binds other bytes or another origin',
  },
  localCheck: { code: 3, meaning: 'a local check failed (manifest, image, sources, request file): nothing was sent' },
  discoveryStop: {
    code: 4,
    meaning:
      'the service says stop before any request with the key: the discovery manifest (launches), the V3 capabilities (v3), the shared-lane capabilities (multi-role), or module capabilities or review readiness (modules)',
  },
  refused: {
    code: 5,
    meaning:
      'the service refused: a non-retryable ApiError, a redirect outside submit, an answer that is not the pinned V4 or shared-lane chain-4663 (or V3 chain-1) launch, or a module answer that does not bind the request',
  },
  unresolved: {
    code: 6,
    meaning:
      'no definite answer in time, a 500, or a redirect during submit: the launch or module draft may exist; run the same `submit --journal` (or `modules submit --journal`) again, or `wait` again',
  },
  needsAction: {
    code: 7,
    meaning:
      "the launch cannot reach the goal: action_required or needs_evidence (rebuild and submit a new request), failed or cancelled, or (v3) it awaits the controller's funding signature",
  },
} as const;

export type ExitName = keyof typeof exitCodes;

/** Ends a command with an exit code and a message for stderr. */
export class CliExit extends Error {
  constructor(
    readonly exit: ExitName,
    message: string,
  ) {
    super(message);
    this.name = 'CliExit';
  }
}
