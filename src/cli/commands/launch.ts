import { type CliCommand, positiveSeconds, stringFlag } from '../command.ts';
import { CliExit } from '../exit-codes.ts';
import {
  coverageCommand,
  handoffCommand,
  preflightCommand,
  reissueCommand,
  sourcesCommand,
  statusCommand,
  submitCommand,
  waitCommand,
} from './remote.ts';

/** `custom-launch preflight`: spec/openapi/paths/v4-custom-launches-preflight.yaml, preflightCustomLaunchV4. */
export const preflight: CliCommand = {
  name: 'preflight',
  flags: {},
  usage: `  custom-launch preflight <request.json>
      Validate remotely; nothing is stored.
`,
  run: ({ one, remote }) => preflightCommand({ request: one('request file') }, remote()),
};

/** `custom-launch submit`: spec/openapi/paths/v4-custom-launches.yaml, createCustomLaunchV4, through the submit journal. */
export const submit: CliCommand = {
  name: 'submit',
  flags: { journal: { type: 'string' }, 'max-wait': { type: 'string' } },
  usage: `  custom-launch submit <request.json> --journal <file> [--max-wait <seconds>]
  custom-launch submit --journal <file> [--max-wait <seconds>]
      Submit the exact bytes. A new journal (mode 0600) binds the idempotency key, the origin and the bytes
      before the first send; timeouts, 429 and retryable 503 resend only those bytes with that key, honoring
      Retry-After. Run it again with the same journal to resume after an interruption. Default --max-wait 600.
`,
  run: ({ args, values, remote }) => {
    const journal = stringFlag(values, 'journal');
    if (!journal) throw new CliExit('usage', 'submit needs --journal <file>');
    if (args.length > 1) throw new CliExit('usage', 'submit takes at most one request file; see --help');
    const maxWaitMs = positiveSeconds(values['max-wait'], 'max-wait', 600);
    return submitCommand({ request: args[0], journal, maxWaitMs }, remote());
  },
};

/** `custom-launch status`: spec/openapi/paths/v4-custom-launch.yaml, getCustomLaunchV4, by launchId. */
export const status: CliCommand = {
  name: 'status',
  flags: {},
  usage: `  custom-launch status <launchId>
`,
  run: ({ one, remote }) => statusCommand({ launchId: one('launchId') }, remote()),
};

/** `custom-launch wait`: getCustomLaunchV4, polled until a status. */
export const wait: CliCommand = {
  name: 'wait',
  flags: { until: { type: 'string' }, interval: { type: 'string' }, 'max-wait': { type: 'string' } },
  usage: `  custom-launch wait <launchId> [--until authorized|finalized] [--interval <seconds>] [--max-wait <seconds>]
      Poll by launchId (never a requestId), pinned to API version 4 and chain 4663, showing the status and the
      elapsed time. Defaults: --until authorized, --interval 2, --max-wait 900.
`,
  run: ({ values, one, remote }) => {
    const until = stringFlag(values, 'until') ?? 'authorized';
    if (until !== 'authorized' && until !== 'finalized') {
      throw new CliExit('usage', `--until must be authorized or finalized, got "${until}"`);
    }
    const launchId = one('launchId');
    const intervalMs = positiveSeconds(values.interval, 'interval', 2);
    const maxWaitMs = positiveSeconds(values['max-wait'], 'max-wait', 900);
    return waitCommand({ launchId, until, intervalMs, maxWaitMs }, remote());
  },
};

/** `custom-launch reissue`: spec/openapi/paths/v4-permit-reissue-disposition.yaml, decidePermitReissueV4. */
export const reissue: CliCommand = {
  name: 'reissue',
  flags: { decision: { type: 'string' }, 'max-wait': { type: 'string' } },
  usage: `  custom-launch reissue <launchId> --decision reissue|decline [--max-wait <seconds>]
      Decide about a launch whose permit expired before its wallet transaction was mined (status shows the
      decision deadline): reissue (the server gates run again and bind a new permit and transaction; the old one
      can only revert) or decline (the launch fails). Needs the launch wallet's own key. The bytes and the
      idempotency key are fixed by the launch and the decision: run it again after an interruption. Default
      --max-wait 600.
`,
  run: ({ values, one, remote }) => {
    const decision = stringFlag(values, 'decision');
    if (decision !== 'reissue' && decision !== 'decline') {
      throw new CliExit('usage', `--decision must be reissue or decline, got "${decision ?? ''}"`);
    }
    const maxWaitMs = positiveSeconds(values['max-wait'], 'max-wait', 600);
    return reissueCommand({ launchId: one('launchId'), decision, maxWaitMs }, remote());
  },
};

/** `custom-launch handoff`: the wallet transaction and the bound metadata of one launch. */
export const handoff: CliCommand = {
  name: 'handoff',
  flags: { journal: { type: 'string' }, request: { type: 'string' } },
  usage: `  custom-launch handoff <launchId> [--journal <file> | --request <request.json>]
      Print the exact wallet transaction for the controller to review and send from the wallet, and beside it,
      read-only, the launch metadata the request bound (name, symbol, description, links, image digest and URI),
      shown only when it matches projectMetadataHash. With the submit journal or the request file (its exact
      bytes, checked against the launch's requestDigest) the image itself is shown on a terminal that supports
      inline images (iTerm2, WezTerm, kitty; never inside tmux or screen or when stdout is not a terminal).
`,
  run: ({ values, one, env, remote }) =>
    handoffCommand(
      {
        launchId: one('launchId'),
        journal: stringFlag(values, 'journal'),
        request: stringFlag(values, 'request'),
        terminal: env,
      },
      remote(),
    ),
};

/** `custom-launch sources`: spec/openapi/paths/v4-custom-launch-source-file.yaml, putCustomLaunchSourceFileV4, once per file of the manifest. */
export const sources: CliCommand = {
  name: 'sources',
  flags: { request: { type: 'string' }, project: { type: 'string' } },
  usage: `  custom-launch sources <launchId> --request <request.json> --project <project-folder>
      Deliver the files of the request's source manifest, read from the project it was packed from and checked
      against their hashes first. Run it right after submit: the permit waits for them (the launch stays
      validating, SOURCE_FILES_PENDING, until the last file arrives); source verification reuses them once the
      launch is finalized. Safe to rerun.
`,
  run: ({ values, one, remote }) => {
    const request = stringFlag(values, 'request');
    const project = stringFlag(values, 'project');
    if (!request || !project) {
      throw new CliExit('usage', 'sources needs --request <request.json> and --project <project-folder>');
    }
    return sourcesCommand({ launchId: one('launchId'), request, project }, remote());
  },
};

/** `custom-launch coverage`: spec/openapi/paths/v4-launch-coverage.yaml, getLaunchCoverageV4. */
export const coverage: CliCommand = {
  name: 'coverage',
  flags: {},
  usage: `  custom-launch coverage
      Print the public launch-coverage report.
`,
  run: ({ args, remote }) => {
    if (args.length > 0) throw new CliExit('usage', 'coverage takes no argument');
    return coverageCommand(remote());
  },
};
