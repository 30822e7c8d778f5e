/*
 * `make conformance`: proves the running server keeps the contract, on the stack `make start` gives (docs/conformance.md).
 *  1. a fresh SQLite file, a wallet key for every wallet scope (plus one holding all of them) and a partner root,
 *     whose key the subkey routes are called with; the history sample imported;
 *  2. the chain-4663 devnet and the base-layer devnet (chain 1) on free ports, and the real server (`src/main.ts`)
 *     bound to them as scripts/start.ts binds it, on a free loopback port, response validation on;
 *  3. Schemathesis (exact 4.x from conformance/requirements.txt, in .venv) against every operation of
 *     generated/openapi/service.bundled.json with every check, a fixed seed, no example database, JUnit + JSON
 *     reports under build/conformance/: a stateful pass over the shared lane's linked operations, whose every link
 *     must be followed; one over the V4 lane's; a stateless pass; a stateful pass over every implemented operation.
 *     The stateful passes must follow at least minimumLinksCovered links between them. Beside the first pass, the
 *     lifecycle driver (conformance/lifecycle-driver.ts) takes V4 launches through `authorized` to `finalized`,
 *     `ethereum_posted`, `sequencer_soft_confirmed` and `wallet_action_required` on the devnet; after the stateful
 *     pass it hands off and finalizes every launch awaiting the wallet (the ones Schemathesis created included) and
 *     reads every launch again, each read checked against the spec.
 *     A second target: Schemathesis against generated/openapi/developer-api.bundled.json on the server's developer
 *     listener (DEVELOPERS_PORT), after the history sample (examples/history/history-sample.jsonl) is imported so the
 *     token list and the launches registry have rows. With CI=true the stateful passes run again on a random seed
 *     printed first; a failed pass prints the command line that reproduces it;
 *  4. the Python and Go clients generated from the spec make one authenticated call each, and the clients generated
 *     from the developer API document each read the token list;
 *  5. stops the server and the devnets it started (by PID) and prints a summary; exits 1 on any failure.
 * Environment: CONFORMANCE_MAX_EXAMPLES (default 25), CONFORMANCE_SEED (default 4663), CONFORMANCE_OPERATION (an
 * operationId: step 3 runs the examples, coverage and fuzzing phases for that operation alone, and the stateful pass,
 * the driver and step 4 are left out; `make conformance OPERATION=<operationId>` sets it), CI.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mintPartnerRoot, mintWalletKey, rootBudgetMaxima, walletScopes } from '../src/auth/keys.ts';
import { stopAnvilAtExit } from '../src/devnet/anvil.ts';
import { baseDevnetServerEnv, startBaseDevnet } from '../src/devnet/base-devnet.ts';
import { devnetServerEnv, startDevnet } from '../src/devnet/devnet.ts';
import { openDatabase } from '../src/store/db.ts';
import { listeningUrlIn } from '../test/support/process.ts';
import { lifecycleDriver, statusLine } from './lifecycle-driver.ts';

const startedAt = Date.now();
const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'build/conformance');
/** The server's log (a JSON line per request among them), kept for a failure's request ids. */
const serverLogPath = join(out, 'server.log');
const seed = process.env.CONFORMANCE_SEED ?? '4663';
const maxExamples = process.env.CONFORMANCE_MAX_EXAMPLES ?? '25';
const operation = process.env.CONFORMANCE_OPERATION || undefined;
// In CI the stateful passes run a second time on a seed drawn now and printed first, so every CI run explores new
// scenarios while the fixed seed keeps the first passes reproducible; a failure prints the seed's command line.
const randomSeed = process.env.CI === 'true' && !operation ? String(randomInt(1, 2 ** 31)) : undefined;
/** The stateful passes (fixed seed) must follow at least this many links between them. */
const minimumLinksCovered = 20;
/** The V4 statuses the lifecycle driver must read (and check) a launch in; `submitted` is committed with the next. */
const driverStatuses = [
  'validating',
  'authorized',
  'awaiting_wallet_signature',
  'wallet_action_required',
  'sequencer_soft_confirmed',
  'ethereum_posted',
  'finalized',
];
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

function step(message: string): void {
  console.log(`\n[conformance] ${message}`);
}

/** Starts the real server on a free port and resolves with its origin once it listens. */
async function startServer(
  databasePath: string,
  chainEnv: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; developersUrl: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_PATH: databasePath,
      PORT: '0',
      DEVELOPERS_PORT: '0',
      HOST: '127.0.0.1',
      VALIDATE_RESPONSES: 'true',
      // Schemathesis sends thousands of requests a minute and hundreds of creates: the budgets and the admission
      // quota are set out of its way here and are tested on both sides of their limits in test/http/rate-limits.
      ROUTE_BUDGET_PER_MINUTE: '100000000',
      ADMISSION_PER_HOUR: '1000000',
      ADMISSION_PER_DAY: '1000000',
      // The devnets as `make start` binds them (scripts/start.ts): chain 4663 with its chain deployment, source
      // verification registry, permit attester and the shared lane's contracts, and the base layer (chain 1).
      ...chainEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[server] ${chunk}`));
  const [url, developersUrl] = await new Promise<[string, string]>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const service = listeningUrlIn(seen, 'custom-launch-api listening');
      const developers = listeningUrlIn(seen, 'developer API listening');
      if (service && developers) {
        // From here the server's lines (one a request) only go to its log file, never kept in memory.
        child.stdout?.off('data', onData);
        resolve([service, developers]);
      }
    };
    child.stdout?.pipe(createWriteStream(serverLogPath));
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited during start-up (exit ${code})`)));
    setTimeout(() => reject(new Error('the server did not start within 60 s')), 60_000).unref();
  });
  return { child, url, developersUrl };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface StReport {
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  errors: Array<{ title?: string; message?: string }>;
  phases: Record<string, { status: string }>;
}

rmSync(out, { recursive: true, force: true });
if (randomSeed) console.log(`[conformance] seeds: the fixed ${seed}, and ${randomSeed} drawn for this run (CI=true)`);
mkdirSync(join(out, 'reports'), { recursive: true });
const databasePath = join(out, 'conformance.sqlite');

step('minting keys for every scope in a fresh SQLite file');
const db = openDatabase(databasePath);
const allScopes = mintWalletKey(db, { wallet, scopes: [...walletScopes], chains: ['4663', '1'] }).apiKey;
for (const scope of walletScopes) mintWalletKey(db, { wallet, scopes: [scope], chains: ['4663'] });
// The partner root's budgets are at their maxima and it expires late, out of Schemathesis' way; budgets and expiry
// are tested on both sides of their limits in test/partners.
const partnerRoot = mintPartnerRoot(db, {
  name: 'Conformance partner',
  wallet,
  chains: ['4663'],
  expiresAt: '9999-12-31T23:59:59.999Z',
  budgets: { ...rootBudgetMaxima },
  now: Date.now(),
}).apiKey;
db.close();
console.log(
  `${walletScopes.length + 1} wallet keys: one per scope (${walletScopes.join(', ')}) and one holding all; one partner root`,
);

step('importing the history sample (examples/history/history-sample.jsonl) with the operator command');
// The imported V2/V1 and V3 rows give the developer API's launches registry and token list real rows to serve (the
// token list has none to serve on an empty registry), and the V3 finalized feed a first page.
const imported = spawnSync(
  process.execPath,
  ['--import', 'tsx', 'src/admin/cli.ts', 'import-history', 'examples/history/history-sample.jsonl'],
  { cwd: root, env: { ...process.env, DATABASE_PATH: databasePath }, stdio: ['ignore', 'inherit', 'inherit'] },
);
if (imported.status !== 0) {
  console.error(`the history import failed (exit ${imported.status})`);
  process.exit(1);
}

step('writing the Schemathesis configuration');
const bundled = JSON.parse(readFileSync(join(root, 'generated/openapi/service.bundled.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
};
const notImplemented = Object.values(bundled.paths)
  .flatMap((item) => Object.values(item))
  .filter((op) => op.operationId && op.responses && '501' in op.responses)
  .map((op) => op.operationId as string)
  .sort();
const stConfig = join(out, 'schemathesis.toml');
const stTemplate = readFileSync(join(root, 'conformance/schemathesis.toml'), 'utf8');
// With no operation answering 501 the block that scopes its exception would match nothing: it is left out, not
// filled with a pattern Schemathesis warns about.
const notImplementedBlock =
  /\[\[operations\]\]\n# Operations this deployment does not implement yet[\s\S]*?checks\.not_a_server_error\.enabled = false\n\n/;
writeFileSync(
  stConfig,
  notImplemented.length === 0
    ? stTemplate.replace(notImplementedBlock, '')
    : stTemplate.replace('@NOT_IMPLEMENTED_OPERATIONS@', `^(${notImplemented.join('|')})$`),
);
if (notImplemented.length === 0 && readFileSync(stConfig, 'utf8').includes('@NOT_IMPLEMENTED_OPERATIONS@')) {
  throw new Error('conformance/schemathesis.toml: the block of the 501 operations was not found');
}
/**
 * The configuration of a lane's stateful pass: the run's configuration with `scenarios` as the stateful budget, and
 * the lane's create sent under one Idempotency-Key per pass. One launch per intent makes a create of a stored intent
 * under another key 409 LAUNCH_INTENT_CONFLICT, so with a fresh key per request only the first create of a spec
 * example is admitted and an exact replay (200) comes from a key Hypothesis seldom draws twice; under one key the
 * first admitted create is 202 and every later one with the same bytes its 200 replay, and both links are followed.
 * The stateless pass sends the header as generated, negative cases included.
 */
function laneConfig(name: string, createOperationId: string, scenarios: number, passSeed: string): string {
  const path = join(out, `schemathesis-${name}.toml`);
  const key = `conformance-${name}-${passSeed}`;
  writeFileSync(
    path,
    `${readFileSync(stConfig, 'utf8').replace('generation.max-examples = 200', `generation.max-examples = ${scenarios}`)}
[[operations]]
# Written by conformance/run.ts for this lane's stateful pass: one Idempotency-Key for its creates (laneConfig).
# The fixed header replaces a generated one, so a negative case's broken key would never be sent: the lane's creates
# are generated as positive data here, and the stateless pass sends every negative case of this operation.
include-operation-id = "${createOperationId}"
headers = { Authorization = "Bearer \${CONFORMANCE_API_KEY}", "Idempotency-Key" = "${key}" }
generation.mode = "positive"
`,
  );
  return path;
}
console.log(
  notImplemented.length === 0
    ? 'every operation is implemented: none answers 501'
    : `${notImplemented.length} operations answer 501 by design: ${notImplemented.join(', ')}`,
);
const developerSpec = join(root, 'generated/openapi/developer-api.bundled.json');
const operationIdsOf = (doc: typeof bundled) =>
  Object.values(doc.paths).flatMap((item) =>
    Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])),
  );
const operationIds = operationIdsOf(bundled);
const developerOperationIds = operationIdsOf(JSON.parse(readFileSync(developerSpec, 'utf8')) as typeof bundled);
if (operation !== undefined && ![...operationIds, ...developerOperationIds].includes(operation)) {
  console.error(
    `no operation ${operation} in the specs; the operationIds are: ${[...operationIds, ...developerOperationIds].sort().join(', ')}`,
  );
  process.exit(2);
}

step('starting the devnets as `make start` does: chain 4663 and the base layer (chain 1), each on a free port');
// Port 0: anvil binds a free port itself (the kernel's ephemeral range, above 20000), so two runs never collide.
const devnetDir = join(out, 'devnet');
const devnet = await startDevnet({ port: 0, outputDir: devnetDir });
stopAnvilAtExit(devnet.anvilPid);
const baseDevnet = await startBaseDevnet({ port: 0, outputDir: devnetDir });
stopAnvilAtExit(baseDevnet.anvilPid);
console.log(`chain 4663 at ${devnet.deployment.rpcUrl}, chain 1 at ${baseDevnet.deployment.rpcUrl}`);

step('starting the server');
const { child, url, developersUrl } = await startServer(databasePath, {
  ...devnetServerEnv(devnet.deployment, devnetDir),
  ...baseDevnetServerEnv(baseDevnet.deployment, devnetDir),
});
console.log(`server pid ${child.pid} at ${url}, its developer API at ${developersUrl}`);

let failed = false;
let links: RegExpExecArray | null = null;
let sharedLaneLinks: RegExpExecArray | null = null;
const sharedLaneLinked = '^(createMultiRoleCustomLaunch|getMultiRoleCustomLaunch|listMultiRoleCustomLaunches)$';
const v4LaneLinked =
  '^(createCustomLaunchV4|getCustomLaunchV4|listCustomLaunchesV4|putCustomLaunchSourceFileV4|decidePermitReissueV4|listFinalizedCustomLaunchesV4)$';
/**
 * The links the fixed-seed stateful pass over every operation followed outside the lanes, by full name, and the
 * number the lanes' passes followed: their sum must reach the minimum.
 */
const followedLinks = new Set<string>();
let laneLinksFollowed = 0;
/** The paths of the lanes' operations (every link among them is followed in its lane's pass). */
const laneLinkPaths = ['/multi-role-custom-launches', '/custom-launches', '/finalized-custom-launches'].map(
  (path) => ` /v4/chains/{chainId}${path}`,
);
const reports: StReport[] = [];
const passNames: string[] = [];
/**
 * Runs conformance/clients/<language>/call.sh (generates the client from the spec, builds it, makes one authenticated
 * call and reads the developer API's token list) against the running server; its output is kept for the report.
 */
function runClient(
  language: string,
  target: { url: string; developersUrl: string; apiKey: string },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [join(root, `conformance/clients/${language}/call.sh`)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CONFORMANCE_BASE_URL: target.url,
        CONFORMANCE_API_KEY: target.apiKey,
        CONFORMANCE_DEVELOPERS_URL: target.developersUrl,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.once('error', (err) => resolve({ status: 1, stdout, stderr: `${stderr}${err.message}\n` }));
  });
}

const clientResults: string[] = [];
const reproductions: string[] = [];
let serverCpuSeconds: number | undefined;
const driver = lifecycleDriver({
  url,
  apiKey: allScopes,
  rpcUrl: devnet.deployment.rpcUrl,
  chainDeployment: devnet.chainDeployment,
  projectDir: join(root, 'examples/example-launch'),
  exampleRequests: ['custom-launch-create-request.v4.json', 'custom-launch-create-request.v4--profile-4.0.0.json'].map(
    (file) => JSON.parse(readFileSync(join(root, 'spec/examples', file), 'utf8')),
  ),
  log: (line) => console.log(`[driver] ${line}`),
});
try {
  const implemented = Object.values(bundled.paths)
    .flatMap((item) => Object.values(item))
    .filter((op) => op.operationId && !notImplemented.includes(op.operationId))
    .map((op) => op.operationId as string);
  const developerPass: Pass = {
    name: 'developer',
    phases: 'examples,coverage,fuzzing',
    select: [],
    config: join(root, 'conformance/schemathesis-developer.toml'),
    spec: developerSpec,
    url: developersUrl,
    seed,
  };
  // Each lane's links on their own: in the pass over every operation Schemathesis spends its budget where it pleases
  // (it never reached a V4 or shared-lane operation), so a lane's pass proves its links (create 202 and 200 to read,
  // list to read) are followed. Its one Idempotency-Key makes the replay link certain (laneConfig), so a small budget
  // does: with one launch per intent, 1000 scenarios ran over six minutes where 200 covered the shared lane's links in
  // about two, and 80 still cover them; the V4 lane's 27 KB create bodies made 200 take over four minutes beside the
  // vitest suite. The shared lane's pass runs first, on a database without shared-lane launches; the V4 lane's once
  // the lifecycle driver has staged its launches (the lists and the finalized feed then hold launches from
  // `authorized` to `finalized`) and before the stateless pass creates the spec's V4 examples, so their first create
  // here is admitted (202): a later create of the same intent under another key is 409 LAUNCH_INTENT_CONFLICT.
  const lanePass = (lane: 'shared' | 'v4', passSeed: string): Pass => {
    const tag = lane === 'shared' ? 'shared-lane' : 'v4-lane';
    const suffix = passSeed === seed ? '' : `-seed-${passSeed}`;
    const create = lane === 'shared' ? 'createMultiRoleCustomLaunch' : 'createCustomLaunchV4';
    return {
      name: `stateful-${tag}${suffix}`,
      lane,
      phases: 'stateful',
      select: ['--include-operation-id-regex', lane === 'shared' ? sharedLaneLinked : v4LaneLinked],
      config: laneConfig(`${tag}${suffix}`, create, 80, passSeed),
      seed: passSeed,
    };
  };
  const statefulPass = (passSeed: string): Pass => ({
    name: passSeed === seed ? 'stateful' : `stateful-seed-${passSeed}`,
    phases: 'stateful',
    select: ['--include-operation-id-regex', `^(${implemented.sort().join('|')})$`],
    seed: passSeed,
  });
  const passes: Pass[] = operation
    ? developerOperationIds.includes(operation)
      ? [{ ...developerPass, select: ['--include-operation-id', operation] }]
      : [
          {
            name: 'stateless',
            phases: 'examples,coverage,fuzzing',
            select: ['--include-operation-id', operation],
            seed,
          },
        ]
    : [
        lanePass('shared', seed),
        lanePass('v4', seed),
        { name: 'stateless', phases: 'examples,coverage,fuzzing', select: [], seed },
        statefulPass(seed),
        // The developer API document, on its own listener: every operation, no key.
        developerPass,
        // In CI a second seed, drawn at the start, runs the stateful passes again: new scenarios every run.
        ...(randomSeed ? [lanePass('shared', randomSeed), lanePass('v4', randomSeed), statefulPass(randomSeed)] : []),
      ];
  // The driver stages its launches beside the shared-lane pass; the V4 lane's pass waits for it, so its lists and the
  // finalized feed hold launches in every status the driver reached.
  const staging = operation ? Promise.resolve() : driver.stage();
  // The generated clients (one authenticated call each) need nothing the passes do: they are generated, built and run
  // beside the passes, which mostly wait on the server, and reported after them.
  const clients = (operation ? [] : ['python', 'go']).map((language) => ({
    language,
    run: runClient(language, { url, developersUrl, apiKey: allScopes }),
  }));
  for (const pass of passes) {
    if (pass.name === 'stateful-v4-lane') {
      step('waiting for the lifecycle driver to stage its launches on the devnet');
      await staging;
    }
    step(
      `Schemathesis ${pass.name} pass${operation ? ` of ${operation} alone` : ''}: phases ${pass.phases} (seed ${pass.seed}, ${maxExamples} examples per operation, every check)`,
    );
    const args = [
      '--config-file',
      pass.config ?? stConfig,
      'run',
      pass.spec ?? join(root, 'generated/openapi/service.bundled.json'),
      '--url',
      pass.url ?? url,
      '--phases',
      pass.phases,
      ...pass.select,
      '--seed',
      pass.seed,
      '--max-examples',
      maxExamples,
      // One worker: with two threads, CPython 3.11's ast.parse (reached through Hypothesis' lambda descriptions)
      // can fail with "AST constructor recursion depth mismatch", an interpreter race, not a finding.
      '--workers',
      '1',
      '--no-color',
      '--report',
      pass.lane === undefined && pass.phases === 'stateful' ? 'junit,json,ndjson' : 'junit,json',
      '--report-dir',
      join(out, 'reports'),
      // The event stream names every link a scenario followed (listed after the pass). Not for the lanes' passes:
      // it carries every create body, and serializing those doubled their time; they report their counts.
      ...(pass.lane === undefined && pass.phases === 'stateful'
        ? ['--report-ndjson-path', join(out, `reports/schemathesis-${pass.name}.ndjson`)]
        : []),
      '--report-junit-path',
      join(out, `reports/schemathesis-${pass.name}-junit.xml`),
      '--report-json-path',
      join(out, `reports/schemathesis-${pass.name}.json`),
    ];
    const st = await runSchemathesis(args, {
      ...process.env,
      CONFORMANCE_API_KEY: allScopes,
      CONFORMANCE_PARTNER_KEY: partnerRoot,
    });
    process.stdout.write(reframeBanners(st.stdout));
    const linkLine = /API Links:\s+(\d+) covered \/ (\d+) selected \/ (\d+) total/;
    if (pass.name === 'stateful') links = linkLine.exec(st.stdout);
    if (pass.lane === undefined && pass.phases === 'stateful') {
      const followed = linksFollowed(join(out, `reports/schemathesis-${pass.name}.ndjson`));
      console.log(`links followed in the ${pass.name} pass (${followed.length}):`);
      for (const link of followed) console.log(`  ${link.id}${link.inferred ? ' (inferred)' : ''}`);
      // A lane's links are counted by its own pass, once.
      const ofLanes = (id: string) => laneLinkPaths.some((path) => id.includes(path));
      if (pass.seed === seed) for (const link of followed) if (!ofLanes(link.id)) followedLinks.add(link.id);
    }
    const covered = linkLine.exec(st.stdout);
    if (pass.lane !== undefined && pass.seed === seed) laneLinksFollowed += Number(covered?.[1] ?? 0);
    if (pass.name === 'stateful-shared-lane') sharedLaneLinks = linkLine.exec(st.stdout);
    if (st.status !== 0) {
      failed = true;
      reproductions.push(reproduction(pass, args));
    }
    passNames.push(pass.name);
    reports.push(JSON.parse(readFileSync(join(out, `reports/schemathesis-${pass.name}.json`), 'utf8')) as StReport);
    if (pass.name === 'stateful') {
      step('lifecycle driver: every launch awaiting the wallet handed off and finalized, every launch read again');
      await driver.finish();
    }
  }
  await staging;

  for (const { language, run } of clients) {
    step(`${language} clients generated from the specs: one authenticated call, and the developer API's token list`);
    const r = await run;
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    const line = r.stdout.trim().split('\n').join('; ');
    if (r.status !== 0) failed = true;
    clientResults.push(`${language}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} ${line}`);
  }
} finally {
  step(`stopping the server (pid ${child.pid}) and the devnets`);
  serverCpuSeconds = cpuSecondsOf(child.pid);
  await stopServer(child);
  await devnet.stop();
  await baseDevnet.stop();
}

const failures = reports.flatMap((r) => r.failures).reduce((n, f) => n + f.count, 0);
const errors = reports.flatMap((r) => r.errors).length;
const stateless = reports[passNames.indexOf('stateless')];
const developer = reports[passNames.indexOf('developer')];
// One operation alone has no stateful pass, so no links to cover.
const linksFollowedInAll = followedLinks.size + laneLinksFollowed;
if (!operation && linksFollowedInAll < minimumLinksCovered) failed = true;
if (!operation && (!sharedLaneLinks || sharedLaneLinks[1] !== sharedLaneLinks[2])) failed = true;
const lifecycle = driver.report;
const missingStatuses = operation ? [] : driverStatuses.filter((s) => !lifecycle.statuses.has(s));
if (lifecycle.problems.length > 0 || missingStatuses.length > 0) failed = true;
step('summary');
console.log(`seeds: ${seed}${randomSeed ? ` and the random ${randomSeed}` : ''}`);
console.log(`operations covered: ${stateless?.operations.tested ?? 0} of ${stateless?.operations.total ?? 0}`);
console.log(
  `developer API operations covered: ${developer?.operations.tested ?? 0} of ${developer?.operations.total ?? 0}`,
);
// Wall time depends on what else the machine runs; the CPU the server spent does not.
console.log(
  `time: ${Math.round((Date.now() - startedAt) / 1000)} s wall; the server used ${serverCpuSeconds ?? '?'} s of CPU`,
);
console.log(`cases run: ${reports.reduce((n, r) => n + r.test_cases.generated, 0)}`);
const phaseStatus = reports.flatMap((r) => Object.entries(r.phases).filter(([, v]) => v.status !== 'skip'));
console.log(`phases: ${phaseStatus.map(([p, v]) => `${p} ${v.status}`).join(', ')}`);
console.log(
  `links followed by the stateful passes (fixed seed): ${linksFollowedInAll} of ${links?.[3] ?? '?'} (declared and inferred; the lanes' passes ${laneLinksFollowed}, the pass over every operation ${followedLinks.size} more; at least ${minimumLinksCovered} required)`,
);
console.log(
  `stateful pass over every operation: ${links ? `${links[1]} of ${links[2]} selected links covered` : 'none reported'}`,
);
console.log(
  `shared-lane links covered: ${sharedLaneLinks ? `${sharedLaneLinks[1]} of ${sharedLaneLinks[2]} selected` : 'none reported'}`,
);
if (!operation) {
  console.log(`V4 launch statuses read and checked against the spec: ${statusLine(lifecycle)}`);
  for (const status of missingStatuses) console.log(`lifecycle: no launch was read in ${status}`);
  for (const problem of lifecycle.problems) console.log(`lifecycle problem: ${problem}`);
}
for (const f of reports.flatMap((r) => r.failures))
  console.log(`failure ${f.code} ${f.title} x${f.count}: ${f.operations.join(', ')}`);
for (const line of clientResults) console.log(`client ${line}`);
for (const line of reproductions) console.log(line);
console.log(
  `failures: ${failures + errors + lifecycle.problems.length + (failed && failures + errors + lifecycle.problems.length === 0 ? 1 : 0)}`,
);
console.log(`reports: ${join(out, 'reports')}`);
const failing = reports.reduce((n, r) => n + r.test_cases.with_failures, 0) + errors + lifecycle.problems.length;
const cases = reports.reduce((n, r) => n + r.test_cases.generated, 0);
const clientFailures = clientResults.filter((line) => line.includes('FAILED')).length;
writeFileSync(
  join(out, 'summary.txt'),
  `conformance: ${cases - failing + clientResults.length - clientFailures} passed, ${failing + clientFailures} failed\n`,
);
process.exit(failed ? 1 : 0);

/** One Schemathesis run: which document, where, which phases and operations, and its seed. */
interface Pass {
  name: string;
  /** The lane a lane's stateful pass covers. */
  lane?: 'shared' | 'v4';
  phases: string;
  select: string[];
  seed: string;
  config?: string;
  spec?: string;
  url?: string;
}

/** Runs `st` without blocking this process (the lifecycle driver works meanwhile); resolves its exit and stdout. */
function runSchemathesis(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const st = spawn(join(root, '.venv/bin/st'), args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env });
    const chunks: Buffer[] = [];
    st.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    st.once('error', reject);
    st.once('close', (status) => resolve({ status, stdout: Buffer.concat(chunks).toString() }));
  });
}

/** The CPU seconds (user + system) a running process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  try {
    // The fields after the command name (which may hold spaces) start at the state, field 3: utime is 14, stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Math.round((Number(fields[11]) + Number(fields[12])) / 100);
  } catch {
    return undefined;
  }
}

/**
 * The links a stateful pass followed, from its NDJSON event stream: every recorded case reached through a link whose
 * parameters were extracted (what Schemathesis counts as covered), by the link's full name.
 */
function linksFollowed(ndjsonPath: string): Array<{ id: string; inferred: boolean }> {
  const followed = new Map<string, boolean>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as {
      transition?: { id?: string; is_inferred?: boolean } | null;
      is_transition_applied?: boolean;
    };
    if (node.is_transition_applied && typeof node.transition?.id === 'string') {
      followed.set(node.transition.id, node.transition.is_inferred === true);
    }
    for (const child of Object.values(node)) visit(child);
  };
  for (const line of readFileSync(ndjsonPath, 'utf8').split('\n')) if (line.trim()) visit(JSON.parse(line));
  return [...followed.entries()].map(([id, inferred]) => ({ id, inferred })).sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * How to run a failed pass again: the whole run on its seed, and the exact Schemathesis command against a running
 * stack (the keys come from the environment, as here).
 */
function reproduction(pass: Pass, args: string[]): string {
  const quoted = args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  return [
    `reproduce the ${pass.name} pass (seed ${pass.seed}):`,
    `  CONFORMANCE_SEED=${pass.seed} make conformance`,
    `  or against a running stack: CONFORMANCE_API_KEY=<wallet key> CONFORMANCE_PARTNER_KEY=<partner root> .venv/bin/st ${quoted}`,
  ].join('\n');
}

/**
 * Schemathesis frames its section titles pytest-style ("==== No issues found in 39.02s ===="). CI reads a
 * pytest-shaped closing line as pytest's own and, finding no count in it, took the whole run for one that executed
 * no test. The titles are printed as "── title ──" instead; the text is unchanged and the reports keep the counts.
 */
function reframeBanners(output: string): string {
  return output.replace(/^=+ (.*?) =+$/gm, '── $1 ──');
}
