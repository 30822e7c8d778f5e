import { type ChildProcess, spawn } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;

/**
 * The CLI (src/cli/bin.ts) bundled into one plain ES module by the vitest global setup (test/support/global-setup.ts)
 * at the start of every run: the same code as the package bin runs, started without loading TypeScript through tsx.
 * The package bin itself is started by the broken-pipe test in test/cli/help.test.ts.
 */
export const cliBundle = `${root}build/test-run/custom-launch.mjs`;
/** The run's solc output cache, preloaded into every CLI process (test/support/solc-cache.cjs). */
export const solcCache = `${root}test/support/solc-cache.cjs`;
/** The node arguments that start the CLI with `args`. */
const cliArgs = (args: string[]) => ['--require', solcCache, cliBundle, ...args];

/** What one CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when the run used --json, else undefined. */
  json: any;
}

/** A started CLI process: the CLI's code in a child process, as a user runs it. */
export interface CliProcess {
  child: ChildProcess;
  done: Promise<CliRun>;
}

/** Starts the CLI (`cliBundle`) with `args` and exactly `env` added to a minimal environment. */
export function spawnCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<CliRun>((resolve) => {
    child.once('close', (code, signal) => {
      let json: unknown;
      if (args.includes('--json')) {
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
      }
      resolve({ code, signal, stdout, stderr, json });
    });
  });
  return { child, done };
}

/** Runs the CLI to its end. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return spawnCli(args, env).done;
}

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`), so that its stdout is a TTY as in a user's terminal.
 * The output is what the terminal received (line ends as \r\n). Arguments must not contain a single quote.
 */
export function runCliOnTerminal(args: string[], env: Record<string, string>): Promise<CliRun> {
  const line = [process.execPath, ...cliArgs(args)].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', line, '/dev/null'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise<CliRun>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, json: undefined }));
  });
}
