import type { PartnerSubkeyRequestV1 } from '../../../generated/types/service.ts';
import { idempotencyKeyPattern, newIdempotencyKey } from '../../client/core/journal-file.ts';
import { supportLine } from '../../client/core/support.ts';
import { clientRefusalCodes, uuidPattern } from '../../client/core/transport.ts';
import {
  issueSubkey,
  listSubkeys,
  revokeSubkey,
  rotateSubkey,
  type SubkeyFailure,
  type SubkeyWriteResult,
  subkeyRequestBytes,
} from '../../client/subkeys.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { type CliCommand, type CommandGroup, positiveSeconds, stringFlag } from '../command.ts';
import { CliExit } from '../exit-codes.ts';
import type { Remote } from './remote.ts';

/** One `custom-launch subkeys …` command line, parsed. */
export interface SubkeysArgs {
  sub: string | undefined;
  args: string[];
  name: string | undefined;
  scopes: string | undefined;
  preparePerHour: string | undefined;
  readPerMinute: string | undefined;
  expiresAt: string | undefined;
  idempotencyKey: string | undefined;
  maxWaitMs: number;
  /** Options given that the subkeys group does not take. */
  foreign: string[];
}

const childScopes = ['custom-launch:create', 'custom-launch:read'] as const;
const writeFlags = ['name', 'scopes', 'preparePerHour', 'readPerMinute', 'expiresAt', 'idempotencyKey'] as const;
const flagName: Record<(typeof writeFlags)[number], string> = {
  name: '--name',
  scopes: '--scopes',
  preparePerHour: '--prepare-per-hour',
  readPerMinute: '--read-per-minute',
  expiresAt: '--expires-at',
  idempotencyKey: '--idempotency-key',
};

/** A failure's status and code, then its support line (requestId, HTTP status, UTC time, code). */
function describe(failure: {
  status: number | null;
  code: string | null;
  requestId: string | null;
  at: string;
}): string {
  const status = failure.status === null ? '' : `${failure.status} `;
  return `${status}${failure.code ?? 'no code'} (${supportLine(failure)})`;
}

function fail(what: string, failure: SubkeyFailure, hint = ''): never {
  if (failure.kind === 'unresolved') {
    const answered = failure.status === null ? '' : `; last answer ${describe(failure)}`;
    throw new CliExit('unresolved', `${what}: no definite answer: ${failure.reason}${answered}${hint}`);
  }
  const message = hint ? failure.message.replace(/\.$/, '') : failure.message;
  // A client code: the client refused what came back (a redirect, or a body that is not the answer asked for).
  const by = (clientRefusalCodes as readonly string[]).includes(failure.code)
    ? 'the client refused the answer'
    : 'the service refused';
  throw new CliExit('refused', `${what}: ${by} with ${describe(failure)}: ${message}${hint}`);
}

/** The subkey request the flags state, checked locally; nothing is sent when a flag is missing or malformed. */
function requestOf(args: SubkeysArgs, what: string): PartnerSubkeyRequestV1 {
  const missing = (['name', 'scopes', 'preparePerHour', 'readPerMinute', 'expiresAt'] as const).filter(
    (f) => args[f] === undefined,
  );
  if (missing.length > 0) {
    throw new CliExit('usage', `${what} needs ${missing.map((f) => `${flagName[f]} <…>`).join(', ')}; see --help`);
  }
  const name = args.name as string;
  if (name.length === 0) throw new CliExit('usage', '--name must not be empty');
  const scopes = (args.scopes as string)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(childScopes as readonly string[]).includes(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new CliExit(
      'usage',
      `--scopes must list ${childScopes.join(' and/or ')} (comma-separated)${unknown.length > 0 ? `, got ${unknown.join(', ')}` : ''}`,
    );
  }
  const count = (flag: 'preparePerHour' | 'readPerMinute'): number => {
    const raw = args[flag] as string;
    if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < 1) {
      throw new CliExit('usage', `${flagName[flag]} must be a positive integer, got "${raw.slice(0, 40)}"`);
    }
    return Number(raw);
  };
  const request: PartnerSubkeyRequestV1 = {
    displayName: name,
    scopes: scopes as PartnerSubkeyRequestV1['scopes'],
    prepareRequestsPerHour: count('preparePerHour'),
    readRequestsPerMinute: count('readPerMinute'),
    expiresAt: args.expiresAt as string,
  };
  // The contract's own bounds (name length and characters, budget maxima, the UTC millisecond time): nothing the
  // service would refuse by its schema is sent.
  const problems = schemaProblems('partner-subkey-request.v1.schema.json', request);
  if (problems.length > 0) {
    throw new CliExit(
      'usage',
      `the flags do not make a platform.partner-subkey-request.v1 body (--expires-at is UTC with milliseconds, such as 2027-01-01T00:00:00.000Z): ${problems.join('; ')}`,
    );
  }
  return request;
}

function subkeyIdOf(args: SubkeysArgs): string {
  const [id, ...more] = args.args;
  if (id === undefined || more.length > 0)
    throw new CliExit('usage', `subkeys ${args.sub} takes one subkeyId; see --help`);
  if (!uuidPattern.test(id))
    throw new CliExit('usage', `"${id.slice(0, 80)}" is not a subkeyId (a UUID from subkeys list)`);
  return id;
}

/** What every subkey call takes: the origin, the root key (only from the environment), timeouts, progress. */
function callOptions(args: SubkeysArgs, remote: Remote, what: string, apiKey = remote.apiKey()) {
  return {
    origin: remote.env.origin,
    apiKey,
    timeoutMs: remote.timeoutMs,
    maxWaitMs: args.maxWaitMs,
    onRetry: (message: string) => remote.out.note(`${what}: ${message}`),
  };
}

/** Issue or rotate: the flags' exact bytes and one Idempotency-Key, resent only as that pair. */
async function writeCommand(args: SubkeysArgs, remote: Remote, subkeyId: string | null): Promise<void> {
  const what = `subkeys ${args.sub}`;
  const body = subkeyRequestBytes(requestOf(args, what));
  if (args.idempotencyKey !== undefined && !idempotencyKeyPattern.test(args.idempotencyKey)) {
    throw new CliExit(
      'usage',
      '--idempotency-key must be 16 to 128 letters, digits, dots, underscores, colons or hyphens',
    );
  }
  const apiKey = remote.apiKey();
  const { out } = remote;
  const idempotencyKey = args.idempotencyKey ?? newIdempotencyKey();
  const rerun = `rerun with --idempotency-key ${idempotencyKey} and the same flags`;
  if (args.idempotencyKey === undefined) {
    out.note(
      `idempotency key ${idempotencyKey}: if the answer is lost, ${rerun} (an exact replay never issues a second subkey)`,
    );
  }
  const options = { ...callOptions(args, remote, what, apiKey), idempotencyKey, body };
  const result: SubkeyWriteResult =
    subkeyId === null ? await issueSubkey(options) : await rotateSubkey({ ...options, subkeyId });
  if (result.error?.kind === 'unresolved') fail(what, result.error, `; the subkey may have been issued: ${rerun}`);
  if (result.error) {
    const hint =
      result.error.code === 'IDEMPOTENCY_CONFLICT'
        ? `; --idempotency-key ${idempotencyKey} was already used with other flags${subkeyId ? ' or another subkey' : ''}: a new subkey needs a new key`
        : result.error.code === 'RATE_LIMITED'
          ? `; nothing was issued: ${rerun} later`
          : '';
    fail(what, result.error, hint);
  }
  const { outcome, subkey } = result.data;
  out.result({ outcome, httpStatus: outcome === 'issued' ? 201 : 200, idempotencyKey, subkey });
  out.line(JSON.stringify(subkey, null, 2));
  if (outcome === 'issued') {
    const rotated = subkeyId ? `; subkey ${subkeyId} is rotated and its key no longer works` : '';
    out.note(
      `subkey ${subkey.subkeyId} ${subkeyId ? 'issued by rotation' : 'issued'}${rotated}. Its apiKey is shown only now, on stdout: store it in a secret store. It is never shown again; if it is lost, rotate the subkey.`,
    );
  } else {
    out.note(
      `exact replay of idempotency key ${idempotencyKey} (secretState already-delivered): subkey ${subkey.subkeyId}'s secret was delivered by the first answer and is not shown again; if it was lost, rotate the subkey (custom-launch subkeys rotate ${subkey.subkeyId} …).`,
    );
  }
}

/**
 * `custom-launch subkeys <list|issue|rotate|revoke>`: a partner root's subkey administration
 * (spec/openapi/paths/partner-subkey*.yaml). The root key comes only from PLATFORM_API_KEY;
 * refusals name their code and requestId.
 */
export async function subkeysCommand(args: SubkeysArgs, remote: Remote): Promise<void> {
  if (args.foreign.length > 0) {
    throw new CliExit('usage', `subkeys does not take ${args.foreign.map((o) => `--${o}`).join(', ')}; see --help`);
  }
  const writes = args.sub === 'issue' || args.sub === 'rotate';
  const stray = writeFlags.filter((f) => args[f] !== undefined);
  if (!writes && stray.length > 0) {
    throw new CliExit(
      'usage',
      `${stray.map((f) => flagName[f]).join(', ')} belong${stray.length === 1 ? 's' : ''} to subkeys issue and rotate`,
    );
  }
  const { out } = remote;
  switch (args.sub) {
    case 'list': {
      if (args.args.length > 0) throw new CliExit('usage', 'subkeys list takes no argument; see --help');
      const result = await listSubkeys(callOptions(args, remote, 'subkeys list'));
      if (result.error) fail('subkeys list', result.error);
      const { items } = result.data;
      out.result(result.data);
      out.line(`${items.length} subkey${items.length === 1 ? '' : 's'} of this partner root, newest first`);
      for (const s of items) {
        const from = s.rotatedFromSubkeyId ? `, rotated from ${s.rotatedFromSubkeyId}` : '';
        out.line(
          `  ${s.subkeyId}  ${s.status.padEnd(7)}  ${JSON.stringify(s.displayName)}  ${s.scopes.join(',')}  ` +
            `${s.budgets.prepareRequestsPerHour}/h prepare, ${s.budgets.readRequestsPerMinute}/min read, ` +
            `expires ${s.expiresAt}${from}`,
        );
      }
      return;
    }
    case 'issue':
      if (args.args.length > 0) throw new CliExit('usage', 'subkeys issue takes no argument, only flags; see --help');
      await writeCommand(args, remote, null);
      return;
    case 'rotate':
      await writeCommand(args, remote, subkeyIdOf(args));
      return;
    case 'revoke': {
      const subkeyId = subkeyIdOf(args);
      const result = await revokeSubkey({ ...callOptions(args, remote, 'subkeys revoke'), subkeyId });
      if (result.error) fail('subkeys revoke', result.error, '; revoking again is safe');
      out.result(result.data);
      out.line(`subkey ${subkeyId}: ${result.data.status}; its key no longer works`);
      return;
    }
    default:
      throw new CliExit(
        'usage',
        args.sub === undefined
          ? 'subkeys needs list, issue, rotate or revoke; see --help'
          : `unknown subkeys command "${args.sub}"; see --help`,
      );
  }
}

/** `custom-launch subkeys …`: the command-table entry (spec/openapi/paths/partner-subkey*.yaml). */
export const subkeys: CliCommand = {
  name: 'subkeys',
  flags: {
    name: { type: 'string' },
    scopes: { type: 'string' },
    'prepare-per-hour': { type: 'string' },
    'read-per-minute': { type: 'string' },
    'expires-at': { type: 'string' },
    'idempotency-key': { type: 'string' },
    'max-wait': { type: 'string' },
  },
  usage: `  custom-launch subkeys list
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
`,
  run: ({ args, values, foreign, remote }) =>
    subkeysCommand(
      {
        sub: args[0],
        args: args.slice(1),
        name: stringFlag(values, 'name'),
        scopes: stringFlag(values, 'scopes'),
        preparePerHour: stringFlag(values, 'prepare-per-hour'),
        readPerMinute: stringFlag(values, 'read-per-minute'),
        expiresAt: stringFlag(values, 'expires-at'),
        idempotencyKey: stringFlag(values, 'idempotency-key'),
        maxWaitMs: positiveSeconds(values['max-wait'], 'max-wait', 60),
        foreign,
      },
      remote(),
    ),
};

/** The subkeys group of `--help`. */
export const subkeysGroup: CommandGroup = {
  heading: "Partner subkeys (a partner root's bounded child credentials; the root key only from PLATFORM_API_KEY):",
  commands: [subkeys],
  notes:
    '  Refusals name the status and the code and end with the support line (exit 5); no definite answer is exit 6.\n',
};
