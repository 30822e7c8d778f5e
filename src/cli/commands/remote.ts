import { existsSync } from 'node:fs';
import type {
  CustomLaunchPreflightV2,
  CustomLaunchResourceV4,
  CustomLaunchSourceFileReceiptV1,
  LaunchCoverageV1,
} from '../../../generated/types/service.ts';
import { credentialFingerprint, JournalError } from '../../client/core/journal-file.ts';
import { supportLine } from '../../client/core/support.ts';
import { exchange, type Refusal, refusalOf } from '../../client/core/transport.ts';
import {
  BoundMetadataMismatch,
  type CheckedMetadata,
  checkBoundMetadata,
} from '../../client/launches/bound-metadata.ts';
import { requireDiscovery } from '../../client/launches/discovery.ts';
import { createJournal, type LaunchSubmitJournalV1, openJournal } from '../../client/launches/journal.ts';
import { type PermitReissueDecision, sendPermitReissueDecision } from '../../client/launches/permit-reissue.ts';
import { readLaunch, sourcesPendingNote, waitForLaunch } from '../../client/launches/poll.ts';
import { readRequestFile } from '../../client/launches/request-file.ts';
import { deliverSourceFile, manifestFiles } from '../../client/launches/sources.ts';
import { submitWithJournal } from '../../client/launches/submit.ts';
import type { CliEnvironment } from '../environment.ts';
import { CliExit } from '../exit-codes.ts';
import { inlineImageProtocol, inlineImageSequence } from '../inline-image.ts';
import { elapsed, type Output } from '../output.ts';

/** What every command that talks to the service needs. */
export interface Remote {
  env: CliEnvironment;
  apiKey: () => string;
  timeoutMs: number;
  out: Output;
}

/** The exit of a refusal: what was refused, then the support line (requestId, HTTP status, UTC time, code). */
export function refused({ status, code, message, requestId, at }: Omit<Refusal, 'kind'>): CliExit {
  return new CliExit(
    'refused',
    `the service refused with ${status} ${code}: ${message} (${supportLine({ requestId, status, at, code })})`,
  );
}

function describeLaunch(launch: CustomLaunchResourceV4, out: Output): void {
  out.line(`launch ${launch.launchId}: ${launch.status} (updated ${launch.updatedAt})`);
  for (const finding of launch.findings) out.line(`  finding ${finding.code}: ${finding.message}`);
  if (launch.remediation) out.line(`  remediation: ${JSON.stringify(launch.remediation)}`);
  if (launch.failure) out.line(`  failure: ${JSON.stringify(launch.failure)}`);
  const reissue = launch.permitReissue;
  if (reissue?.status === 'awaiting_decision') {
    out.line(
      `  the permit expired at ${reissue.expiredPermitExpiresAt} (chain time) before the wallet transaction was mined; decide by ${reissue.decisionDeadlineAt}: custom-launch reissue ${launch.launchId} --decision reissue|decline`,
    );
  } else if (reissue) {
    out.line(`  permit reissue: ${reissue.status} (${reissue.reissueCount} reissued)`);
  }
}

/**
 * `reissue <launchId> --decision reissue|decline`: the controller's decision about an expired permit
 * (spec/openapi/paths/v4-permit-reissue-disposition.yaml, decidePermitReissueV4), sent to the configured origin only,
 * as bytes and an idempotency key fixed by the launch and the decision, so running it again resends them unchanged.
 */
export async function reissueCommand(
  args: { launchId: string; decision: PermitReissueDecision; maxWaitMs: number },
  remote: Remote,
): Promise<void> {
  const { out } = remote;
  const launch = await readOne(args.launchId, remote);
  const result = await sendPermitReissueDecision({
    origin: remote.env.origin,
    apiKey: remote.apiKey(),
    timeoutMs: remote.timeoutMs,
    launch,
    decision: args.decision,
    maxWaitMs: args.maxWaitMs,
    onRetry: (attempt, why, waitMs) =>
      out.note(`attempt ${attempt}: ${why}; the same bytes again in ${elapsed(waitMs)}`),
  });
  if (result.error?.kind === 'unresolved') {
    throw new CliExit('unresolved', `no definite answer (${result.error.reason}); run the same command again`);
  }
  if (result.error) throw refused(result.error);
  const { disposition } = result.data;
  out.result(disposition);
  out.line(`launch ${launch.launchId}: ${disposition.disposition}, now ${disposition.launchStatus}`);
  if (disposition.disposition === 'reissue_scheduled') {
    out.line(
      `next: custom-launch wait ${launch.launchId}, then custom-launch handoff ${launch.launchId} for the new transaction`,
    );
  }
}

/** `preflight <request>`: local checks, the discovery manifest, then the server's side-effect-free evaluation. */
export async function preflightCommand(args: { request: string }, remote: Remote): Promise<void> {
  const { bytes } = readRequestFile(args.request);
  const apiKey = remote.apiKey();
  await requireDiscovery({ siteUrl: remote.env.siteUrl, origin: remote.env.origin, timeoutMs: remote.timeoutMs });
  const reply = await exchange({
    origin: remote.env.origin,
    method: 'POST',
    path: '/v4/chains/4663/custom-launches/preflight',
    apiKey,
    body: bytes,
    timeoutMs: remote.timeoutMs,
  });
  if (reply.kind === 'no_answer') throw new CliExit('unresolved', `preflight: ${reply.reason}; run it again`);
  if (reply.kind === 'redirect')
    throw new CliExit('refused', `preflight was answered with a ${reply.status} redirect; refused`);
  if (reply.status !== 200) {
    throw refused(refusalOf(reply));
  }
  const report = reply.json as CustomLaunchPreflightV2;
  const { out } = remote;
  out.result(report);
  out.line(`preflight: ${report.disposition} (evidence tier ${report.evidenceTier}); nothing was stored`);
  const groups: Array<[string, string[]]> = [
    ['blocking', report.blockingFindingCodes],
    ['needs evidence', report.needsEvidenceFindingCodes],
    ['warning', report.warningFindingCodes],
    ['informational', report.informationalFindingCodes],
  ];
  for (const [name, codes] of groups) if (codes.length > 0) out.line(`  ${name}: ${codes.join(', ')}`);
  out.line(`  requestDigest ${report.requestDigest}`);
}

/**
 * `submit [<request>] --journal <file>`: a new journal binds the request's exact bytes, the origin and a fresh
 * idempotency key before the first send; an existing journal is resumed and only its bytes are ever sent.
 */
export async function submitCommand(
  args: { request: string | undefined; journal: string; maxWaitMs: number },
  remote: Remote,
): Promise<void> {
  const { out } = remote;
  const exists = existsSync(args.journal);
  let bytes: Buffer = Buffer.alloc(0);
  let journal: LaunchSubmitJournalV1 | undefined;
  if (exists) ({ doc: journal, bytes } = openJournal(args.journal));
  if (journal) {
    if (journal.origin !== remote.env.origin) {
      throw new JournalError(
        `${args.journal} binds the origin ${journal.origin}, not the configured ${remote.env.origin}; its bytes go only there`,
      );
    }
    if (args.request !== undefined) {
      const given = readRequestFile(args.request).bytes;
      if (!given.equals(bytes)) {
        throw new JournalError(
          `${args.journal} binds other bytes than ${args.request}; a changed request is a new submission: use a new journal`,
        );
      }
    }
    if (journal.outcome.state === 'accepted') {
      out.note(`${args.journal} already holds an accepted submission; resending its bytes reconciles (exact replay)`);
    } else if (journal.outcome.state === 'refused') {
      const answered = journal.attempts.filter((a) => a.result === 'answer').at(-1);
      throw refused({
        status: journal.outcome.httpStatus ?? 0,
        code: (journal.outcome.code ?? 'NOT_AN_API_ERROR') as Refusal['code'],
        message: 'recorded in the journal; a changed request is a new submission with a new journal',
        requestId: journal.outcome.requestId,
        // The support time is the refusal's own, recorded with its attempt.
        at: answered?.at ?? journal.createdAt,
      });
    } else {
      out.note(`resuming ${args.journal}: the same bytes with the same idempotency key`);
    }
  } else {
    if (args.request === undefined)
      throw new CliExit('usage', `no journal at ${args.journal} and no request file to start one`);
    bytes = readRequestFile(args.request).bytes;
  }
  const apiKey = remote.apiKey();
  if (journal && journal.credentialFingerprint !== credentialFingerprint(apiKey)) {
    throw new JournalError(
      `${args.journal} was started with another API key; idempotency is per credential, so resuming with this one could create a second launch`,
    );
  }
  await requireDiscovery({ siteUrl: remote.env.siteUrl, origin: remote.env.origin, timeoutMs: remote.timeoutMs });
  if (!journal) {
    journal = createJournal(args.journal, { origin: remote.env.origin, apiKey, bytes, now: Date.now() });
    out.note(
      `journal ${args.journal} (mode 0600) binds idempotency key ${journal.idempotencyKey} and ${journal.requestSha256}`,
    );
  }
  const result = await submitWithJournal({
    journalPath: args.journal,
    journal,
    bytes,
    apiKey,
    timeoutMs: remote.timeoutMs,
    maxWaitMs: args.maxWaitMs,
    onProgress: (message) => out.note(message),
  });
  if (result.error?.kind === 'refused') throw refused(result.error);
  if (result.error) {
    throw new CliExit(
      'unresolved',
      `${result.error.reason}; run \`custom-launch submit --journal ${args.journal}\` again`,
    );
  }
  const { status, launch } = result.data;
  out.result({ httpStatus: status, journal: args.journal, launch });
  out.line(
    `${status === 202 ? 'accepted' : 'already accepted (exact replay)'}: launch ${launch.launchId}, status ${launch.status}`,
  );
  // The permit waits for the sources: they go before the wait.
  out.line(
    `next: custom-launch sources ${launch.launchId} --request ${args.request ?? '<request.json>'} --project <project-folder>, then custom-launch wait ${launch.launchId}`,
  );
}

/** One pinned read of a launch, or the exit that says why there is none. */
async function readOne(launchId: string, remote: Remote): Promise<CustomLaunchResourceV4> {
  const result = await readLaunch({
    origin: remote.env.origin,
    apiKey: remote.apiKey(),
    launchId,
    timeoutMs: remote.timeoutMs,
  });
  if (result.error?.kind === 'refused') throw refused(result.error);
  if (result.error) throw new CliExit('unresolved', `no definite answer (${result.error.why}); try again`);
  return result.data.launch;
}

/** `status <launchId>`: one pinned read. */
export async function statusCommand(args: { launchId: string }, remote: Remote): Promise<void> {
  const launch = await readOne(args.launchId, remote);
  remote.out.result(launch);
  describeLaunch(launch, remote.out);
}

/** `wait <launchId>`: polls until authorized (or finalized), showing the status and the elapsed time. */
export async function waitCommand(
  args: { launchId: string; until: 'authorized' | 'finalized'; intervalMs: number; maxWaitMs: number },
  remote: Remote,
): Promise<void> {
  const { out } = remote;
  const result = await waitForLaunch({
    origin: remote.env.origin,
    apiKey: remote.apiKey(),
    launchId: args.launchId,
    timeoutMs: remote.timeoutMs,
    until: args.until,
    intervalMs: args.intervalMs,
    maxWaitMs: args.maxWaitMs,
    onProgress: (status, ms, reason) => {
      const note =
        reason === sourcesPendingNote
          ? `${reason} (custom-launch sources ${args.launchId} --request <request.json> --project <project-folder>)`
          : reason;
      out.progress(
        `${status}${note ?? ''}`,
        `waiting for ${args.until}: ${status ?? 'no answer yet'} · ${elapsed(ms)}${note ? ` · ${note}` : ''}`,
      );
    },
  });
  out.endProgress();
  const { error } = result;
  if (error?.kind === 'refused') throw refused(error);
  if (error?.kind === 'timeout') {
    if (error.launch) out.result(error.launch);
    throw new CliExit(
      'unresolved',
      `not ${args.until} within --max-wait (last status ${error.launch?.status ?? 'unknown'}); run wait again`,
    );
  }
  const launch = error ? error.launch : result.data.launch;
  out.result(launch);
  describeLaunch(launch, out);
  if (error) {
    throw new CliExit(
      'needsAction',
      launch.status === 'failed'
        ? 'the launch failed (terminal)'
        : 'the launch needs action: fix the findings, rebuild, and submit a new request with a new journal',
    );
  }
  if (args.until === 'authorized') out.line(`next: custom-launch handoff ${launch.launchId}`);
}

/**
 * Request-authored text as a terminal shows it without being steered by it: control characters (a newline too,
 * except where `keepNewlines`) and the bidirectional overrides that can reorder what a reviewer reads appear as
 * visible \u escapes.
 */
function shown(text: string, keepNewlines = false): string {
  return Array.from(text, (c) => {
    const code = c.codePointAt(0) ?? 0;
    const hidden =
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x200e ||
      code === 0x200f ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    if (!hidden || (keepNewlines && c === '\n')) return c;
    return `\\u${code.toString(16).padStart(4, '0')}`;
  }).join('');
}

/**
 * `handoff <launchId> [--journal <file> | --request <file>]`: prints the exact wallet transaction and, read-only
 * beside it, the launch metadata the request bound, shown only after
 * checkBoundMetadata: name, symbol, description, links, the image's digest and public URI, and the image itself on a
 * terminal that can show it (from the exact request bytes of the journal or request file). Never signs or sends.
 */
export async function handoffCommand(
  args: { launchId: string; journal: string | undefined; request: string | undefined; terminal: NodeJS.ProcessEnv },
  remote: Remote,
): Promise<void> {
  if (args.journal !== undefined && args.request !== undefined) {
    throw new CliExit('usage', 'handoff takes --journal or --request (the exact request bytes), not both');
  }
  // Local files are read and checked before any request.
  let requestBytes: Buffer | undefined;
  if (args.journal !== undefined) requestBytes = openJournal(args.journal).bytes;
  if (args.request !== undefined) requestBytes = readRequestFile(args.request).bytes;
  const launch = await readOne(args.launchId, remote);
  const tx = launch.walletTransaction;
  if (!tx) {
    throw new CliExit(
      'needsAction',
      launch.permitReissue?.status === 'awaiting_decision'
        ? `launch ${launch.launchId}: its permit expired before the wallet transaction was mined, so none is offered; decide by ${launch.permitReissue.decisionDeadlineAt}: custom-launch reissue ${launch.launchId} --decision reissue|decline`
        : `launch ${launch.launchId} is ${launch.status}: it has no wallet transaction yet (wait for authorized)`,
    );
  }
  let metadata: CheckedMetadata;
  try {
    metadata = checkBoundMetadata(launch, requestBytes);
  } catch (err) {
    if (err instanceof BoundMetadataMismatch) throw new CliExit('refused', err.message);
    throw err;
  }
  const { out } = remote;
  const { projectMetadata: m, projectMetadataHash, checkedAgainst } = metadata;
  out.result({
    launchId: launch.launchId,
    status: launch.status,
    walletTransaction: tx,
    boundMetadata: { projectMetadataHash, projectMetadata: m, checkedAgainst },
  });
  const dataBytes = (tx.data.length - 2) / 2;
  out.line(`Wallet transaction of launch ${launch.launchId} (${launch.status}).`);
  out.line('Review it in the controller wallet; the wallet signs and sends it. This tool never signs or broadcasts.');
  out.line(`  chain             ${tx.chainId} (eip155:${tx.chainId})`);
  out.line(`  from              ${tx.from}  (the launch wallet: only it can send this)`);
  out.line(`  to                ${tx.to}  (the launch stamp router of the chain deployment)`);
  out.line(`  value             ${tx.valueWei} wei`);
  out.line(`  gas limit         ${tx.gasLimit} (advisory; the wallet checks gas and balance)`);
  out.line(`  permit expires    ${tx.permitExpiresAt}`);
  out.line(`  simulation        ${tx.simulationDigest}`);
  out.line(`  data              ${dataBytes} bytes:`);
  out.line(tx.data);
  out.line('');
  out.line(
    `Bound launch metadata (read-only; it matches projectMetadataHash${checkedAgainst === 'request-bytes' ? ' and the exact request bytes' : ''}).`,
  );
  out.line('A change is a new request: repack, revalidate and submit it; it cannot be edited here.');
  out.line(`  name              ${shown(m.name)}`);
  out.line(`  symbol            ${shown(m.symbol)}`);
  out.line(`  metadata hash     ${projectMetadataHash}`);
  out.line(`  website           ${shown(m.links.website)}`);
  out.line(`  X profile         ${shown(m.links.x)}`);
  for (const link of m.links.other ?? []) out.line(`  link              ${shown(link.label)}: ${shown(link.uri)}`);
  out.line(`  image             ${m.image.mediaType}, ${m.image.sha256}`);
  out.line(`  image URI         ${shown(m.image.uri)}`);
  const protocol = metadata.image
    ? inlineImageProtocol(args.terminal, out.stdoutIsTTY, metadata.image.mediaType)
    : null;
  if (metadata.image && protocol) out.raw(inlineImageSequence(protocol, metadata.image.bytes));
  else if (!metadata.image) {
    out.line('                    (pass --journal or --request with the exact request bytes to show the image itself)');
  }
  out.line('  description:');
  for (const line of shown(m.description, true).split('\n')) out.line(`    ${line}`);
}

/** `coverage`: the public coverage report (spec/openapi/paths/v4-launch-coverage.yaml; a 404 means the deployment has none). */
export async function coverageCommand(remote: Remote): Promise<void> {
  const reply = await exchange({
    origin: remote.env.origin,
    method: 'GET',
    path: '/v4/chains/4663/launch-coverage',
    timeoutMs: remote.timeoutMs,
  });
  if (reply.kind === 'no_answer') {
    throw new CliExit(
      'unresolved',
      `${reply.reason}: this says nothing about the key or the architecture; retry later`,
    );
  }
  if (reply.kind === 'redirect')
    throw new CliExit('refused', `coverage was answered with a ${reply.status} redirect; refused`);
  if (reply.status === 404) {
    throw new CliExit(
      'refused',
      'this deployment does not provide a coverage report; do not rotate a key, infer support or fall back',
    );
  }
  if (reply.status !== 200) {
    throw refused(refusalOf(reply));
  }
  const report = reply.json as LaunchCoverageV1;
  const { out } = remote;
  out.result(report);
  out.line(`launch coverage of chain ${report.chainId} (${report.generatedAt}); service ${report.readiness.status}`);
  out.line(
    `  the report never authorizes a request (requestAuthorized: ${report.requestAuthorization.requestAuthorized})`,
  );
  for (const verifier of report.verifierCoverage) out.line(`  ${verifier.verifierId}: ${verifier.coverage}`);
}

/**
 * `sources <launchId> --request <file> --project <folder>`: delivers each file of the request's sourceBundleManifest
 * (read from the project it was packed from, each checked against its hash first) for source verification, which
 * starts once the launch is finalized. Safe to run again: a file the service holds answers 200.
 */
export async function sourcesCommand(
  args: { launchId: string; request: string; project: string },
  remote: Remote,
): Promise<void> {
  const { request } = readRequestFile(args.request);
  const files = manifestFiles(args.project, request);
  const apiKey = remote.apiKey();
  const { out } = remote;
  let last: CustomLaunchSourceFileReceiptV1 | undefined;
  for (const [i, file] of files.entries()) {
    const delivery = await deliverSourceFile(remote.env.origin, args.launchId, file, {
      apiKey,
      timeoutMs: remote.timeoutMs,
    });
    if (delivery.error?.kind === 'no_answer') {
      throw new CliExit('unresolved', `${file.paths.join(', ')}: ${delivery.error.reason}; run the command again`);
    }
    if (delivery.error) throw refused(delivery.error);
    last = delivery.data.receipt;
    out.line(
      `${file.paths.join(', ')}: ${delivery.data.stored ? 'delivered' : 'already held'} (${i + 1}/${files.length} files, ${file.bytes.length} bytes)`,
    );
  }
  if (last) {
    out.line(
      `launch ${args.launchId}: the service holds ${last.filesReceived} of ${last.filesExpected} manifest files`,
    );
  }
  out.result({ launchId: args.launchId, receipt: last ?? null });
}
