/*
 * The lifecycle driver of `make conformance` (conformance/run.ts): it plays the controller of V4 launches on the
 * chain-4663 devnet the server follows, so the conformance run reads launches in the statuses after `authorized`,
 * not only launches that wait for the chain. Every read it makes is checked against the spec: the status, the
 * Content-Type, the X-Request-Id header and the body against the operation's response schema in spec/schemas
 * (getCustomLaunchV4, listCustomLaunchesV4, listFinalizedCustomLaunchesV4 in spec/openapi/paths/).
 *
 * Before the V4 lane's stateful pass (`stage`): distinct-intent launches of examples/example-launch (each pack draws
 * a fresh nonce and salts, so no two share an intent), created with the typed client, their sources delivered,
 * followed to the wallet handoff; then one is finalized, one is left `ethereum_posted`, one
 * `sequencer_soft_confirmed`, one `wallet_action_required` (a transaction from the wallet to the router with other
 * bytes) and one awaiting the wallet. After the stateful passes (`finish`): the launches Schemathesis created from the
 * spec's V4 create examples get their source files (from the example project), then every V4 launch awaiting the
 * wallet, whoever created it, is sent its exact wallet transaction (eth_sendTransaction from the unlocked anvil
 * account) and mined to `finalized`; then every V4 launch of the key is read and checked once more.
 */
import type {
  ChainDeploymentV1,
  CustomLaunchCreateRequestV4,
  CustomLaunchResourceV4,
} from '../generated/types/service.ts';
import { createLaunchClient } from '../src/client/launches/client.ts';
import { packLaunchProject } from '../src/client/launches/pack/pack.ts';
import { deliverSourceFile, manifestFiles } from '../src/client/launches/sources.ts';
import { schemaProblems } from '../src/spec/schema-registry.ts';
import { anvilAccount0, blocksToFinalize, blocksToPost, devnetController } from './devnet-controller.ts';

const waitingStatuses = ['awaiting_wallet_signature', 'wallet_action_required', 'action_required', 'failed'];
const minedStatuses = ['sequencer_soft_confirmed', 'ethereum_posted', 'finalized'];

type Launch = CustomLaunchResourceV4;

export interface DriverOptions {
  /** The service origin. */
  url: string;
  /** A wallet key of the examples' wallet (anvil account 0) with custom-launch:create and custom-launch:read. */
  apiKey: string;
  /** The devnet's RPC URL. */
  rpcUrl: string;
  /** The chain-deployment document the devnet wrote (the packs bind it). */
  chainDeployment: ChainDeploymentV1;
  /** The project folder packed (examples/example-launch). */
  projectDir: string;
  /** The spec's V4 create examples (spec/examples), whose source files are in projectDir. */
  exampleRequests: CustomLaunchCreateRequestV4[];
  log: (line: string) => void;
}

/** What the driver saw: every launch read per status, and every broken expectation. */
export interface DriverReport {
  statuses: Map<string, Set<string>>;
  problems: string[];
}

/**
 * The lifecycle driver over one running devnet-backed server (see the file comment): `stage` before the stateful
 * pass, `finish` after it; `report` holds the statuses read and checked and any problem found.
 */
export function lifecycleDriver(options: DriverOptions) {
  const report: DriverReport = { statuses: new Map(), problems: [] };
  const client = createLaunchClient({ baseUrl: options.url, apiKey: options.apiKey });
  const headers = { Authorization: `Bearer ${options.apiKey}` };

  const { mine, send } = devnetController(options.rpcUrl);

  /** One GET checked against the spec; answers the parsed body (undefined when the answer broke the contract). */
  const checkedGet = async (path: string, schemaFile: string, what: string): Promise<unknown> => {
    const r = await fetch(`${options.url}${path}`, { headers });
    const text = await r.text();
    const found: string[] = [];
    if (r.status !== 200) found.push(`status ${r.status}: ${text.slice(0, 300)}`);
    if (!(r.headers.get('content-type') ?? '').startsWith('application/json')) found.push('not application/json');
    if (!r.headers.get('x-request-id')) found.push('no X-Request-Id header');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      found.push('a body that is not JSON');
    }
    if (found.length === 0) found.push(...schemaProblems(schemaFile, body).map((p) => `${schemaFile}: ${p}`));
    for (const problem of found) report.problems.push(`GET ${path} (${what}): ${problem}`);
    return found.length === 0 ? body : undefined;
  };
  const read = async (launchId: string): Promise<Launch | undefined> => {
    const launch = (await checkedGet(
      `/v4/chains/4663/custom-launches/${launchId}`,
      'custom-launch-resource.v4.schema.json',
      'getCustomLaunchV4',
    )) as Launch | undefined;
    if (launch) {
      const seen = report.statuses.get(launch.status) ?? new Set<string>();
      seen.add(launchId);
      report.statuses.set(launch.status, seen);
    }
    return launch;
  };
  /** Reads every 100 ms until the launch is in one of `statuses`; a timeout is a problem, not a throw. */
  const until = async (launchId: string, statuses: string[], timeoutMs = 60_000): Promise<Launch | undefined> => {
    const deadline = Date.now() + timeoutMs;
    let last: Launch | undefined;
    while (Date.now() < deadline) {
      last = (await read(launchId)) ?? last;
      if (last && statuses.includes(last.status)) return last;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    report.problems.push(`launch ${launchId} stayed ${last?.status ?? 'unread'}, not ${statuses.join(' | ')}`);
    return undefined;
  };

  /** A fresh distinct-intent launch of the project, created with the typed client and its sources delivered. */
  const create = async (label: string): Promise<string | undefined> => {
    const packed = packLaunchProject(options.projectDir, { chainDeployment: options.chainDeployment });
    const created = await client.create(packed.request, `conformance-driver-${label}-${Date.now()}`);
    if (created.response.status !== 202 || !created.data) {
      report.problems.push(`create ${label}: ${created.response.status} ${JSON.stringify(created.error)}`);
      return undefined;
    }
    const launchId = created.data.launchId;
    for (const file of manifestFiles(options.projectDir, packed.request)) {
      const delivered = await deliverSourceFile(options.url, launchId, file, {
        apiKey: options.apiKey,
        timeoutMs: 30_000,
      });
      if (delivered.error)
        report.problems.push(`source ${file.sha256} of ${label}: ${JSON.stringify(delivered.error)}`);
    }
    return launchId;
  };
  /** Sends the launch's exact wallet transaction and follows it to the sequencer's soft confirmation. */
  const handOff = async (launch: Launch): Promise<boolean> => {
    const tx = launch.walletTransaction;
    if (!tx || tx.from.toLowerCase() !== anvilAccount0) return false;
    await send(tx);
    return (await until(launch.launchId, minedStatuses)) !== undefined;
  };

  /** Sends the exact wallet transaction of a launch whose graph is already deployed: it must fail as reverted. */
  const revertsOnChain = async (launch: Launch): Promise<void> => {
    const tx = launch.walletTransaction;
    if (!tx || tx.from.toLowerCase() !== anvilAccount0) return;
    await send(tx);
    const failed = await until(launch.launchId, ['failed']);
    if (failed && failed.failure?.code !== 'WALLET_TRANSACTION_REVERTED')
      report.problems.push(
        `launch ${launch.launchId} failed with ${failed.failure?.code}, not WALLET_TRANSACTION_REVERTED`,
      );
  };

  const labels = ['finalized', 'posted', 'soft-confirmed', 'mismatch', 'awaiting-wallet'] as const;
  const staged = new Map<string, Launch>();

  return {
    report,
    /** Creates the driver's launches and leaves each in its status (before the stateful pass). */
    async stage(): Promise<void> {
      for (const label of labels) {
        const launchId = await create(label);
        if (launchId === undefined) continue;
        const launch = await until(launchId, waitingStatuses);
        if (launch?.status !== 'awaiting_wallet_signature') {
          report.problems.push(`${label}: ${launchId} is ${launch?.status}: ${JSON.stringify(launch?.findings)}`);
          continue;
        }
        staged.set(label, launch);
      }
      const finalized = staged.get('finalized');
      if (finalized && (await handOff(finalized))) {
        await mine(blocksToFinalize);
        await until(finalized.launchId, ['finalized']);
      }
      const posted = staged.get('posted');
      if (posted && (await handOff(posted))) {
        await mine(blocksToPost);
        await until(posted.launchId, ['ethereum_posted']);
      }
      const soft = staged.get('soft-confirmed');
      if (soft) await handOff(soft);
      const mismatch = staged.get('mismatch');
      if (mismatch?.walletTransaction) {
        // The exact transaction with one wei more: the router refuses it, and the tracker never accepts it.
        const tx = mismatch.walletTransaction;
        await send({ ...tx, valueWei: String(BigInt(tx.valueWei) + 1n) });
        await until(mismatch.launchId, ['wallet_action_required']);
      }
      options.log(`staged: ${[...staged.keys()].join(', ')}; statuses read: ${statusLine(report)}`);
    },
    /**
     * After the stateful pass: every launch awaiting the wallet is handed off and mined to `finalized`; then every
     * V4 launch of the key is read again, through the list pages and one by one, and the finalized feed.
     */
    async finish(): Promise<void> {
      await deliverExampleSources(await listAll());
      const all = await listAll();
      const handedOff: string[] = [];
      // The spec's two V4 examples (4.1.0 and the frozen 4.0.0) pack the same project, so they bind one graph: only
      // the first of them on chain deploys it, and the exact transaction of the other then reverts on chain. That
      // launch must fail with WALLET_TRANSACTION_REVERTED; its failed resource is read and checked like any other.
      const exampleIntents = new Set(options.exampleRequests.map((r) => r.launchIntentHash));
      let exampleGraphDeployed = false;
      // An `authorized` launch is one tracker poll from the wallet handoff: it is waited for, not left behind.
      for (const launch of all.filter((l) => l.status === 'authorized' || l.status === 'awaiting_wallet_signature')) {
        const current = await until(launch.launchId, [...waitingStatuses, ...minedStatuses]);
        if (current?.status !== 'awaiting_wallet_signature') continue;
        const example = exampleIntents.has(current.launchIntentHash);
        if (example && exampleGraphDeployed) {
          await revertsOnChain(current);
          continue;
        }
        if (await handOff(current)) {
          handedOff.push(launch.launchId);
          exampleGraphDeployed ||= example;
        }
      }
      if (handedOff.length > 0) await mine(blocksToFinalize);
      for (const launchId of handedOff) await until(launchId, ['finalized']);
      for (const launch of await listAll()) await read(launch.launchId);
      const feed = await checkedGet(
        '/v4/chains/4663/finalized-custom-launches?limit=25',
        'custom-launch-finalized-list.v4.schema.json',
        'listFinalizedCustomLaunchesV4',
      );
      const finalizedIds = report.statuses.get('finalized') ?? new Set<string>();
      const feedIds = new Set(JSON.stringify(feed ?? {}).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? []);
      for (const launchId of finalizedIds) {
        if (!feedIds.has(launchId)) report.problems.push(`finalized launch ${launchId} is not in the finalized feed`);
      }
      options.log(`handed off after the stateful pass: ${handedOff.length}; statuses read: ${statusLine(report)}`);
    },
  };

  /**
   * The launches Schemathesis created from the spec's V4 create examples wait for their source files
   * (SOURCE_FILES_PENDING): their files are in the example project, so they are delivered here, and each launch is
   * followed out of `validating` to where the devnet takes it (the examples bind another chain deployment).
   */
  async function deliverExampleSources(launches: Launch[]): Promise<void> {
    const files = options.exampleRequests.flatMap((request) => manifestFiles(options.projectDir, request));
    const pending = launches.filter((l) => l.lifecycleQueue?.lastErrorCode === 'SOURCE_FILES_PENDING');
    for (const launch of pending) {
      // A file outside this launch's manifest is refused: only the example it was created from has all of them.
      for (const file of files)
        await deliverSourceFile(options.url, launch.launchId, file, { apiKey: options.apiKey, timeoutMs: 30_000 });
    }
    for (const launch of pending) {
      await until(launch.launchId, ['action_required', 'failed', 'awaiting_wallet_signature', 'authorized']);
    }
    options.log(`sources delivered to ${pending.length} launches created from the spec's examples`);
  }

  /** Every V4 launch the key sees, through the list's pages (each page checked against the spec). */
  async function listAll(): Promise<Launch[]> {
    const launches: Launch[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=25&cursor=${encodeURIComponent(cursor)}` : '?limit=25';
      const page = (await checkedGet(
        `/v4/chains/4663/custom-launches${query}`,
        'custom-launch-list.v4.schema.json',
        'listCustomLaunchesV4',
      )) as { launches: Launch[]; nextCursor: string | null } | undefined;
      if (!page) break;
      launches.push(...page.launches);
      cursor = page.nextCursor;
    } while (cursor);
    return launches;
  }
}

/** "status n, …" of the launches read per status. */
export function statusLine(report: DriverReport): string {
  return [...report.statuses.entries()].map(([status, ids]) => `${status} ${ids.size}`).join(', ');
}
