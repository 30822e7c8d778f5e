import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { uuidPattern } from '../../client/core/transport.ts';
import { moduleApiKey } from '../../client/modules/api-key.ts';
import type { AuthenticatedModuleCall, ModuleCall } from '../../client/modules/call.ts';
import { readModulesCapabilities, uploadRefusal } from '../../client/modules/capabilities.ts';
import { readModulesContext } from '../../client/modules/context.ts';
import { describeFailure, type ModuleFailure } from '../../client/modules/errors.ts';
import { fetchModuleReceipt, listModuleReceipts } from '../../client/modules/receipt.ts';
import { readModuleRequestFile } from '../../client/modules/request-file.ts';
import { fetchModuleReviewExport, fetchModuleReviewStatus } from '../../client/modules/review.ts';
import { submitWithModuleJournal } from '../../client/modules/submit.ts';
import { type CliCommand, type CommandGroup, stringFlag } from '../command.ts';
import type { CliEnvironment } from '../environment.ts';
import { CliExit, type ExitName } from '../exit-codes.ts';
import type { Output } from '../output.ts';

/** What the `modules` group needs from the command line and the environment. */
export interface ModulesRun {
  env: CliEnvironment;
  /** The process environment: the key is read from PLATFORM_API_KEY or PLATFORM_MODULES_API_KEY only. */
  processEnv: NodeJS.ProcessEnv;
  timeoutMs: number;
  out: Output;
}

/** One `custom-launch modules …` command line, parsed. */
export interface ModulesArgs {
  sub: string | undefined;
  args: string[];
  journal: string | undefined;
  out: string | undefined;
  /** Options given that the modules group does not take. */
  foreign: string[];
}

/** Where a failure happened: before the key went out (a gate), or in the exchange that carried it. */
type Stage = 'capabilities' | 'readiness' | 'receipt' | 'review' | 'submit' | 'read';

/**
 * The exit of a module failure (project design, on the existing table): a gate that stopped before the key or the
 * source went out, or intake unavailable, is 4; a key conflict 2; no definite answer, a submission that may exist, a 500 or a retryable
 * refusal 6 (run the same command again); every other refusal, and an answer the client refused to use, 5.
 */
export function moduleExit(failure: ModuleFailure, stage: Stage): ExitName {
  if (failure.code === 'MODULE_API_KEY_CONFLICT') return 'usage';
  if (stage === 'capabilities' || stage === 'readiness') return 'discoveryStop';
  // Intake unavailable is 4 also when the service says so to the POST; a review service that is down after the
  // readiness check (its 503) is retryable, so 6: keep the receipt and check later.
  if (failure.code === 'MODULE_SUBMISSIONS_UNAVAILABLE') return 'discoveryStop';
  if (failure.submissionMayExist || failure.retryable || failure.httpStatus === 500) return 'unresolved';
  if (failure.code === 'MODULE_API_TIMEOUT') return 'unresolved';
  // A network failure without any answer is unresolved; a refused redirect is an answer, refused.
  if (failure.code === 'MODULE_API_NETWORK' && failure.httpStatus === null) return 'unresolved';
  return 'refused';
}

function fail(failure: ModuleFailure, stage: Stage, hint = ''): never {
  // The readiness messages already say that no key was sent.
  const sentNothing = stage === 'capabilities' ? '; neither the key nor any source was sent' : '';
  const retry = failure.retryAfterSeconds !== null ? `; retry after ${failure.retryAfterSeconds} s` : '';
  throw new CliExit(moduleExit(failure, stage), `${describeFailure(failure)}${sentNothing}${retry}${hint}`);
}

/** The key, from the environment only; never printed. A conflict ends the command before any request. */
function apiKeyOf(env: NodeJS.ProcessEnv): string {
  const key = moduleApiKey(env);
  switch (key.kind) {
    case 'key':
      return key.apiKey;
    case 'conflict':
      throw new CliExit('usage', describeFailure(key.failure));
    case 'malformed':
      throw new CliExit('usage', `${key.variable} must be a single token of printable characters`);
    case 'missing':
      throw new CliExit(
        'usage',
        'set PLATFORM_API_KEY or PLATFORM_MODULES_API_KEY to the API key; it is read only from the environment',
      );
  }
}

function oneSubmissionId(args: ModulesArgs): string {
  const [id, ...more] = args.args;
  if (id === undefined || more.length > 0) {
    throw new CliExit('usage', `modules ${args.sub} takes one submissionId; see --help`);
  }
  if (!uuidPattern.test(id)) {
    throw new CliExit('usage', `"${id.slice(0, 80)}" is not a submissionId (a lowercase UUID from a receipt)`);
  }
  return id;
}

function noArguments(args: ModulesArgs): void {
  if (args.args.length > 0) throw new CliExit('usage', `modules ${args.sub} takes no argument; see --help`);
}

/** Writes the export's exact bytes to a new file (mode 0600: the export is private to its principal). */
function writeNewFile(path: string, bytes: Uint8Array): void {
  mkdirSync(dirname(resolve(path)), { recursive: true });
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The unauthenticated and the authenticated call of one modules command line. */
interface ModuleCalls {
  plain: ModuleCall;
  authenticated: () => AuthenticatedModuleCall;
}

/** `custom-launch modules capabilities`. */
async function modulesCapabilities(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  noArguments(args);
  const caps = await readModulesCapabilities(call.plain);
  if (caps.error) fail(caps.error, 'read');
  const refusal = uploadRefusal(caps.data);
  out.result(caps.data);
  const mc = caps.data.moduleContributions;
  out.line(`module submissions: ${refusal ? `closed (${refusal.message})` : 'open'}`);
  out.line(`  contract ${mc.contract}, submissions ${mc.submissionFormat}, descriptors ${mc.descriptorFormat}`);
  out.line(`  new key issuance: ${mc.apiKeyIssuance ? 'open' : 'closed'} (an existing key keeps its permissions)`);
}

/** `custom-launch modules context`. */
async function modulesContext(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  noArguments(args);
  const context = await readModulesContext(authenticated());
  if (context.error) fail(context.error, 'read');
  const c = context.data;
  out.result(c);
  out.line(`author ${c.identity.author} (use it as descriptor.author)`);
  out.line(
    `  scopes ${c.authorization.scopes.join(', ') || 'none'}; missing ${c.authorization.missingScopes.join(', ') || 'none'}`,
  );
  out.line(`  can submit: ${c.authorization.canSubmit}; can read: ${c.authorization.canRead}`);
  out.line(`  intake available: ${c.intake.available}; limits ${JSON.stringify(c.intake.limits)}`);
  out.line(`  review available: ${c.review.available}; status reads: ${c.review.statusReadAvailable}`);
}

/** `custom-launch modules submit`. */
async function modulesSubmit(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  if (!args.journal) throw new CliExit('usage', 'modules submit needs --journal <file>');
  if (args.args.length > 1) throw new CliExit('usage', 'modules submit takes at most one request file; see --help');
  const requestPath = args.args[0];
  const requestBytes = requestPath !== undefined ? readModuleRequestFile(requestPath).bytes : undefined;
  if (requestBytes === undefined && !existsSync(args.journal)) {
    throw new CliExit('usage', `no journal at ${args.journal} and no request file to start one`);
  }
  const result = await submitWithModuleJournal({
    ...authenticated(),
    journalPath: args.journal,
    ...(requestBytes !== undefined ? { requestBytes } : {}),
    onNote: (message) => out.note(message),
  });
  if (result.error) {
    const again = ` run \`custom-launch modules submit --journal ${args.journal}\` again: it resends the same bytes with the same Idempotency-Key`;
    const hint =
      result.stage === 'submit' && result.error.submissionMayExist
        ? `; the submission may exist:${again}`
        : result.stage === 'submit' && result.error.retryable
          ? `; nothing was stored;${again}`
          : '';
    fail(result.error, result.stage, hint);
  }
  const { receipt, httpStatus } = result.data;
  out.result({ httpStatus, journal: args.journal, receipt });
  out.line(
    `${httpStatus === 201 ? 'draft received' : 'already received (exact replay)'}: submission ${receipt.submissionId}, ${receipt.name}@${receipt.version}`,
  );
  out.line(`  status ${receipt.status}, review ${receipt.reviewStatus}; not approved, not available`);
  out.line(`  requestDigest ${receipt.requestDigest}; packageId ${receipt.packageId}`);
  out.line(`next: custom-launch modules review ${receipt.submissionId}`);
}

/** `custom-launch modules receipt`. */
async function modulesReceipt(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  const id = oneSubmissionId(args);
  const receipt = await fetchModuleReceipt(authenticated(), id);
  if (receipt.error) fail(receipt.error, 'read');
  const r = receipt.data;
  out.result(r);
  out.line(`submission ${r.submissionId}: ${r.name}@${r.version}, ${r.status}, review ${r.reviewStatus}`);
  out.line(`  author ${r.author}, reward wallet ${r.rewardWallet}, ${r.byteCount} bytes, received ${r.createdAt}`);
  out.line(`  requestDigest ${r.requestDigest}; supersedes ${r.supersedesSubmissionId ?? 'nothing'}`);
}

/** `custom-launch modules list`. */
async function modulesList(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  noArguments(args);
  const list = await listModuleReceipts(authenticated());
  if (list.error) fail(list.error, 'read');
  out.result({ items: list.data });
  for (const r of list.data) {
    out.line(`${r.submissionId}  ${r.name}@${r.version}  ${r.status}  ${r.createdAt}`);
  }
  out.line(`${list.data.length} receipt${list.data.length === 1 ? '' : 's'}`);
}

/** `custom-launch modules review`. */
async function modulesReview(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  const id = oneSubmissionId(args);
  const result = await fetchModuleReviewStatus(authenticated(), id);
  if (result.error) fail(result.error, result.stage);
  const { review } = result.data.review;
  out.result(result.data.review);
  out.line(`submission ${id}: review ${review.state}, next ${review.nextAction} (revision ${review.revision})`);
  if (review.lastError) out.line(`  last error ${review.lastError.code}: ${review.lastError.message}`);
  if (review.latestDecision) {
    out.line(`  decision ${review.latestDecision.outcome}: ${review.latestDecision.reason}`);
  }
  out.line('  not approved, not available: publication follows separately');
}

/** `custom-launch modules export`. */
async function modulesExport(args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls): Promise<void> {
  const { out } = ctx;
  const { authenticated } = call;
  const id = oneSubmissionId(args);
  if (!args.out) throw new CliExit('usage', 'modules export needs --out <file>');
  if (existsSync(args.out)) throw new CliExit('usage', `${args.out} already exists; name a new file`);
  const result = await fetchModuleReviewExport(authenticated(), id);
  if (result.error) fail(result.error, result.stage);
  writeNewFile(args.out, result.data.bytes);
  const e = result.data.reviewExport;
  out.result({ out: args.out, bytes: result.data.bytes.length, reviewExport: e });
  out.line(`export of submission ${id} written to ${args.out} (${result.data.bytes.length} bytes)`);
  out.line(
    `  review revision ${e.reviewRevision}, build attempt ${e.buildAttempt}, profile ${e.reviewedBuild.plan.profile}`,
  );
  out.line('  not registry-approved, not available: registry admission and catalog activation are still required');
}

const moduleSubcommands: Record<string, (args: ModulesArgs, ctx: ModulesRun, call: ModuleCalls) => Promise<void>> = {
  capabilities: modulesCapabilities,
  context: modulesContext,
  submit: modulesSubmit,
  receipt: modulesReceipt,
  list: modulesList,
  review: modulesReview,
  export: modulesExport,
};

/**
 * `custom-launch modules <capabilities|context|submit|receipt|list|review|export>`: the module-contribution client
 * (spec/openapi/paths/modules-*.yaml). Messages start with the failure's code.
 */
export async function modulesCommand(args: ModulesArgs, ctx: ModulesRun): Promise<void> {
  if (args.foreign.length > 0) {
    throw new CliExit('usage', `modules does not take ${args.foreign.map((o) => `--${o}`).join(', ')}; see --help`);
  }
  if (args.journal !== undefined && args.sub !== 'submit') {
    throw new CliExit('usage', '--journal belongs to modules submit');
  }
  if (args.out !== undefined && args.sub !== 'export') throw new CliExit('usage', '--out belongs to modules export');
  const plain = { origin: ctx.env.origin, timeoutMs: ctx.timeoutMs };
  const authenticated = (): AuthenticatedModuleCall => ({ ...plain, apiKey: apiKeyOf(ctx.processEnv) });
  if (args.sub === undefined) {
    throw new CliExit(
      'usage',
      'modules needs a command: capabilities, context, submit, receipt, list, review or export',
    );
  }
  const subcommand = Object.hasOwn(moduleSubcommands, args.sub) ? moduleSubcommands[args.sub] : undefined;
  if (!subcommand) throw new CliExit('usage', `unknown modules command "${args.sub}"; see --help`);
  await subcommand(args, ctx, { plain, authenticated });
}

/** `custom-launch modules …`: the command-table entry (spec paths modules-*.yaml). */
export const modules: CliCommand = {
  name: 'modules',
  flags: { journal: { type: 'string' }, out: { type: 'string' } },
  defaultTimeoutMs: 20_000,
  usage: `  custom-launch modules capabilities
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
`,
  run: ({ args, values, foreign, env, cliEnv, timeoutMs, out }) =>
    modulesCommand(
      {
        sub: args[0],
        args: args.slice(1),
        journal: stringFlag(values, 'journal'),
        out: stringFlag(values, 'out'),
        foreign,
      },
      { env: cliEnv(), processEnv: env, timeoutMs, out },
    ),
};

/** The modules group of `--help`. */
export const modulesGroup: CommandGroup = {
  heading: 'Module contributions (source packages as unreviewed drafts; never approval or publication):',
  commands: [modules],
  notes: `  Messages start with the code: MODULE_API_KEY_CONFLICT (exit 2); MODULE_SUBMISSIONS_UNAVAILABLE (4) and
  MODULE_REVIEW_UNAVAILABLE of the readiness check (4, the key was not sent); MODULE_API_TIMEOUT and
  MODULE_API_NETWORK (6; a refused redirect on a read 5); MODULE_API_RESPONSE and MODULE_API_RECEIPT_MISMATCH
  (6 after an upload: the submission may exist; else 5); MODULE_CONTEXT_RESPONSE and MODULE_REVIEW_RESPONSE
  (5). Answers over 1 MiB (an export over 3 MiB) after decompression are refused unread.
`,
};
