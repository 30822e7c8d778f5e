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
  /** The metrics listener's origin (METRICS_PORT), once its listening line is logged; rejects after `timeoutMs`. */
  metricsUrl(timeoutMs?: number): Promise<string>;
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

/**
 * The `url` of the first complete JSON log line whose `msg` is `msg` in a process's output so far (the logger writes
 * its fields in any order).
 */
export function listeningUrlIn(output: string, msg: string): string | undefined {
  for (const line of output.split('\n')) {
    const url = urlOfLine(line, msg);
    if (url) return url;
  }
  return undefined;
}

function urlOfLine(line: string, msg?: string): string | undefined {
  if (!line.startsWith('{') || !line.includes('"url":') || (msg && !line.includes(`"msg":"${msg}"`))) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
    if ((msg === undefined || entry.msg === msg) && typeof entry.url === 'string') return entry.url;
  } catch {
    // Not a JSON line.
  }
  return undefined;
}

/**
 * Follows a process's standard output line by line as it arrives (never keeping it whole: a server logs a line per
 * request): the `url` of every JSON line that has one, by its `msg` (the listening lines).
 */
export function followListeningLines(stream: NodeJS.ReadableStream): {
  urls: Map<string, string>;
  waitFor: (msg: string, timeoutMs: number) => Promise<string>;
} {
  const urls = new Map<string, string>();
  let tail = '';
  stream.on('data', (chunk: Buffer | string) => {
    tail += chunk.toString();
    let end = tail.indexOf('\n');
    while (end !== -1) {
      const line = tail.slice(0, end);
      tail = tail.slice(end + 1);
      const url = urlOfLine(line);
      if (url) {
        const msg = (JSON.parse(line) as { msg?: unknown }).msg;
        if (typeof msg === 'string' && !urls.has(msg)) urls.set(msg, url);
      }
      end = tail.indexOf('\n');
    }
  });
  const waitFor = async (msg: string, timeoutMs: number): Promise<string> => {
    for (let waited = 0; waited < timeoutMs; waited += 20) {
      const url = urls.get(msg);
      if (url) return url;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no "${msg}" line within ${timeoutMs} ms`);
  };
  return { urls, waitFor };
}

/** Starts the server as its own process with `env` added, and resolves once it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [serverBundle], {
    cwd: root,
    env: { ...process.env, PORT: '0', DEVELOPERS_PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = followListeningLines(child.stdout as NodeJS.ReadableStream);
  const url = await new Promise<string>((resolve, reject) => {
    lines
      .waitFor('custom-launch-api listening', 30_000)
      .then(resolve, () => reject(new Error('server did not start within 30 s')));
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
  const developerUrl = async (): Promise<string> => {
    try {
      return await lines.waitFor('developer API listening', 10_000);
    } catch {
      throw new Error('the developer API did not start within 10 s');
    }
  };
  const metricsUrl = (timeoutMs = 10_000): Promise<string> => lines.waitFor('metrics listening', timeoutMs);
  return {
    url,
    developerUrl,
    metricsUrl,
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
