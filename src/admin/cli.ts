/*
 * Operator commands.
 * - `npm run admin -- keys create --wallet <0x address> --scopes <comma list> --chains 4663` mints a wallet-bound key
 *   and prints one JSON object with `apiKey` once; only its hash is stored.
 * - `npm run admin -- keys revoke <keyId>` revokes a wallet key (401 from then on); the wallet's other keys still read
 *   its launches. Prints one JSON object with the key id, wallet and revocation time.
 * - `npm run admin -- partners create --name <name> --wallet <0x address> --chains 4663 [--expires-at <UTC ms>]
 *   [--prepare-per-hour N] [--read-per-minute N] [--subkey-admin-per-hour N]` creates a partner and its root key
 *   (partner-subkeys:manage and both launch scopes) and prints one JSON object with `apiKey` once.
 * - `npm run admin -- modules decide <submissionId> --outcome … --reason … --reviewer … --expected-revision …`
 *   records a reviewer's decision on a built module review and prints the decision record.
 * - `npm run admin -- source-verification targets <launchId>` prints each target's address and runtime code hash.
 * - `npm run admin -- source-verification record <launchId> --target <targetId> --provider <id> --evidence-uri <uri>
 *   --evidence-digest <sha256:…>` appends what a verification provider reported for that target to the registry
 *   file (SOURCE_VERIFICATION_REGISTRY_PATH) and brings the launch's next source-verification attempt forward.
 * - `npm run admin -- v3 rules retire <RULE_CODE...> --reason <text>` records a new base-layer rule-set revision that
 *   retires the named static-baseline hard-block rules (on top of those already retired) and prints it.
 * - `npm run admin -- import-history <file.jsonl>` validates every line of a V2/V1/V3 history file, then imports it in one
 *   transaction and prints one JSON summary (imported and skipped per kind); an invalid file writes nothing, prints
 *   `line N: <what>` for its first problems and exits 1 (docs/history.md).
 * - `npm run admin -- v3 reevaluate [<launchId>]` re-runs the admission review of action_required base-layer
 *   launches (one, or all) under the current rule-set revision; one with no current hard block goes back to
 *   pending_review and on. Prints one JSON line per launch.
 * - `npm run admin -- backup <file>` copies one snapshot of DATABASE_PATH into a new file while servers keep writing,
 *   checks the copy and prints one JSON summary (docs/operator.md).
 * - `npm run admin -- restore <backupFile>` checks a backup and puts it in the place of DATABASE_PATH, which no
 *   running server may hold, and prints one JSON summary (docs/operator.md).
 */
import { parseArgs } from 'node:util';
import { mintPartnerRoot, mintWalletKey, revokeWalletKey, rootBudgetMaxima, walletScopes } from '../auth/keys.ts';
import { readBaseDeployment } from '../chain/base-deployment.ts';
import { type Config, loadConfig } from '../config.ts';
import { pinnedBaseLaunchRules } from '../domain/base-layer/pinned-rules.ts';
import { reevaluateBaseLaunches } from '../domain/base-layer/reevaluate.ts';
import { retireBaseRules } from '../domain/base-layer/rule-sets.ts';
import { HistoryImportError, importHistoryFile } from '../domain/history/import.ts';
import { findingCodes } from '../domain/launches/finding-codes.ts';
import { bringVerificationForward } from '../domain/lifecycle/source-verifier.ts';
import { decideReview, reviewerPolicy } from '../domain/modules/review.ts';
import { logger, logToStandardError } from '../observability/logger.ts';
import { openDatabase } from '../store/db.ts';
import { BackupError, backupDatabase, type CopyProgress } from './backup.ts';
import { restoreDatabase } from './restore.ts';
import { appendRegistryRecord, launchTargets } from './source-verification.ts';

/** The root budgets of `partners create` when no flag names them (project design). */
const defaults = { prepareRequestsPerHour: 600, readRequestsPerMinute: 600, subkeyAdminRequestsPerHour: 120 };

const usage = `usage:
  npm run admin -- keys create --wallet <0x address> --scopes <comma list> --chains <comma list>
  npm run admin -- keys revoke <keyId>
  npm run admin -- partners create --name <name> --wallet <0x address> --chains <comma list>
                   [--expires-at <UTC, e.g. 2027-06-30T00:00:00.000Z>] [--prepare-per-hour <n>]
                   [--read-per-minute <n>] [--subkey-admin-per-hour <n>]
  npm run admin -- modules decide <submissionId> --outcome accept|request_changes|reject --reason <text>
                   --reviewer <0x wallet of MODULES_REVIEWER_WALLETS> --expected-revision <review.revision>
  npm run admin -- source-verification targets <launchId>
  npm run admin -- source-verification record <launchId> --target <targetId> --provider <id>
                   --evidence-uri <uri> --evidence-digest <sha256:…>
  npm run admin -- v3 rules retire <RULE_CODE...> --reason <text>
  npm run admin -- v3 reevaluate [<launchId>]
  npm run admin -- import-history <file.jsonl>
  npm run admin -- backup <file>
  npm run admin -- restore <backupFile>

scopes (keys create): ${walletScopes.join(', ')}
A partner root holds partner-subkeys:manage, custom-launch:create and custom-launch:read. Its defaults: expiry one
year from now, prepare-per-hour ${defaults.prepareRequestsPerHour} (at most ${rootBudgetMaxima.prepareRequestsPerHour}), read-per-minute ${defaults.readRequestsPerMinute} (at most ${rootBudgetMaxima.readRequestsPerMinute}),
subkey-admin-per-hour ${defaults.subkeyAdminRequestsPerHour} (at most ${rootBudgetMaxima.subkeyAdminRequestsPerHour}). Its subkeys never exceed these.
chains: 4663 (V4 lane), 1 (base layer)
The database is DATABASE_PATH (default var/custom-launch.sqlite). A key is printed once and never stored.
record appends to SOURCE_VERIFICATION_REGISTRY_PATH what a source-verification provider reported for one target
(the operator checked it there; the server never fetches providers). The provider id is lowercase
([a-z][a-z0-9._:-]{0,63}).
v3 rules retire takes hard-block rule codes (${hardBlockRules().join(', ')}) and a reason of 1 to
1024 characters; v3 reevaluate re-reviews action_required base-layer launches under the current revision.
import-history reads JSON Lines (spec/schemas/history-import-line.v1.schema.json), validates every line before
writing and writes nothing when one is invalid (docs/history.md).
backup copies DATABASE_PATH while servers run into a new file (never an existing one) and checks the copy; restore
checks a backup and replaces DATABASE_PATH with it, only while no server holds that file (docs/operator.md).`;

/** The static-baseline rules an operator may retire: the hard-block codes of the finding-code table. */
function hardBlockRules(): string[] {
  return Object.entries(findingCodes)
    .filter(([, entry]) => entry.classification === 'hard_block')
    .map(([code]) => code);
}

/** The longest reason `v3 rules retire` records. */
const maxRetireReasonLength = 1024;

function fail(message: string): never {
  console.error(`error: ${message}\n\n${usage}`);
  process.exit(2);
}

function options<T extends Record<string, { type: 'string' }>>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, strict: true, allowPositionals: true });
  } catch (err) {
    fail((err as Error).message);
  }
}

/** A comma-separated flag value as its trimmed, non-empty items. */
const split = (list: string) =>
  list
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** A copy's progress on standard error, at most once a second (a long copy only). */
function progressPrinter(): (progress: CopyProgress) => void {
  let last = performance.now();
  return ({ totalPages, remainingPages }) => {
    if (performance.now() - last < 1000 || totalPages === 0) return;
    last = performance.now();
    const done = totalPages - remainingPages;
    console.error(`backup: ${Math.floor((done * 100) / totalPages)}% (${done} of ${totalPages} pages)`);
  };
}

/** `backup <file>` and `restore <backupFile>`: the exit code, after one JSON summary or an `error:` line. */
async function backupOrRestore(
  command: 'backup' | 'restore',
  args: string[],
  { databasePath, busyTimeoutMs }: Config,
): Promise<number> {
  const { positionals } = options(args, {});
  if (positionals.length !== 1) fail(`${command} takes one file`);
  const file = positionals[0] as string;
  try {
    const summary =
      command === 'backup'
        ? await backupDatabase(databasePath, file, {
            busyTimeoutMs,
            onProgress: progressPrinter(),
          })
        : restoreDatabase(file, databasePath);
    console.log(JSON.stringify(summary));
    return 0;
  } catch (err) {
    // A refusal says what to do; anything else (a full disk, a folder it may not write) names the command it stopped.
    console.error(`error: ${err instanceof BackupError ? '' : `${command} failed: `}${(err as Error).message}`);
    return 1;
  }
}

const [group, action, ...rest] = process.argv.slice(2);
const config = loadConfig();
// What the commands' domain code logs (a re-evaluated launch's status change, say) goes to standard error: standard
// output carries each command's JSON answer alone.
logToStandardError();
logger.level = config.logLevel;
// They open the file themselves: a backup never creates or migrates it, a restore replaces it.
if (group === 'backup' || group === 'restore') {
  process.exit(await backupOrRestore(group, action === undefined ? rest : [action, ...rest], config));
}
const db = openDatabase(config.databasePath);
try {
  if (group === 'keys' && action === 'create') {
    const { values } = options(rest, {
      wallet: { type: 'string' },
      scopes: { type: 'string' },
      chains: { type: 'string' },
    });
    if (!values.wallet || !values.scopes || !values.chains) fail('--wallet, --scopes and --chains are all required');
    const { apiKey, principal } = mintWalletKey(db, {
      wallet: values.wallet,
      scopes: split(values.scopes),
      chains: split(values.chains),
    });
    console.log(
      JSON.stringify({
        apiKey,
        keyId: principal.keyId,
        wallet: principal.wallet,
        scopes: principal.scopes,
        chains: principal.chains,
      }),
    );
  } else if (group === 'keys' && action === 'revoke') {
    const { positionals } = options(rest, {});
    if (positionals.length !== 1) fail('keys revoke takes one keyId');
    try {
      console.log(JSON.stringify(revokeWalletKey(db, positionals[0] as string, Date.now())));
    } catch (err) {
      fail((err as Error).message);
    }
  } else if (group === 'partners' && action === 'create') {
    const { values, positionals } = options(rest, {
      name: { type: 'string' },
      wallet: { type: 'string' },
      chains: { type: 'string' },
      'expires-at': { type: 'string' },
      'prepare-per-hour': { type: 'string' },
      'read-per-minute': { type: 'string' },
      'subkey-admin-per-hour': { type: 'string' },
    });
    if (positionals.length > 0) fail(`partners create takes no positional argument, got "${positionals[0]}"`);
    if (!values.name || !values.wallet || !values.chains) fail('--name, --wallet and --chains are all required');
    const count = (flag: string, fallback: number): number => {
      const raw = values[flag as keyof typeof values];
      if (raw === undefined) return fallback;
      if (!/^[0-9]+$/.test(raw)) fail(`--${flag} must be a positive integer, got "${raw}"`);
      return Number(raw);
    };
    const now = Date.now();
    const { apiKey, partnerId, principal } = mintPartnerRoot(db, {
      name: values.name,
      wallet: values.wallet,
      chains: split(values.chains),
      expiresAt: values['expires-at'] ?? new Date(now + 365 * 86_400_000).toISOString(),
      budgets: {
        prepareRequestsPerHour: count('prepare-per-hour', defaults.prepareRequestsPerHour),
        readRequestsPerMinute: count('read-per-minute', defaults.readRequestsPerMinute),
        subkeyAdminRequestsPerHour: count('subkey-admin-per-hour', defaults.subkeyAdminRequestsPerHour),
      },
      now,
    });
    console.log(
      JSON.stringify({
        apiKey,
        partnerId,
        keyId: principal.keyId,
        name: values.name.trim(),
        wallet: principal.wallet,
        scopes: principal.scopes,
        chains: principal.chains,
        expiresAt: principal.expiresAt,
        budgets: principal.budgets,
      }),
    );
  } else if (group === 'source-verification' && action === 'targets') {
    const { positionals } = options(rest, {});
    if (positionals.length !== 1) fail('targets takes one launchId');
    for (const target of launchTargets(db, positionals[0] as string)) console.log(JSON.stringify(target));
  } else if (group === 'source-verification' && action === 'record') {
    const { values, positionals } = options(rest, {
      target: { type: 'string' },
      provider: { type: 'string' },
      'evidence-uri': { type: 'string' },
      'evidence-digest': { type: 'string' },
    });
    if (positionals.length !== 1) fail('record takes one launchId');
    const { target, provider } = values;
    const evidenceUri = values['evidence-uri'];
    const evidenceDigest = values['evidence-digest'];
    if (!target || !provider || !evidenceUri || !evidenceDigest) {
      fail('--target, --provider, --evidence-uri and --evidence-digest are all required');
    }
    if (!/^sha256:[0-9a-f]{64}$/.test(evidenceDigest)) fail('--evidence-digest must be sha256: and 64 lowercase hex');
    if (!config.sourceVerificationRegistryPath) fail('SOURCE_VERIFICATION_REGISTRY_PATH is not set');
    const found = launchTargets(db, positionals[0] as string).find((t) => t.targetId === target);
    if (!found) fail(`launch ${positionals[0]} has no target "${target}"`);
    appendRegistryRecord(config.sourceVerificationRegistryPath, {
      chainId: found.chainId,
      address: found.address,
      runtimeCodeHash: found.runtimeCodeHash,
      provider,
      evidenceUri,
      evidenceDigest,
    });
    // A finalized launch waiting for its observation is attempted again at once, not at its next retry.
    bringVerificationForward(db, positionals[0] as string, new Date().toISOString());
    console.log(JSON.stringify({ recorded: { ...found, provider, evidenceUri, evidenceDigest } }));
  } else if (group === 'modules' && action === 'decide') {
    const { values, positionals } = options(rest, {
      outcome: { type: 'string' },
      reason: { type: 'string' },
      reviewer: { type: 'string' },
      'expected-revision': { type: 'string' },
    });
    if (positionals.length !== 1) fail('decide takes one submissionId');
    const outcome = values.outcome;
    if (outcome !== 'accept' && outcome !== 'request_changes' && outcome !== 'reject') {
      fail('--outcome must be accept, request_changes or reject');
    }
    const revision = values['expected-revision'];
    if (!values.reason || !values.reviewer || revision === undefined || !/^[0-9]+$/.test(revision)) {
      fail('--reason, --reviewer and --expected-revision <integer> are all required');
    }
    const decision = decideReview(db, {
      submissionId: positionals[0] as string,
      outcome,
      reason: values.reason,
      reviewerWallet: values.reviewer,
      expectedReviewRevision: Number(revision),
      policy: reviewerPolicy(config.modulesReviewerWallets),
      now: Date.now(),
    });
    console.log(JSON.stringify(decision));
  } else if (group === 'v3' && action === 'rules' && rest[0] === 'retire') {
    const { values, positionals } = options(rest.slice(1), { reason: { type: 'string' } });
    if (positionals.length === 0) fail('retire takes at least one RULE_CODE');
    const unknown = positionals.filter((code) => !hardBlockRules().includes(code));
    if (unknown.length > 0) fail(`not a hard-block rule: ${unknown.join(', ')}`);
    const reason = values.reason?.trim() ?? '';
    if (reason.length < 1 || reason.length > maxRetireReasonLength) {
      fail(`--reason must be 1 to ${maxRetireReasonLength} characters`);
    }
    console.log(JSON.stringify(retireBaseRules(db, positionals, reason, new Date().toISOString())));
  } else if (group === 'v3' && action === 'reevaluate') {
    const { positionals } = options(rest, {});
    if (positionals.length > 1) fail('reevaluate takes at most one launchId');
    const outcomes = await reevaluateBaseLaunches(
      db,
      pinnedBaseLaunchRules(
        config.baseDeploymentPath ? readBaseDeployment(config.baseDeploymentPath) : null,
        config.v3.feeCertifications,
      ),
      {
        ...(positionals[0] ? { launchId: positionals[0] } : {}),
        now: Date.now,
        worker: 'admin:v3-reevaluate',
      },
    );
    for (const outcome of outcomes) console.log(JSON.stringify(outcome));
  } else if (group === 'import-history') {
    if (!action || rest.length > 0) fail('import-history takes one file');
    try {
      console.log(JSON.stringify(importHistoryFile(db, action)));
    } catch (err) {
      if (!(err instanceof HistoryImportError)) throw err;
      console.error(err.message);
      process.exitCode = 1;
    }
  } else {
    fail(group ? `unknown command "${[group, action].join(' ')}"` : 'no command');
  }
} catch (err) {
  fail((err as Error).message);
} finally {
  db.close();
}
