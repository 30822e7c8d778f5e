import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import {
  type BaseLayerWaitGoal,
  baseLayerStatusOrder,
  cancelBaseLayerLaunch,
  fundingTypedDataOf,
  preflightBaseLayerLaunch,
  readBaseLayerCapabilities,
  readBaseLayerLaunch,
  requireBaseLayerWrites,
  sendFundingSignature,
  waitForBaseLayerLaunch,
} from '../../client/base-layer/calls.ts';
import {
  type BaseLayerSubmitJournalV1,
  createBaseLayerJournal,
  openBaseLayerJournal,
} from '../../client/base-layer/journal.ts';
import { readBaseLayerManifest } from '../../client/base-layer/manifest.ts';
import { packBaseLayerLaunch } from '../../client/base-layer/pack.ts';
import { readBaseLayerRequestFile } from '../../client/base-layer/request-file.ts';
import { submitBaseLayerWithJournal } from '../../client/base-layer/submit.ts';
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

/** One `custom-launch v3 …` command line, parsed. */
type V3Args = LaneArgs;

function one(args: string[], sub: string, what: string): string {
  return onePositional('v3', args, sub, what);
}

function describe(launch: CustomLaunchResourceV3, out: Output): void {
  out.line(`launch ${launch.launchId}: ${launch.status} (updated ${launch.updatedAt}, funding ${launch.fundingMode})`);
  if (launch.findingCodes.length > 0) out.line(`  findings: ${launch.findingCodes.join(', ')}`);
  const rejection = launch.fundingAuthorization?.lastRejection;
  if (rejection) out.line(`  last funding signature refused: ${rejection.code} at ${rejection.at}`);
  if (launch.failure)
    out.line(`  failure ${launch.failure.code}: ${launch.failure.message} (${launch.failure.remediation})`);
}

/** `v3 pack <project> --launch-wallet <address> --out <file> [--nonce <n>]`. */
async function pack({ args, values }: V3Args, remote: Remote): Promise<void> {
  const project = one(args, 'pack', 'project folder');
  const outPath = stringFlag(values, 'out');
  const launchWallet = stringFlag(values, 'launch-wallet');
  if (!outPath || !launchWallet) throw new CliExit('usage', 'v3 pack needs --launch-wallet <address> and --out <file>');
  // The project is checked before anything is asked of the network.
  const manifest = readBaseLayerManifest(project);
  const caps = await readBaseLayerCapabilities({ origin: remote.env.origin, timeoutMs: remote.timeoutMs });
  if (caps.error) throw failed(caps.error, 'GET /v3/capabilities');
  const nonce = stringFlag(values, 'nonce');
  const packed = packBaseLayerLaunch(project, {
    lane: { capabilities: caps.data.capabilities },
    launchWallet,
    manifest,
    ...(nonce !== undefined ? { nonce } : {}),
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
  out.line(`packed ${project} into ${outPath} (${packed.bytes.length} bytes, profile ${request.profile.version})`);
  out.line(`  launch wallet       ${request.launchWallet} (nonce ${request.nonce})`);
  out.line(`  launchIntentHash    ${request.launchIntentHash}`);
  out.line(`  hook                ${packed.predicted.hook} (mask 0x${packed.hook.mask.toString(16).padStart(4, '0')})`);
  out.line(`  token               ${packed.predicted.token}`);
  out.line(`  pool id             ${packed.predicted.poolId}`);
  out.line('next: custom-launch v3 preflight, then custom-launch v3 submit with a journal');
}

/** `v3 preflight <request.json>`: local checks, the lane's write gate, then the server's evaluation. */
async function preflight({ args }: V3Args, remote: Remote): Promise<void> {
  const { bytes } = readBaseLayerRequestFile(one(args, 'preflight', 'request file'));
  const apiKey = remote.apiKey();
  const base = { origin: remote.env.origin, timeoutMs: remote.timeoutMs };
  await requireBaseLayerWrites(base);
  const result = await preflightBaseLayerLaunch({ ...base, apiKey, bytes });
  if (result.error) throw failed(result.error, 'preflight');
  const { report } = result.data;
  const { out } = remote;
  out.result(report);
  out.line(`preflight: ${report.disposition} (profile ${report.launchProfileVersion}); nothing was stored`);
  const groups: Array<[string, string[]]> = [
    ['blocking', report.blockingFindingCodes],
    ['needs evidence', report.needsEvidenceFindingCodes],
    ['warning', report.warningFindingCodes],
  ];
  for (const [name, codes] of groups) if (codes.length > 0) out.line(`  ${name}: ${codes.join(', ')}`);
  out.line(`  fee certification: ${JSON.stringify(report.feeCertification)}`);
  out.line(`  requestHash ${report.requestHash}`);
}

const v3Lane: SubmitLane<BaseLayerSubmitJournalV1, CustomLaunchResourceV3> = {
  group: 'v3',
  open: openBaseLayerJournal,
  create: createBaseLayerJournal,
  readRequestBytes: (path) => readBaseLayerRequestFile(path).bytes,
  requireWrites: (remote) => requireBaseLayerWrites({ origin: remote.env.origin, timeoutMs: remote.timeoutMs }),
  submit: submitBaseLayerWithJournal,
};

/** `v3 submit [<request.json>] --journal <file>`: the V4 submit's journal rules on the V3 create path. */
async function submit({ args, values, maxWaitMs }: V3Args, remote: Remote): Promise<void> {
  await submitThroughJournal(
    v3Lane,
    { args, journalPath: stringFlag(values, 'journal'), maxWaitMs: maxWaitMs(600) },
    remote,
  );
}

/** One pinned read, or the exit that says why there is none. */
function readOne(launchId: string, remote: Remote): Promise<CustomLaunchResourceV3> {
  return launchOrExit(
    readBaseLayerLaunch({ origin: remote.env.origin, apiKey: remote.apiKey(), launchId, timeoutMs: remote.timeoutMs }),
  );
}

async function status({ args }: V3Args, remote: Remote): Promise<void> {
  const launch = await readOne(one(args, 'status', 'launchId'), remote);
  remote.out.result(launch);
  describe(launch, remote.out);
}

const v3WaitLane: WaitLane<
  BaseLayerWaitGoal,
  CustomLaunchResourceV3,
  { kind: 'stuck' | 'awaiting_signature'; launch: CustomLaunchResourceV3 }
> = {
  group: 'v3',
  order: baseLayerStatusOrder,
  poll: (remote, options) =>
    waitForBaseLayerLaunch({
      origin: remote.env.origin,
      apiKey: remote.apiKey(),
      timeoutMs: remote.timeoutMs,
      ...options,
    }),
  describe,
};

/** `v3 wait <launchId> [--until <status>]`: polls with a progress line until the status or past it. */
async function wait({ args, values, maxWaitMs }: V3Args, remote: Remote): Promise<void> {
  const {
    launchId,
    until,
    launch,
    stop: error,
  } = await waitThroughPoll(v3WaitLane, { args, values, maxWaitMs: maxWaitMs(900) }, remote);
  const { out } = remote;
  if (error?.kind === 'awaiting_signature') {
    throw new CliExit(
      'needsAction',
      `the launch awaits the controller's funding signature: custom-launch v3 funding-typed-data ${launchId}, sign it in the wallet, then custom-launch v3 funding-signature ${launchId} --signature 0x…`,
    );
  }
  if (error) {
    const why = { failed: 'the launch failed (terminal)', cancelled: 'the launch was cancelled (terminal)' } as const;
    throw new CliExit(
      'needsAction',
      why[launch.status as keyof typeof why] ??
        'the launch needs action: its current findings block it; rebuild and submit a new request with a new journal',
    );
  }
  if (launch.status === 'awaiting_funding_authorization')
    out.line(`next: custom-launch v3 funding-typed-data ${launchId}`);
  else if (until === 'authorized') out.line(`next: custom-launch v3 handoff ${launchId}`);
}

/** `v3 funding-typed-data <launchId>`: exactly the resource's typed data, as JSON, for eth_signTypedData_v4. */
async function fundingTypedData({ args }: V3Args, remote: Remote): Promise<void> {
  const launch = await readOne(one(args, 'funding-typed-data', 'launchId'), remote);
  const typedData = fundingTypedDataOf(launch);
  if (!typedData) {
    throw new CliExit(
      'needsAction',
      launch.fundingMode === 'native'
        ? `launch ${launch.launchId} is funded natively: there is no funding authorization to sign`
        : `launch ${launch.launchId} is ${launch.status}: it offers no typed data (wait --until awaiting_funding_authorization)`,
    );
  }
  const text = JSON.stringify(typedData, null, 2);
  if (remote.out.json) remote.out.result(typedData);
  else remote.out.line(text);
  remote.out.note(
    `sign this ReceiveWithAuthorization in the wallet of ${launch.launchWallet} (eth_signTypedData_v4), then: custom-launch v3 funding-signature ${launch.launchId} --signature 0x…`,
  );
}

/** `v3 funding-signature <launchId> --signature 0x…`: sends exactly the signature the wallet made. */
async function fundingSignature({ args, values }: V3Args, remote: Remote): Promise<void> {
  const launchId = one(args, 'funding-signature', 'launchId');
  const signature = stringFlag(values, 'signature');
  if (!signature)
    throw new CliExit('usage', "v3 funding-signature needs --signature 0x… (the wallet's 65-byte signature)");
  const result = await sendFundingSignature({
    origin: remote.env.origin,
    apiKey: remote.apiKey(),
    launchId,
    signature,
    timeoutMs: remote.timeoutMs,
  });
  if (result.error) throw failed(result.error, 'funding-signature');
  remote.out.result(result.data.launch);
  describe(result.data.launch, remote.out);
  remote.out.line(`next: custom-launch v3 wait ${launchId}`);
}

async function cancel({ args }: V3Args, remote: Remote): Promise<void> {
  const launchId = one(args, 'cancel', 'launchId');
  const result = await cancelBaseLayerLaunch({
    origin: remote.env.origin,
    apiKey: remote.apiKey(),
    launchId,
    timeoutMs: remote.timeoutMs,
  });
  if (result.error) throw failed(result.error, 'cancel');
  remote.out.result(result.data.launch);
  describe(result.data.launch, remote.out);
  if (result.data.launch.fundingAuthorization?.signature) {
    remote.out.line(
      "  a signed funding authorization stays valid on chain until its window closes; void it from the wallet with the token's cancelAuthorization",
    );
  }
}

/** `v3 handoff <launchId>`: the exact wallet transaction for the controller; never signed or sent here. */
async function handoff({ args }: V3Args, remote: Remote): Promise<void> {
  printHandoff(await readOne(one(args, 'handoff', 'launchId'), remote), remote);
}

const subcommands: Record<string, (args: V3Args, remote: Remote) => Promise<void>> = {
  pack,
  preflight,
  submit,
  status,
  wait,
  'funding-typed-data': fundingTypedData,
  'funding-signature': fundingSignature,
  cancel,
  handoff,
};

/** The flags each V3 subcommand takes; any other given flag is a usage error. */
const ownFlags: Record<string, readonly string[]> = {
  pack: ['out', 'launch-wallet', 'nonce'],
  submit: ['journal', 'max-wait'],
  wait: ['until', 'interval', 'max-wait'],
  'funding-signature': ['signature'],
};

/** `custom-launch v3 …`: the base-layer (chain 1) lane (spec/openapi/paths/v3-*.yaml). */
export const v3: CliCommand = {
  name: 'v3',
  flags: {
    out: { type: 'string' },
    'launch-wallet': { type: 'string' },
    nonce: { type: 'string' },
    journal: { type: 'string' },
    'max-wait': { type: 'string' },
    until: { type: 'string' },
    interval: { type: 'string' },
    signature: { type: 'string' },
  },
  usage: `  custom-launch v3 pack <project-folder> --launch-wallet <address> --out <request.json> [--nonce <n>]
      Build a V3 request from a project folder (launch-v3.json, Solidity sources, image): the sources go inline
      as one standard-JSON unit, compiled locally with the pinned solc for each target's init code hash; the
      hook salt is mined for the lane's factory and router from GET /v3/capabilities (read with no key, after
      the project's local checks). A fresh nonce unless --nonce.
  custom-launch v3 preflight <request.json>
      Validate remotely; nothing is stored.
  custom-launch v3 submit <request.json> --journal <file> [--max-wait <seconds>]
  custom-launch v3 submit --journal <file> [--max-wait <seconds>]
      Submit the exact bytes under the journal rules of submit (a V3 journal; default --max-wait 600).
  custom-launch v3 status <launchId>
  custom-launch v3 wait <launchId> [--until <status>] [--interval <seconds>] [--max-wait <seconds>]
      Poll by launchId, pinned to chain 1, showing the status and the elapsed time, until the status or past it
      (pending_review … finalized; default authorized). It stops (exit 7) when the launch awaits the funding
      signature, needs action, failed or was cancelled. Defaults: --interval 2, --max-wait 900.
  custom-launch v3 funding-typed-data <launchId>
      Print exactly the EIP-712 typed data the controller signs (eth_signTypedData_v4) for an eip3009 launch.
  custom-launch v3 funding-signature <launchId> --signature 0x…
      Send the 65-byte signature the wallet made; this tool never holds a private key.
  custom-launch v3 cancel <launchId>
      Withdraw a launch before it is submitted.
  custom-launch v3 handoff <launchId>
      Print the exact wallet transaction for the controller to review and send from the wallet.
`,
  run: (input) => laneDispatch('v3', v3.flags, subcommands, ownFlags)(input),
};

/** The V3 group of `--help`. */
export const v3Group: CommandGroup = {
  heading: 'Base-layer V3 launches (chain 1; the same key, origin, journal and exit-code rules):',
  commands: [v3],
  notes: `  Before every v3 preflight and submit GET /v3/capabilities (no key) must report acceptsNewSubmissions and
  the lane's contracts, else exit 4. Answers that are not the V3 chain-1 launch asked for are refused (exit 5).
`,
};
