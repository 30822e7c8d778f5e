import { parseArgs } from 'node:util';
import { JournalError } from '../client/core/journal-file.ts';
import { LocalCheckError } from '../client/core/local-check-error.ts';
import { DiscoveryStop } from '../client/launches/discovery.ts';
import { clientReleases } from '../core/client-releases.ts';
import { modulesCommand } from './commands/modules.ts';
import { packCommand } from './commands/pack.ts';
import {
  coverageCommand,
  handoffCommand,
  preflightCommand,
  type Remote,
  sourcesCommand,
  statusCommand,
  submitCommand,
  waitCommand,
} from './commands/remote.ts';
import { subkeysCommand } from './commands/subkeys.ts';
import { apiKeyFromEnvironment, cliEnvironment, defaultOrigin } from './environment.ts';
import { CliExit, type ExitName, exitCodes } from './exit-codes.ts';
import { createOutput } from './output.ts';

/** The client release this CLI implements (launch-transport.md Versioning 2: 4.1.1 keeps the 4.1.0 contract). */
export const clientRelease = clientReleases['4.1.0'];

/** The whole `--help` text, exit codes included (the README repeats the table; a test compares them). */
export function helpText(): string {
  const codes = Object.values(exitCodes)
    .map((e) => `  ${e.code}  ${e.meaning}`)
    .join('\n');
  return `custom-launch ${clientRelease}: the V4 launch client for chain 4663. It never signs or broadcasts.

Usage:
  custom-launch pack <project-folder> --out <request.json> [--chain-deployment <file>]
      Build a fresh create request from a project folder (launch.json, Solidity sources, image), offline:
      compiles, computes every hash, mines the hook salt, draws a new nonce. The image must be a PNG or a
      single-frame GIF. Chain deployment default: var/devnet/chain-deployment.json (written by make start).
  custom-launch preflight <request.json>
      Validate remotely; nothing is stored.
  custom-launch submit <request.json> --journal <file> [--max-wait <seconds>]
  custom-launch submit --journal <file> [--max-wait <seconds>]
      Submit the exact bytes. A new journal (mode 0600) binds the idempotency key, the origin and the bytes
      before the first send; timeouts, 429 and retryable 503 resend only those bytes with that key, honoring
      Retry-After. Run it again with the same journal to resume after an interruption. Default --max-wait 600.
  custom-launch status <launchId>
  custom-launch wait <launchId> [--until authorized|finalized] [--interval <seconds>] [--max-wait <seconds>]
      Poll by launchId (never a requestId), pinned to API version 4 and chain 4663, showing the status and the
      elapsed time. Defaults: --until authorized, --interval 2, --max-wait 900.
  custom-launch handoff <launchId> [--journal <file> | --request <request.json>]
      Print the exact wallet transaction for the controller to review and send from the wallet, and beside it,
      read-only, the launch metadata the request bound (name, symbol, description, links, image digest and URI),
      shown only when it matches projectMetadataHash. With the submit journal or the request file (its exact
      bytes, checked against the launch's requestDigest) the image itself is shown on a terminal that supports
      inline images (iTerm2, WezTerm, kitty; never inside tmux or screen or when stdout is not a terminal).
  custom-launch sources <launchId> --request <request.json> --project <project-folder>
      Deliver the files of the request's source manifest, read from the project it was packed from and checked
      against their hashes first. Run it right after submit: the permit waits for them (the launch stays
      validating, SOURCE_FILES_PENDING, until the last file arrives); source verification reuses them once the
      launch is finalized. Safe to rerun.
  custom-launch coverage
      Print the public launch-coverage report.

Module contributions (source packages as unreviewed drafts; never approval or publication):
  custom-launch modules capabilities
      Print the public module capabilities (no key).
  custom-launch modules context
      Print the key's author wallet, scopes, live intake limits and review policy.
  custom-launch modules submit <request.json> --journal <file>
  custom-launch modules submit --journal <file>
      Upload a submission request (platform.modules.submission.v0.1), checked locally first. The public
      capabilities are read before every upload; neither the key nor any source is sent unless they accept
      uploads in this client's formats. A new journal (mode 0600) binds one Idempotency-Key to the exact bytes;
      when the submission may exist, run it again with the same journal: only that pair is ever resent.
  custom-launch modules receipt <submissionId>
  custom-launch modules list
      One intake receipt, or all of them (every page, following nextCursor).
  custom-launch modules review <submissionId>
  custom-launch modules export <submissionId> --out <file>
      The review status, or the accepted build's export (up to 3 MiB) written to a new file; each after the
      public review readiness check, bound to the receipt. Nothing polls by itself.
  Messages start with the code: MODULE_API_KEY_CONFLICT (exit 2); MODULE_SUBMISSIONS_UNAVAILABLE (4) and
  MODULE_REVIEW_UNAVAILABLE of the readiness check (4, the key was not sent); MODULE_API_TIMEOUT and
  MODULE_API_NETWORK (6; a refused redirect on a read 5); MODULE_API_RESPONSE and MODULE_API_RECEIPT_MISMATCH
  (6 after an upload: the submission may exist; else 5); MODULE_CONTEXT_RESPONSE and MODULE_REVIEW_RESPONSE
  (5). Answers over 1 MiB (an export over 3 MiB) after decompression are refused unread.

Partner subkeys (a partner root's bounded child credentials; the root key only from PLATFORM_API_KEY):
  custom-launch subkeys list
      Every subkey of the root, newest first, with its status; no secrets.
  custom-launch subkeys issue --name <displayName> --scopes <custom-launch:create,custom-launch:read>
      --prepare-per-hour <n> --read-per-minute <n> --expires-at <UTC, e.g. 2027-01-01T00:00:00.000Z>
      [--idempotency-key <k>] [--max-wait <seconds>]
  custom-launch subkeys rotate <subkeyId> <the flags of issue>
      Issue a subkey, or rotate one (revoke it and issue its replacement in the same lineage). The body is built
      from the flags in a fixed order, so the same flags give the same bytes. Without --idempotency-key one is
      generated and printed to stderr first: if the answer is lost, rerun with it and the same flags (an exact
      replay never issues a second subkey). No answer, 429 and retryable 503 resend the same bytes with the same
      key, honoring Retry-After, within --max-wait (default 60). The new apiKey is printed once, on stdout; a
      replay answers already-delivered and shows no key (rotate the subkey if its key was lost).
  custom-launch subkeys revoke <subkeyId>
      Revoke at once; revoking again is safe.
  Refusals name the status and the code and end with the support line (exit 5); no definite answer is exit 6.

Support: every refusal ends with "support: requestId <id>, HTTP <status>, <UTC time>, <code>", all a support
request needs (never quote a key). A requestId (req_ and 32 hex digits) is no launchId: status, wait, handoff and
sources refuse one before sending anything.

Options: --json (one JSON object on stdout; messages stay on stderr), --timeout-ms <1..120000> per request
(default 30000; modules 20000), --help, --version.

Environment:
  PLATFORM_API_KEY        the API key; read only from here, never from a flag, a file or a prompt; never printed
  PLATFORM_MODULES_API_KEY  the key of the modules commands, instead of PLATFORM_API_KEY; when both are set
                          they must be equal (else MODULE_API_KEY_CONFLICT and nothing is sent)
  CUSTOM_LAUNCH_ORIGIN    the service origin, default ${defaultOrigin}; https, or http on localhost,
                          127.0.0.1 or [::1]; authenticated traffic goes only here and redirects are refused
  CUSTOM_LAUNCH_SITE_URL  the site serving the discovery manifest, default the service origin; read before
                          every preflight and submit, which stop unless it allows V4 writes on chain 4663

Exit codes:
${codes}
`;
}

const keyFlags = /^--?(api-?key|key|token|secret|bearer)(=|$)/i;

function positiveSeconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || Number(value) <= 0) {
    throw new CliExit('usage', `--${name} must be a positive number of seconds, got "${value}"`);
  }
  return Math.round(Number(value) * 1000);
}

/** Runs one command line; returns the exit code. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out = createOutput(argv.includes('--json'));
  try {
    const keyFlag = argv.find((a) => keyFlags.test(a));
    if (keyFlag) {
      throw new CliExit(
        'usage',
        'the API key is read only from PLATFORM_API_KEY (or PLATFORM_MODULES_API_KEY for modules), never from a command-line flag',
      );
    }
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
        out: { type: 'string' },
        'chain-deployment': { type: 'string' },
        journal: { type: 'string' },
        'max-wait': { type: 'string' },
        until: { type: 'string' },
        interval: { type: 'string' },
        'timeout-ms': { type: 'string' },
        request: { type: 'string' },
        project: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        'prepare-per-hour': { type: 'string' },
        'read-per-minute': { type: 'string' },
        'expires-at': { type: 'string' },
        'idempotency-key': { type: 'string' },
      },
    });
    const [command, ...rest] = positionals;
    if (values.version) {
      out.line(clientRelease);
      out.result({ clientRelease });
      return 0;
    }
    if (values.help || command === undefined || command === 'help') {
      process.stdout.write(helpText());
      return command === undefined && !values.help ? exitCodes.usage.code : 0;
    }
    // The module client's default is 20 s (modules-subkeys-developer-api.md Limits); the launch client's 30 s.
    const timeoutRaw = values['timeout-ms'] ?? (command === 'modules' ? '20000' : '30000');
    if (!/^[0-9]+$/.test(timeoutRaw) || Number(timeoutRaw) < 1 || Number(timeoutRaw) > 120_000) {
      throw new CliExit('usage', `--timeout-ms must be an integer from 1 to 120000, got "${timeoutRaw}"`);
    }
    const subkeyFlags = ['name', 'scopes', 'prepare-per-hour', 'read-per-minute', 'expires-at', 'idempotency-key'];
    const strayFlags = subkeyFlags.filter((f) => values[f as keyof typeof values] !== undefined);
    if (command !== 'subkeys' && strayFlags.length > 0) {
      throw new CliExit('usage', `${strayFlags.map((f) => `--${f}`).join(', ')} belong to subkeys issue and rotate`);
    }
    const one = (what: string): string => {
      if (rest.length !== 1 || rest[0] === undefined)
        throw new CliExit('usage', `${command} takes one ${what}; see --help`);
      return rest[0];
    };
    const remote = (): Remote => ({
      env: cliEnvironment(env),
      apiKey: () => apiKeyFromEnvironment(env),
      timeoutMs: Number(timeoutRaw),
      out,
    });
    switch (command) {
      case 'pack': {
        if (!values.out) throw new CliExit('usage', 'pack needs --out <request.json>');
        packCommand(
          { project: one('project folder'), out: values.out, chainDeployment: values['chain-deployment'] },
          out,
        );
        return 0;
      }
      case 'preflight':
        await preflightCommand({ request: one('request file') }, remote());
        return 0;
      case 'submit': {
        if (!values.journal) throw new CliExit('usage', 'submit needs --journal <file>');
        if (rest.length > 1) throw new CliExit('usage', 'submit takes at most one request file; see --help');
        await submitCommand(
          {
            request: rest[0],
            journal: values.journal,
            maxWaitMs: positiveSeconds(values['max-wait'], 'max-wait', 600),
          },
          remote(),
        );
        return 0;
      }
      case 'status':
        await statusCommand({ launchId: one('launchId') }, remote());
        return 0;
      case 'wait': {
        const until = values.until ?? 'authorized';
        if (until !== 'authorized' && until !== 'finalized') {
          throw new CliExit('usage', `--until must be authorized or finalized, got "${until}"`);
        }
        await waitCommand(
          {
            launchId: one('launchId'),
            until,
            intervalMs: positiveSeconds(values.interval, 'interval', 2),
            maxWaitMs: positiveSeconds(values['max-wait'], 'max-wait', 900),
          },
          remote(),
        );
        return 0;
      }
      case 'handoff':
        await handoffCommand(
          { launchId: one('launchId'), journal: values.journal, request: values.request, terminal: env },
          remote(),
        );
        return 0;
      case 'sources': {
        if (!values.request || !values.project) {
          throw new CliExit('usage', 'sources needs --request <request.json> and --project <project-folder>');
        }
        await sourcesCommand({ launchId: one('launchId'), request: values.request, project: values.project }, remote());
        return 0;
      }
      case 'coverage':
        if (rest.length > 0) throw new CliExit('usage', 'coverage takes no argument');
        await coverageCommand(remote());
        return 0;
      case 'modules': {
        const own = new Set(['json', 'help', 'version', 'timeout-ms', 'journal', 'out']);
        await modulesCommand(
          {
            sub: rest[0],
            args: rest.slice(1),
            journal: values.journal,
            out: values.out,
            foreign: Object.keys(values).filter((name) => !own.has(name)),
          },
          { env: cliEnvironment(env), processEnv: env, timeoutMs: Number(timeoutRaw), out },
        );
        return 0;
      }
      case 'subkeys': {
        const own = new Set(['json', 'help', 'version', 'timeout-ms', 'max-wait', ...subkeyFlags]);
        await subkeysCommand(
          {
            sub: rest[0],
            args: rest.slice(1),
            name: values.name,
            scopes: values.scopes,
            preparePerHour: values['prepare-per-hour'],
            readPerMinute: values['read-per-minute'],
            expiresAt: values['expires-at'],
            idempotencyKey: values['idempotency-key'],
            maxWaitMs: positiveSeconds(values['max-wait'], 'max-wait', 60),
            foreign: Object.keys(values).filter((name) => !own.has(name)),
          },
          remote(),
        );
        return 0;
      }
      default:
        throw new CliExit('usage', `unknown command "${command}"; see --help`);
    }
  } catch (err) {
    const [exit, message] = classify(err);
    out.endProgress();
    out.note(`custom-launch: ${message}`);
    if (out.json) out.result({ error: { exit: exitCodes[exit].code, kind: exit, message } });
    return exitCodes[exit].code;
  }
}

function classify(err: unknown): [ExitName, string] {
  if (err instanceof CliExit) return [err.exit, err.message];
  if (err instanceof LocalCheckError) return ['localCheck', `${err.code}: ${err.message}`];
  if (err instanceof DiscoveryStop) return ['discoveryStop', err.message];
  if (err instanceof JournalError) return ['usage', err.message];
  // parseArgs' own errors (unknown option, missing value) and misuse the client library refuses.
  const code = (err as { code?: string }).code;
  if (code?.startsWith('ERR_PARSE_ARGS') || err instanceof TypeError) return ['usage', (err as Error).message];
  return ['internal', (err as Error)?.stack ?? String(err)];
}
