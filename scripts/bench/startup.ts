/*
 * Section `startup`: how long a new user waits. `npm start` without a chain (no CHAIN_* variable: no chain gates, no
 * deployment evidence to verify first), from spawn to its listening line, three times on one SQLite file (the first
 * creates and migrates it), the median read against 2 s. Then `make start` from a warm install (both devnets
 * deployed, on free ports above 20000, then the server) to its listening line, read against 60 s. Every process a
 * start spawned is stopped by its process group, and no anvil of the run is left behind.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type BenchFigure, type BenchSection, withTarget } from './report.ts';
import { anvilsOnPort, freePort, groupOf, projectRoot, spawnServer, stopGroup } from './server-process.ts';
import { inBenchFolder, serverEnv } from './servers.ts';

const npmStarts = 3;

/** Seconds from spawning `command` to its listening line; the process group is stopped before this returns. */
async function secondsToListen(command: string, args: string[], env: Record<string, string | undefined>) {
  const server = await spawnServer({
    command,
    args,
    env,
    listening: 'custom-launch-api listening',
    timeoutMs: 300_000,
  });
  try {
    return Math.round(server.readyMs) / 1000;
  } finally {
    await server.stop();
  }
}

async function npmStartFigure(dir: string): Promise<BenchFigure> {
  const runs: number[] = [];
  for (let i = 0; i < npmStarts; i++) {
    process.stderr.write(`  npm start without a chain, run ${i + 1} of ${npmStarts}\n`);
    runs.push(await secondsToListen('npm', ['start'], serverEnv(join(dir, 'npm-start.sqlite'))));
  }
  const median = [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? Number.NaN;
  const detail = Object.fromEntries(runs.map((s, i) => [`run${i + 1}`, s]));
  return withTarget(
    { id: 'startup.npmStart', label: 'npm start, no chain: spawn to listening', value: median, unit: 's', detail },
    '<= 2',
  );
}

/** Make's flags for `make start`: `-o` on the install stamp when it is out of date, so the run never installs. */
function makeFlags(notes: string[]): string[] {
  try {
    execFileSync('make', ['-q', 'node_modules/.install-stamp'], { cwd: projectRoot, stdio: 'ignore' });
    return [];
  } catch {
    notes.push('the install stamp was older than package.json: make start ran with -o node_modules/.install-stamp');
    return ['-o', 'node_modules/.install-stamp'];
  }
}

async function makeStartFigure(dir: string, notes: string[]): Promise<BenchFigure> {
  const devnetPort = await freePort();
  const baseDevnetPort = await freePort();
  process.stderr.write(`  make start: devnets on ${devnetPort} and ${baseDevnetPort}\n`);
  const env = serverEnv(join(dir, 'make-start.sqlite'), {
    DEVNET_PORT: String(devnetPort),
    BASE_DEVNET_PORT: String(baseDevnetPort),
    // On, as `make start` has it, on a free port rather than its default 9464.
    METRICS_PORT: '0',
  });
  try {
    const seconds = await secondsToListen('make', ['--no-print-directory', ...makeFlags(notes), 'start'], env);
    return withTarget(
      { id: 'startup.makeStart', label: 'make start, warm install: to listening', value: seconds, unit: 's' },
      '<= 60',
    );
  } finally {
    // The devnets run in process groups of their own; the server stops them as it exits. Any left is stopped here.
    for (const port of [devnetPort, baseDevnetPort]) {
      const left = anvilsOnPort(port);
      if (left.length > 0) notes.push(`anvil on ${port} was left running (pids ${left.join(', ')}): stopped`);
      for (const pid of left) {
        const group = groupOf(pid);
        if (group !== null && group !== groupOf(process.pid)) await stopGroup(group, 5000);
      }
    }
  }
}

/** Runs the section: `npm start` three times, then `make start` once. */
export function run(): Promise<BenchSection> {
  const notes: string[] = [
    'spawn to the "custom-launch-api listening" line, DEVELOPERS_PORT=off, PORT=0; npm start: one new SQLite file for its three runs (the first creates it); make start: a new file',
  ];
  return inBenchFolder('startup', async (dir) => {
    const figures = [await npmStartFigure(dir)];
    figures.push(await makeStartFigure(dir, notes));
    return { name: 'startup', figures, ratios: [], notes };
  });
}
