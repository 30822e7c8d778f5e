import { type ChildProcess, spawn } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;

/**
 * The server (src/main.ts) bundled into one plain ES module by the vitest global setup (test/support/global-setup.ts)
 * at the start of every run: the same code `npm start` runs, started without loading TypeScript through tsx.
 */
export const serverBundle = `${root}build/test-run/server.mjs`;

/** A real `src/main.ts` process on a free loopback port. */
export interface ServerProcess {
  url: string;
  /** The developer API's origin (DEVELOPERS_PORT), once its listening line is logged. */
  developerUrl(): Promise<string>;
  child: ChildProcess;
  /** SIGKILL: the process dies mid-whatever, as a crash would. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful stop. */
  stop(): Promise<void>;
}

// A process killed by a signal keeps exitCode null and sets signalCode: either means it is gone.
const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
const exited = (child: ChildProcess) =>
  gone(child) ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** Starts the server as its own process with `env` added, and resolves once it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [serverBundle], {
    cwd: root,
    env: { ...process.env, PORT: '0', DEVELOPERS_PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"msg":"custom-launch-api listening","url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
    setTimeout(() => reject(new Error('server did not start within 30 s')), 30_000).unref();
  });
  const developerLine = /"msg":"developer API listening","url":"(http:\/\/127\.0\.0\.1:\d+)"/;
  const developerUrl = async (): Promise<string> => {
    for (let waited = 0; waited < 10_000; waited += 50) {
      const m = developerLine.exec(out);
      if (m?.[1]) return m[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the developer API did not start within 10 s');
  };
  return {
    url,
    developerUrl,
    child,
    kill: async () => {
      if (!gone(child)) child.kill('SIGKILL');
      await exited(child);
    },
    stop: async () => {
      if (!gone(child)) child.kill('SIGTERM');
      await exited(child);
    },
  };
}
