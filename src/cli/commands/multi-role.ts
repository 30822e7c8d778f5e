import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { MultiRoleCustomLaunchResourceV2 } from '../../../generated/types/service.ts';
import { requireDiscovery } from '../../client/launches/discovery.ts';
import {
  type MultiRoleWaitGoal,
  multiRoleStatusOrder,
  preflightMultiRoleLaunch,
  readMultiRoleCapabilities,
  readMultiRoleLaunch,
  requireMultiRoleWrites,
  waitForMultiRoleLaunch,
} from '../../client/multi-role/calls.ts';
import {
  createMultiRoleJournal,
  type MultiRoleSubmitJournalV1,
  openMultiRoleJournal,
} from '../../client/multi-role/journal.ts';
import { readMultiRoleManifest } from '../../client/multi-role/manifest.ts';
import { packMultiRoleProject } from '../../client/multi-role/pack.ts';
import { readMultiRoleRequestFile } from '../../client/multi-role/request-file.ts';
import { submitMultiRoleWithJournal } from '../../client/multi-role/submit.ts';
import { type CliCommand, type CommandGroup, stringFlag } from '../command.ts';
import { CliExit } from '../exit-codes.ts';
import type { Output } from '../output.ts';
import {
  failed,
  type LaneArgs,
  laneDispatch,
  launchOrExit,
  onePositional,
  printHandoff,
  type SubmitLane,
  submitThroughJournal,
  type WaitLane,
  waitThroughPoll,
} from './lane-commands.ts';
import type { Remote } from './remote.ts';

/** One `custom-launch multi-role …` command line, parsed. */
type MultiRoleArgs = LaneArgs;

const one = (args: string[], sub: string, what: string) => onePositional('multi-role', args, sub, what);

function describe(launch: MultiRoleCustomLaunchResourceV2, out: Output): void {
  out.line(`launch ${launch.launchId}: ${launch.status} (updated ${launch.updatedAt})`);
  if (launch.findingCodes.length > 0) out.line(`  findings: ${launch.findingCodes.join(', ')}`);
  if (launch.missingVerificationRequirements.length > 0) {
    out.line(`  missing verification: ${launch.missingVerificationRequirements.join(', ')}`);
  }
  if (launch.publicOutput) {
    out.line(`  token and hook ${launch.publicOutput.tokenHookAddress}, pool ${launch.publicOutput.poolId}`);
  }
  if (launch.failure) {
    out.line(`  failure ${launch.failure.code}: ${launch.failure.message} (${launch.failure.remediation})`);
  }
}

/** The V4 gates of every authenticated write, read with no key: the discovery manifest, then the lane's readiness. */
async function requireWrites(remote: Remote): Promise<void> {
  const base = { origin: remote.env.origin, timeoutMs: remote.timeoutMs };
  await requireDiscovery({ ...base, siteUrl: remote.env.siteUrl });
  await requireMultiRoleWrites(base);
}

/** `multi-role pack <project> --launch-wallet <address> --out <file> [--nonce <n>]`. */
async function pack({ args, values }: MultiRoleArgs, remote: Remote): Promise<void> {
  const project = one(args, 'pack', 'project folder');
  const outPath = stringFlag(values, 'out');
  const launchWallet = stringFlag(values, 'launch-wallet');
  if (!outPath || !launchWallet) {
    throw new CliExit('usage', 'multi-role pack needs --launch-wallet <address> and --out <file>');
  }
  // The project is checked before anything is asked of the network.
  const manifest = readMultiRoleManifest(project);
  const nonce = stringFlag(values, 'nonce');
  const packed = await packMultiRoleProject(project, {
    launchWallet,
    manifest,
    ...(nonce !== undefined ? { nonce } : {}),
    capabilities: async () => {
      const caps = await readMultiRoleCapabilities({ origin: remote.env.origin, timeoutMs: remote.timeoutMs });
      if (caps.error) throw failed(caps.error, 'GET .../multi-role-custom-launches/capabilities');
      return caps.data.capabilities;
    },
  });
  try {
    mkdirSync(dirname(resolve(outPath)), { recursive: true });
    writeFileSync(outPath, packed.bytes);
  } catch (err) {
    throw new CliExit('usage', `cannot write ${outPath}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const { request } = packed;
  const { out } = remote;
  out.result({
    out: outPath,
    bytes: packed.bytes.length,
    launchIntentHash: request.launchIntentHash,
    ...packed.predicted,
  });
  out.line(
    `packed ${project} into ${outPath} (${packed.bytes.length} bytes, profile revision ${request.profile.revision})`,
  );
  out.line(`  launch wallet       ${request.launchWallet} (nonce ${request.nonce})`);
  out.line(`  launchIntentHash    ${request.launchIntentHash}`);
  out.line(
    `  token and hook      ${packed.predicted.tokenHook} (mask 0x${packed.tokenHook.mask.toString(16).padStart(4, '0')})`,
  );
  out.line(`  pool id             ${packed.predicted.poolId}`);
  out.line('next: custom-launch multi-role preflight, then custom-launch multi-role submit with a journal');
}

/** `multi-role preflight <request.json>`: local checks, the write gates, then the server's evaluation. */
async function preflight({ args }: MultiRoleArgs, remote: Remote): Promise<void> {
  const { bytes } = readMultiRoleRequestFile(one(args, 'preflight', 'request file'));
  const apiKey = remote.apiKey();
  await requireWrites(remote);
  const result = await preflightMultiRoleLaunch({
    origin: remote.env.origin,
    timeoutMs: remote.timeoutMs,
    apiKey,
    bytes,
  });
  if (result.error) throw failed(result.error, 'preflight');
  const { report } = result.data;
  const { out } = remote;
  out.result(report);
  out.line(`preflight: ${report.disposition}; nothing was stored`);
  for (const finding of report.findings) {
    const missing = finding.missingVerificationRequirements;
    out.line(`  ${finding.severity}: ${finding.code}${missing.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}`);
  }
  out.line(`  requestHash ${report.requestHash}`);
}

const lane: SubmitLane<MultiRoleSubmitJournalV1, MultiRoleCustomLaunchResourceV2> = {
  group: 'multi-role',
  open: openMultiRoleJournal,
  create: createMultiRoleJournal,
  readRequestBytes: (path) => readMultiRoleRequestFile(path).bytes,
  requireWrites,
  submit: submitMultiRoleWithJournal,
};

/** `multi-role submit [<request.json>] --journal <file>`: the V4 submit's journal rules on the lane's create path. */
async function submit({ args, values, maxWaitMs }: MultiRoleArgs, remote: Remote): Promise<void> {
  await submitThroughJournal(
    lane,
    { args, journalPath: stringFlag(values, 'journal'), maxWaitMs: maxWaitMs(600) },
    remote,
  );
}

function readOne(launchId: string, remote: Remote): Promise<MultiRoleCustomLaunchResourceV2> {
  return launchOrExit(
    readMultiRoleLaunch({ origin: remote.env.origin, apiKey: remote.apiKey(), launchId, timeoutMs: remote.timeoutMs }),
  );
}

async function status({ args }: MultiRoleArgs, remote: Remote): Promise<void> {
  const launch = await readOne(one(args, 'status', 'launchId'), remote);
  remote.out.result(launch);
  describe(launch, remote.out);
}

const waitLane: WaitLane<
  MultiRoleWaitGoal,
  MultiRoleCustomLaunchResourceV2,
  { kind: 'stuck'; launch: MultiRoleCustomLaunchResourceV2 }
> = {
  group: 'multi-role',
  order: multiRoleStatusOrder,
  poll: (remote, options) =>
    waitForMultiRoleLaunch({
      origin: remote.env.origin,
      apiKey: remote.apiKey(),
      timeoutMs: remote.timeoutMs,
      ...options,
    }),
  describe,
};

/** `multi-role wait <launchId> [--until <status>]`: polls with a progress line until the status or past it. */
async function wait({ args, values, maxWaitMs }: MultiRoleArgs, remote: Remote): Promise<void> {
  const {
    launchId,
    until,
    launch,
    stop: error,
  } = await waitThroughPoll(waitLane, { args, values, maxWaitMs: maxWaitMs(900) }, remote);
  const { out } = remote;
  if (error) {
    const why = {
      failed: `the launch failed (terminal): ${launch.failure?.remediation ?? ''}`,
      needs_evidence: `the launch needs evidence (terminal): missing ${launch.missingVerificationRequirements.join(', ')}; fix the source or the economics and submit a new request with a new journal`,
    } as const;
    throw new CliExit(
      'needsAction',
      why[launch.status as keyof typeof why] ??
        'the launch needs action: its current findings block it; rebuild and submit a new request with a new journal',
    );
  }
  if (until === 'authorized') out.line(`next: custom-launch multi-role handoff ${launchId}`);
}

/** `multi-role handoff <launchId>`: the exact wallet transaction for the controller; never signed or sent here. */
async function handoff({ args }: MultiRoleArgs, remote: Remote): Promise<void> {
  printHandoff(await readOne(one(args, 'handoff', 'launchId'), remote), remote);
}

const subcommands: Record<string, (args: MultiRoleArgs, remote: Remote) => Promise<void>> = {
  pack,
  preflight,
  submit,
  status,
  wait,
  handoff,
};

/** The flags each subcommand takes; any other given flag is a usage error. */
const ownFlags: Record<string, readonly string[]> = {
  pack: ['out', 'launch-wallet', 'nonce'],
  submit: ['journal', 'max-wait'],
  wait: ['until', 'interval', 'max-wait'],
};

/** `custom-launch multi-role …`: the shared token-and-hook lane on chain 4663 (spec/openapi/paths/multi-role-*.yaml). */
export const multiRole: CliCommand = {
  name: 'multi-role',
  flags: {
    out: { type: 'string' },
    'launch-wallet': { type: 'string' },
    nonce: { type: 'string' },
    journal: { type: 'string' },
    'max-wait': { type: 'string' },
    until: { type: 'string' },
    interval: { type: 'string' },
  },
  usage: `  custom-launch multi-role pack <project-folder> --launch-wallet <address> --out <request.json> [--nonce <n>]
      Build a MultiRole V2 request from a project folder (launch-multi-role.json, Solidity sources, image): one
      contract is the token and the hook. Sources go inline, compiled locally with the pinned solc; the token_hook's
      salt is mined for the lane's factory and router from the lane's capabilities (read with no key, after the
      project's local checks). A fresh nonce unless --nonce.
  custom-launch multi-role preflight <request.json>
      Validate remotely; nothing is stored. Findings name evidence_required's missing verification.
  custom-launch multi-role submit <request.json> --journal <file> [--max-wait <seconds>]
  custom-launch multi-role submit --journal <file> [--max-wait <seconds>]
      Submit the exact bytes under the journal rules of submit (a shared-lane journal; default --max-wait 600).
  custom-launch multi-role status <launchId>
  custom-launch multi-role wait <launchId> [--until <status>] [--interval <seconds>] [--max-wait <seconds>]
      Poll by launchId, pinned to chain 4663, until the status or past it (received … finalized; default
      authorized). It stops (exit 7) at action_required, needs_evidence or failed. Defaults: --interval 2,
      --max-wait 900.
  custom-launch multi-role handoff <launchId>
      Print the exact wallet transaction for the controller to review and send from the wallet.
`,
  run: (input) => laneDispatch('multi-role', multiRole.flags, subcommands, ownFlags)(input),
};

/** The shared-lane group of `--help`. */
export const multiRoleGroup: CommandGroup = {
  heading:
    'MultiRole V2 shared-lane launches (chain 4663: one contract is token and hook; the same key, origin, journal and exit-code rules):',
  commands: [multiRole],
  notes: `  Before every multi-role preflight and submit the discovery manifest must allow V4 writes on chain 4663 and
  GET /v4/chains/4663/multi-role-custom-launches/capabilities (no key) must report readiness ready with
  publicWrites, else exit 4. Answers that are not the shared-lane chain-4663 launch asked for are refused (exit 5).
`,
};
