import { existsSync } from 'node:fs';
import { credentialFingerprint, JournalError } from '../../client/core/journal-file.ts';
import type { JournalSubmitOptions, JournalSubmitResult, SubmitJournal } from '../../client/core/journal-submit.ts';
import type { NoAnswer, PinnedReadResult, PollResult } from '../../client/core/lane-calls.ts';
import type { Refusal } from '../../client/core/transport.ts';
import { type CliCommand, positiveSeconds, stringFlag } from '../command.ts';
import { CliExit } from '../exit-codes.ts';
import { elapsed, type Output } from '../output.ts';
import { type Remote, refused } from './remote.ts';

// The parts the lane command groups (`v3 …`, `multi-role …`) share: their journal submit, their pinned read, the
// wallet handoff print and the exits of their calls.

/** The exit of a call's error: a refusal (5, with the support line) or no answer (6, run it again). */
export function failed(error: Refusal | NoAnswer, what: string): CliExit {
  if (error.kind === 'no_answer') return new CliExit('unresolved', `${what}: ${error.reason}; run it again`);
  return refused(error);
}

/** The one positional of `<group> <sub>`, else a usage error naming `what`. */
export function onePositional(group: string, args: string[], sub: string, what: string): string {
  if (args.length !== 1 || args[0] === undefined) {
    throw new CliExit('usage', `${group} ${sub} takes one ${what}; see --help`);
  }
  return args[0];
}

/** A submit journal as a lane's submit command reads it. */
interface LaneJournal extends SubmitJournal {
  credentialFingerprint: string;
  requestSha256: string;
  createdAt: string;
}

/** What a lane's submit command needs of its lane: its journal, its request file, its write gate and its submit. */
export interface SubmitLane<J extends LaneJournal, L extends { launchId: string; status: string }> {
  /** The command group (`v3`, `multi-role`), for messages. */
  group: string;
  open: (path: string) => { doc: J; bytes: Buffer };
  create: (path: string, input: { origin: string; apiKey: string; bytes: Uint8Array; now: number }) => J;
  readRequestBytes: (path: string) => Buffer;
  /** The gate read with no key before any authenticated request (throws DiscoveryStop). */
  requireWrites: (remote: Remote) => Promise<unknown>;
  submit: (options: JournalSubmitOptions<J>) => Promise<JournalSubmitResult<L>>;
}

/** An existing journal, checked against the origin, the given request and its recorded outcome. */
function resumable<J extends LaneJournal>(
  lane: Pick<SubmitLane<J, never>, 'open' | 'readRequestBytes'>,
  path: string,
  request: string | undefined,
  remote: Remote,
) {
  const { doc, bytes } = lane.open(path);
  if (doc.origin !== remote.env.origin) {
    throw new JournalError(
      `${path} binds the origin ${doc.origin}, not the configured ${remote.env.origin}; its bytes go only there`,
    );
  }
  if (request !== undefined && !lane.readRequestBytes(request).equals(bytes)) {
    throw new JournalError(
      `${path} binds other bytes than ${request}; a changed request is a new submission: use a new journal`,
    );
  }
  if (doc.outcome.state === 'refused') {
    const answered = doc.attempts.filter((a) => a.result === 'answer').at(-1);
    throw refused({
      status: doc.outcome.httpStatus ?? 0,
      code: (doc.outcome.code ?? 'NOT_AN_API_ERROR') as Refusal['code'],
      message: 'recorded in the journal; a changed request is a new submission with a new journal',
      requestId: doc.outcome.requestId,
      at: answered?.at ?? doc.createdAt,
    });
  }
  remote.out.note(
    doc.outcome.state === 'accepted'
      ? `${path} already holds an accepted submission; resending its bytes reconciles (exact replay)`
      : `resuming ${path}: the same bytes with the same idempotency key`,
  );
  return { doc, bytes };
}

/**
 * `<group> submit [<request.json>] --journal <file>`: a new journal binds the request's exact bytes, the origin and a
 * fresh idempotency key before the first send (after the lane's write gate); an existing journal is resumed and only
 * its bytes, with its key, are ever sent. Returns the accepted launch and its HTTP status.
 */
export async function submitThroughJournal<J extends LaneJournal, L extends { launchId: string; status: string }>(
  lane: SubmitLane<J, L>,
  input: { args: string[]; journalPath: string | undefined; maxWaitMs: number },
  remote: Remote,
): Promise<{ status: 200 | 202; launch: L }> {
  const path = input.journalPath;
  if (!path) throw new CliExit('usage', `${lane.group} submit needs --journal <file>`);
  if (input.args.length > 1) {
    throw new CliExit('usage', `${lane.group} submit takes at most one request file; see --help`);
  }
  const request = input.args[0];
  let journal: J | undefined;
  let bytes: Buffer;
  if (existsSync(path)) ({ doc: journal, bytes } = resumable(lane, path, request, remote));
  else if (request === undefined) throw new CliExit('usage', `no journal at ${path} and no request file to start one`);
  else bytes = lane.readRequestBytes(request);
  const apiKey = remote.apiKey();
  if (journal && journal.credentialFingerprint !== credentialFingerprint(apiKey)) {
    throw new JournalError(
      `${path} was started with another API key; idempotency is per credential, so resuming with this one could create a second launch`,
    );
  }
  await lane.requireWrites(remote);
  const { out } = remote;
  if (!journal) {
    journal = lane.create(path, { origin: remote.env.origin, apiKey, bytes, now: Date.now() });
    out.note(
      `journal ${path} (mode 0600) binds idempotency key ${journal.idempotencyKey} and ${journal.requestSha256}`,
    );
  }
  const result = await lane.submit({
    journalPath: path,
    journal,
    bytes,
    apiKey,
    timeoutMs: remote.timeoutMs,
    maxWaitMs: input.maxWaitMs,
    onProgress: (message) => out.note(message),
  });
  if (result.error?.kind === 'refused') throw refused(result.error);
  if (result.error) {
    throw new CliExit(
      'unresolved',
      `${result.error.reason}; run \`custom-launch ${lane.group} submit --journal ${path}\` again`,
    );
  }
  const { status, launch } = result.data;
  out.result({ httpStatus: status, journal: path, launch });
  out.line(
    `${status === 202 ? 'accepted' : 'already accepted (exact replay)'}: launch ${launch.launchId}, status ${launch.status}`,
  );
  out.line(`next: custom-launch ${lane.group} wait ${launch.launchId}`);
  return { status, launch };
}

/** One pinned read's launch, or the exit that says why there is none. */
export async function launchOrExit<L>(read: Promise<PinnedReadResult<L>>): Promise<L> {
  const result = await read;
  if (result.error?.kind === 'refused') throw refused(result.error);
  if (result.error) throw new CliExit('unresolved', `no definite answer (${result.error.why}); try again`);
  return result.data.launch;
}

/** A launch's exact wallet transaction as the lanes' resources carry it. */
export interface WalletTransactionOf {
  chainId: string;
  from: string;
  to: string;
  valueWei: string;
  data: string;
}

/**
 * `<group> handoff <launchId>`: prints the exact wallet transaction for the controller's review, and the
 * eth_sendTransaction parameter; never signed or sent here. Without one, the launch needs to reach authorized first.
 */
export function printHandoff(
  launch: { launchId: string; status: string; walletTransaction: WalletTransactionOf | null },
  remote: Remote,
): void {
  const tx = launch.walletTransaction;
  if (!tx) {
    throw new CliExit(
      'needsAction',
      `launch ${launch.launchId} is ${launch.status}: it has no wallet transaction yet (wait for authorized)`,
    );
  }
  const { out } = remote;
  // eth_sendTransaction's parameter: quantities as hex, nothing the wallet should fill in on its own.
  const walletRequest = {
    chainId: `0x${BigInt(tx.chainId).toString(16)}`,
    from: tx.from,
    to: tx.to,
    value: `0x${BigInt(tx.valueWei).toString(16)}`,
    data: tx.data,
  };
  out.result({ launchId: launch.launchId, status: launch.status, walletTransaction: tx, walletRequest });
  out.line(`Wallet transaction of launch ${launch.launchId} (${launch.status}).`);
  out.line('Review it in the controller wallet; the wallet signs and sends it. This tool never signs or broadcasts.');
  out.line(`  chain             ${tx.chainId} (eip155:${tx.chainId})`);
  out.line(`  from              ${tx.from}  (the launch wallet: only it can send this)`);
  out.line(`  to                ${tx.to}  (the lane's launch router)`);
  out.line(`  value             ${tx.valueWei} wei`);
  out.line(`  data              ${(tx.data.length - 2) / 2} bytes:`);
  out.line(tx.data);
  out.line('');
  out.line('eth_sendTransaction parameter:');
  out.line(JSON.stringify(walletRequest, null, 2));
}

/** What a lane's wait command needs of its lane: its statuses, its poll and how it describes a launch. */
export interface WaitLane<G extends string, L extends { status: string }, E extends { kind: string; launch: L }> {
  group: string;
  order: readonly G[];
  poll: (
    remote: Remote,
    options: {
      launchId: string;
      until: G;
      intervalMs: number;
      maxWaitMs: number;
      onProgress: (status: string | undefined, elapsedMs: number, note?: string) => void;
    },
  ) => Promise<PollResult<L, E>>;
  describe: (launch: L, out: Output) => void;
}

/**
 * `<group> wait <launchId> [--until <status>]`: polls with a progress line until the status or past it, then prints
 * the launch. A refusal is exit 5 and a timeout exit 6; a lane's own stop (`stop`) is returned for the lane to word.
 */
export async function waitThroughPoll<
  G extends string,
  L extends { status: string },
  E extends { kind: string; launch: L },
>(
  lane: WaitLane<G, L, E>,
  input: { args: string[]; values: Record<string, string | boolean | undefined>; maxWaitMs: number },
  remote: Remote,
): Promise<{ launchId: string; until: G; launch: L; stop: E | undefined }> {
  const launchId = onePositional(lane.group, input.args, 'wait', 'launchId');
  const until = (stringFlag(input.values, 'until') ?? 'authorized') as G;
  if (!lane.order.includes(until)) {
    throw new CliExit('usage', `--until must be one of ${lane.order.join(', ')}, got "${until}"`);
  }
  const { out } = remote;
  const result = await lane.poll(remote, {
    launchId,
    until,
    intervalMs: positiveSeconds(input.values.interval, 'interval', 2),
    maxWaitMs: input.maxWaitMs,
    onProgress: (current, ms, note) =>
      out.progress(
        `${current}${note ?? ''}`,
        `waiting for ${until}: ${current ?? 'no answer yet'} · ${elapsed(ms)}${note ? ` · ${note}` : ''}`,
      ),
  });
  out.endProgress();
  const { error } = result;
  if (error?.kind === 'refused') throw refused(error as Refusal);
  if (error?.kind === 'timeout') {
    const last = (error as { launch: L | undefined }).launch;
    if (last) out.result(last);
    throw new CliExit(
      'unresolved',
      `not ${until} within --max-wait (last status ${last?.status ?? 'unknown'}); run ${lane.group} wait again`,
    );
  }
  const stop = error as E | undefined;
  const launch = stop ? stop.launch : (result.data as { launch: L }).launch;
  out.result(launch);
  lane.describe(launch, out);
  return { launchId, until, launch, stop };
}

/** One lane subcommand's command line, parsed. */
export interface LaneArgs {
  args: string[];
  values: Record<string, string | boolean | undefined>;
  maxWaitMs: (fallbackSeconds: number) => number;
}

/**
 * The `run` of a lane command group: picks the subcommand, refuses any flag it does not take (its own in `ownFlags`,
 * of the group's `flags`) and runs it with the parsed line and the service settings.
 */
export function laneDispatch(
  group: string,
  flags: Record<string, unknown>,
  subcommands: Record<string, (args: LaneArgs, remote: Remote) => Promise<void>>,
  ownFlags: Record<string, readonly string[]>,
): CliCommand['run'] {
  return async ({ args, values, foreign, remote }) => {
    const [sub, ...rest] = args;
    const run = sub === undefined ? undefined : subcommands[sub];
    if (!run || sub === undefined) throw new CliExit('usage', `unknown ${group} command "${sub ?? ''}"; see --help`);
    const allowed = new Set(ownFlags[sub] ?? []);
    const stray = [...foreign, ...Object.keys(flags).filter((f) => values[f] !== undefined && !allowed.has(f))];
    if (stray.length > 0) {
      throw new CliExit('usage', `${group} ${sub} does not take ${stray.map((f) => `--${f}`).join(', ')}`);
    }
    await run(
      { args: rest, values, maxWaitMs: (fallback) => positiveSeconds(values['max-wait'], 'max-wait', fallback) },
      remote(),
    );
  };
}
