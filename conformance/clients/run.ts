/*
 * `make clients` (conformance/clients/README.md, docs/clients.md): the clients scenario in five languages, each
 * through a client generated from the spec, against one real server on the devnet.
 *
 *   1. The stack of `make start` (scripts/start.ts: both devnets and the server) on free ports, its SQLite file and
 *      devnet documents under build/clients/; or, with CLIENTS_BASE_URL, a stack already running (see `target`).
 *   2. While it starts, drift: each build.sh from a copy of its bundle in which CustomLaunchPreflightV2.launchIntentHash
 *      (a member every scenario reads) is renamed; each must fail, with a message of its generator or compiler that
 *      names the member. Then every language's build.sh generates its client from the spec with its pinned generator
 *      and compiles the scenario against it, two at a time (a failure prints the generator's or compiler's output).
 *   3. A wallet key for the examples' wallet; a seed launch of that wallet followed to `finalized`; and per language
 *      two fresh packs of examples/example-launch (conformance/clients/inputs.ts).
 *   4. Every language's run.sh, one after the other, each line of it shown under the language's name.
 *   5. A summary (also build/clients/summary.txt); exit 1 when any language failed to build, any step mismatched or
 *      any drifted build did not fail so.
 *
 * CLIENTS_LANGUAGES=go,java runs only those. Nothing is printed of the key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { followListeningLines } from '../../test/support/process.ts';
import { exampleWallet, seedFinalizedLaunch, writeScenarioInputs } from './inputs.ts';

const root = new URL('../../', import.meta.url).pathname;
const out = join(root, 'build/clients');
const projectDir = join(root, 'examples/example-launch');
/** The languages, in the order they run, with the generator each pins (docs/clients.md). */
const languages = [
  { name: 'typescript', generator: 'openapi-typescript 7.13.0 + openapi-fetch 0.17.0', bundle: 'service.bundled.json' },
  { name: 'python', generator: 'openapi-python-client 0.29.1', bundle: 'service.clients.json' },
  { name: 'go', generator: 'oapi-codegen v2.8.2', bundle: 'service.clients.json' },
  {
    name: 'java',
    generator: 'openapi-generator 7.25.0 (java, jersey3)',
    bundle: 'service.clients-openapi-generator.json',
  },
  {
    name: 'rust',
    generator: 'openapi-generator 7.25.0 (rust, reqwest)',
    bundle: 'service.clients-openapi-generator.json',
  },
] as const;
/** Terminal colour codes (Maven prints some even with style.color=never). */
const colours = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/** The drift check's change: a member every scenario reads, renamed in a copy of each bundle. */
const drift = { schema: 'CustomLaunchPreflightV2', from: 'launchIntentHash', to: 'launchIntentDigest' };
const steps = [
  'capabilities',
  'preflight',
  'create',
  'replay',
  'conflict',
  'sources',
  'authorized',
  'list',
  'finalized feed',
];

const started = Date.now();
const elapsed = (since = started) => `${((Date.now() - since) / 1000).toFixed(0)} s`;
const say = (line: string) => console.log(line);

interface Outcome {
  status: number | null;
  output: string;
  seconds: number;
}

/** Runs a script, keeping its output (stdout and stderr interleaved); `onLine` sees each line as it comes. */
function runScript(script: string, env: NodeJS.ProcessEnv, onLine?: (line: string) => void): Promise<Outcome> {
  const since = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', [script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let partial = '';
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (!onLine) return;
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const done = (status: number | null) => {
      if (onLine && partial) onLine(partial);
      resolve({ status, output, seconds: (Date.now() - since) / 1000 });
    };
    child.once('close', done);
    child.once('error', (err) => {
      output += `${err.message}\n`;
      done(1);
    });
  });
}

/** Builds every language, `width` at a time; says when each ends and, every 30 s, which still run. */
async function buildAll(names: string[], width: number): Promise<Map<string, Outcome>> {
  const results = new Map<string, Outcome>();
  const queue = [...names];
  const running = new Set<string>();
  const heartbeat = setInterval(() => {
    if (running.size > 0) say(`  still building: ${[...running].join(', ')} (${elapsed()} since the start)`);
  }, 30_000);
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      running.add(name);
      say(`  ${name}: generating and compiling (conformance/clients/${name}/build.sh)`);
      const outcome = await runScript(join(root, `conformance/clients/${name}/build.sh`), process.env);
      running.delete(name);
      results.set(name, outcome);
      if (outcome.status === 0) {
        say(`  ${name}: built in ${outcome.seconds.toFixed(0)} s`);
      } else {
        say(`  ${name}: BUILD FAILED (exit ${outcome.status}) after ${outcome.seconds.toFixed(0)} s; its output:`);
        for (const line of outcome.output.trimEnd().split('\n')) say(`    ${line}`);
      }
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  clearInterval(heartbeat);
  return results;
}

/** A free TCP port on 127.0.0.1 (the devnets take a fixed port). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Writes each bundle with the drift change into build/clients/drift/; answers the path per bundle file name. */
function driftBundles(): Map<string, string> {
  const dir = join(out, 'drift');
  mkdirSync(dir, { recursive: true });
  const paths = new Map<string, string>();
  for (const file of new Set(languages.map((l) => l.bundle))) {
    const document = JSON.parse(readFileSync(join(root, 'generated/openapi', file), 'utf8'));
    const schema = document.components.schemas[drift.schema];
    schema.properties[drift.to] = schema.properties[drift.from];
    delete schema.properties[drift.from];
    schema.required = schema.required.map((name: string) => (name === drift.from ? drift.to : name));
    const path = join(dir, file);
    writeFileSync(path, JSON.stringify(document));
    paths.set(file, path);
  }
  return paths;
}

/**
 * Builds each language again from its drifted bundle, two at a time: a build that fails with a line naming the
 * renamed member (in the language's spelling) shows the drift; one that passes, or fails otherwise, does not.
 */
async function driftCheck(
  selected: ReadonlyArray<(typeof languages)[number]>,
): Promise<Map<string, string | undefined>> {
  const bundles = driftBundles();
  const shown = new Map<string, string | undefined>();
  const spellings = /launchIntentHash|launch_intent_hash|LaunchIntentHash/;
  const queue = [...selected];
  const worker = async () => {
    for (let language = queue.shift(); language !== undefined; language = queue.shift()) {
      const env = { ...process.env, CLIENTS_SPEC: bundles.get(language.bundle) };
      const outcome = await runScript(join(root, `conformance/clients/${language.name}/build.sh`), env);
      // The compiler's line naming the member, with the line before when that one holds the error (javac's `symbol:`).
      const lines = outcome.output.split('\n');
      const at = lines.findIndex((l) => spellings.test(l));
      const before = lines[at - 1] ?? '';
      const line =
        at === -1
          ? undefined
          : /error/i.test(before) && !/error/i.test(lines[at] ?? '')
            ? `${before.trim()} ${lines[at]?.trim()}`
            : lines[at];
      const ok = outcome.status !== 0 && line !== undefined;
      const plain = line?.replace(colours, '').trim();
      shown.set(language.name, ok ? plain : undefined);
      if (ok) say(`  ${language.name}: build failed (exit ${outcome.status}): ${plain?.slice(0, 220)}`);
      else {
        say(`  ${language.name}: DRIFT NOT SHOWN (exit ${outcome.status}); its output:`);
        for (const l of outcome.output.trimEnd().split('\n')) say(`    ${l}`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return shown;
}

interface Target {
  url: string;
  apiKey: string;
  rpcUrl: string;
  chainDeployment: ChainDeploymentV1;
  stop: () => Promise<void>;
}

/**
 * The stack the scenario runs against. With CLIENTS_BASE_URL: that server, with CLIENTS_API_KEY (a wallet key of
 * the examples' wallet, anvil account 0, with custom-launch:create and custom-launch:read on chain 4663),
 * CLIENTS_RPC_URL (its chain-4663 devnet, which must unlock that account) and CLIENTS_DEVNET_DIR (the folder with its
 * chain-deployment.json). Otherwise `make start`'s stack of its own, stopped at the end.
 */
async function target(): Promise<Target> {
  const given = process.env.CLIENTS_BASE_URL;
  if (given) {
    const need = (name: string) => {
      const value = process.env[name];
      if (!value) throw new Error(`CLIENTS_BASE_URL is set: set ${name} too (conformance/clients/README.md)`);
      return value;
    };
    const devnetDir = need('CLIENTS_DEVNET_DIR');
    return {
      url: given,
      apiKey: need('CLIENTS_API_KEY'),
      rpcUrl: need('CLIENTS_RPC_URL'),
      chainDeployment: JSON.parse(readFileSync(join(devnetDir, 'chain-deployment.json'), 'utf8')),
      stop: async () => {},
    };
  }
  const devnetDir = join(out, 'devnet');
  const databasePath = join(out, 'launches.sqlite');
  for (const path of [devnetDir, databasePath, `${databasePath}-wal`, `${databasePath}-shm`])
    rmSync(path, { recursive: true, force: true });
  const [devnetPort, baseDevnetPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/start.ts')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DEVELOPERS_PORT: 'off',
      METRICS_PORT: 'off',
      DEVNET_PORT: String(devnetPort),
      BASE_DEVNET_PORT: String(baseDevnetPort),
      DEVNET_DIR: devnetDir,
      DATABASE_PATH: databasePath,
    },
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const lines = followListeningLines(child.stdout as NodeJS.ReadableStream);
  const stop = () => stopGroup(child);
  const url = await new Promise<string>((resolve, reject) => {
    lines.waitFor('custom-launch-api listening', 180_000).then(resolve, reject);
    child.once('exit', (code) => reject(new Error(`make start's stack exited with ${code} before listening:\n${log}`)));
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  const db = openDatabase(databasePath);
  const { apiKey } = mintWalletKey(db, {
    wallet: exampleWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  });
  db.close();
  return {
    url,
    apiKey,
    rpcUrl: `http://127.0.0.1:${devnetPort}`,
    chainDeployment: JSON.parse(readFileSync(join(devnetDir, 'chain-deployment.json'), 'utf8')),
    stop,
  };
}

/** SIGTERM to the stack's process group (the server and both anvils), SIGKILL after 10 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<number> {
  const chosen = (process.env.CLIENTS_LANGUAGES ?? '').split(',').filter(Boolean);
  const unknown = chosen.filter((name) => !languages.some((l) => l.name === name));
  if (unknown.length > 0) throw new Error(`CLIENTS_LANGUAGES: unknown ${unknown.join(', ')}`);
  const selected = languages.filter((l) => chosen.length === 0 || chosen.includes(l.name));
  mkdirSync(out, { recursive: true });

  say(`== clients: ${selected.map((l) => l.name).join(', ')}, generated from the spec, against a real server`);
  say(
    process.env.CLIENTS_BASE_URL
      ? `  the server at ${process.env.CLIENTS_BASE_URL}`
      : "  starting make start's stack (scripts/start.ts: both devnets and the server) on free ports",
  );
  const stack = target();
  // The builds run while the devnets start; the stack's start is awaited after them. The drifted builds go first, so
  // that what build/clients/ holds at the end is each client built from its real bundle.
  stack.catch(() => {});
  say(
    `\n== drift: each client built from its bundle with ${drift.schema}.${drift.from} renamed ${drift.to}; each build must fail naming it`,
  );
  const drifted = await driftCheck(selected);
  say('\n== building each client from its bundle');
  const builds = await buildAll(
    selected.map((l) => l.name),
    2,
  );
  const server = await stack;
  const results: Array<{ name: string; generator: string; build: Outcome; passed: string[]; run?: Outcome }> = [];
  try {
    say(`  server listening at ${server.url} (${elapsed()})`);
    const feed = (await (await fetch(`${server.url}/v4/chains/4663/finalized-custom-launches?limit=1`)).json()) as {
      launches: unknown[];
    };
    if (feed.launches.length === 0) {
      say('  seeding: one launch of the wallet created, handed off on the devnet and mined to finalized');
      await seedFinalizedLaunch({ ...server, projectDir, log: (line) => say(`  ${line} (${elapsed()})`) });
    }
    const inputsDir = join(out, 'inputs');
    rmSync(inputsDir, { recursive: true, force: true });
    for (const { name, generator } of selected) {
      const build = builds.get(name) as Outcome;
      const result = { name, generator, build, passed: [] as string[], run: undefined as Outcome | undefined };
      results.push(result);
      if (build.status !== 0) {
        say(`\n== ${name}: not run (its build failed, above)`);
        continue;
      }
      say(`\n== ${name} (${generator})`);
      const inputs = writeScenarioInputs({
        language: name,
        dir: inputsDir,
        projectDir,
        chainDeployment: server.chainDeployment,
      });
      const env = {
        ...process.env,
        CLIENTS_BASE_URL: server.url,
        CLIENTS_API_KEY: server.apiKey,
        CLIENTS_INPUTS: inputs,
      };
      result.run = await runScript(join(root, `conformance/clients/${name}/run.sh`), env, (line) => {
        say(`  ${name} | ${line}`);
        const match = /^([a-z ]+): (?!MISMATCH)/.exec(line);
        if (match?.[1] && steps.includes(match[1])) result.passed.push(match[1]);
      });
    }
  } finally {
    await server.stop();
  }

  const rows = results.map((r) => {
    const driftShown = drifted.get(r.name) !== undefined;
    const ok = r.build.status === 0 && r.run?.status === 0 && r.passed.length === steps.length && driftShown;
    const verdict =
      r.build.status !== 0
        ? 'build failed'
        : r.run?.status !== 0 || r.passed.length !== steps.length
          ? `failed (exit ${r.run?.status})`
          : driftShown
            ? 'passed, drift shown'
            : 'drift not shown';
    return {
      ...r,
      ok,
      line: `${r.name.padEnd(11)} ${`${r.passed.length}/${steps.length}`.padEnd(6)} build ${`${r.build.seconds.toFixed(0)} s`.padEnd(6)} run ${`${(r.run?.seconds ?? 0).toFixed(0)} s`.padEnd(6)} ${verdict.padEnd(20)} ${r.generator}`,
    };
  });
  const failed = rows.filter((r) => !r.ok).map((r) => r.name);
  const summary = [
    `clients: ${rows.length - failed.length} of ${rows.length} languages passed every step and failed to build on drift (${elapsed()})`,
    ...rows.map((r) => `  ${r.line}`),
  ].join('\n');
  say(`\n== summary\n${summary}`);
  writeFileSync(join(out, 'summary.txt'), `${summary}\n`);
  return failed.length === 0 ? 0 : 1;
}

if (!existsSync(join(root, 'node_modules'))) throw new Error('run make clients (it installs node_modules first)');
process.exitCode = await main().catch((err: unknown) => {
  console.error(`clients: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
});
