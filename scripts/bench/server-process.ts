/*
 * The processes a bench section measures: each server (the app, the framework floor, the bare node:http read) runs
 * as its own child process, so the CPU time and the resident memory read from /proc are that server's alone and the
 * servers compete for the machine on equal terms. A server is ready when it logs its JSON listening line (`msg`
 * ending in "listening", with its `url`), which is also where its port is read from (PORT=0).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Kernel clock ticks per second, the unit of utime and stime in /proc/<pid>/stat (100 on Linux). */
const ticksPerSecond = 100;

/** A started child process and the URL its listening line named. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the listening line. */
  readyMs: number;
  /** The last lines the process wrote (for an error message). */
  tail(): string;
  /** User plus system CPU milliseconds of the process and its descendants so far. */
  cpuMs(): number;
  /** Resident memory of the process and its descendants, in MB. */
  rssMb(): number;
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves once the whole group is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** The `msg` of the listening line to wait for. */
  listening: string;
  /** How many listening lines to wait for (a WORKERS=N cluster logs one per worker); 1 when absent. */
  listeners?: number;
  timeoutMs?: number;
}

/** The pids of `pid` and every process below it, read from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (!stat) continue;
    // The command name may hold spaces and parentheses: the fields start after its last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process ended between the listing and the read.
    return null;
  }
}

/** utime + stime of the process `pid` alone, in milliseconds; 0 once it is gone. */
export function ownCpuMsOf(pid: number): number {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime) are 11 and 12 counted from the state field.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** utime + stime of the process tree under `pid`, in milliseconds. */
export function cpuMsOf(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + ownCpuMsOf(p), 0);
}

/** VmRSS of the process tree under `pid`, in MB (10^6 bytes). */
export function rssMbOf(pid: number): number {
  let kib = 0;
  for (const p of processTree(pid)) {
    const m = /^VmRSS:\s+([0-9]+) kB$/m.exec(readProc(`/proc/${p}/status`) ?? '');
    if (m) kib += Number(m[1]);
  }
  return Math.round((kib * 1024) / 1e4) / 100;
}

/** Samples the RSS of `pid`'s tree every `everyMs` until stopped: the peak and the last sample. */
export function sampleRss(pid: number, everyMs = 500) {
  let peak = rssMbOf(pid);
  let last = peak;
  const timer = setInterval(() => {
    last = rssMbOf(pid);
    peak = Math.max(peak, last);
  }, everyMs);
  return {
    peak: () => peak,
    last: () => last,
    stop: () => clearInterval(timer),
  };
}

/** A free TCP port on 127.0.0.1 above 20000 (an ephemeral one the kernel hands out, checked). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        const p = typeof address === 'object' && address ? address.port : 0;
        server.close(() => resolve(p));
      });
    });
    if (port > 20000) return port;
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the process group `pgid`, SIGKILL after `graceMs`; resolves when no process of the group is left. */
export async function stopGroup(pgid: number, graceMs = 15_000): Promise<void> {
  if (!groupAlive(pgid)) return;
  process.kill(-pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() > deadline) {
      process.kill(-pgid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!groupAlive(pgid)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Spawns a process in its own process group (so it and everything it starts stop together) and resolves once it
 * logs the JSON line whose `msg` is `options.listening`.
 */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const started = performance.now();
  const child: ChildProcess = spawn(options.command, options.args, {
    cwd: projectRoot,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${options.command}`);
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 40) lines.shift();
  };
  const tail = () => lines.join('\n');
  const stop = (graceMs?: number) => stopGroup(pid, graceMs);
  try {
    const url = await listeningUrl(child, options, keep, tail);
    const readyMs = performance.now() - started;
    return { url, pid, readyMs, tail, cpuMs: () => cpuMsOf(pid), rssMb: () => rssMbOf(pid), stop };
  } catch (err) {
    await stop(2000);
    throw err;
  }
}

function listeningUrl(
  child: ChildProcess,
  options: SpawnOptions,
  keep: (line: string) => void,
  tail: () => string,
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise<string>((resolve, reject) => {
    let found = false;
    let listening = 0;
    const onLine = (line: string) => {
      keep(line);
      if (found || !line.startsWith('{')) return;
      try {
        const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
        if (entry.msg === options.listening && typeof entry.url === 'string') {
          listening += 1;
          if (listening < (options.listeners ?? 1)) return;
          found = true;
          resolve(entry.url);
        }
      } catch {
        // Not a JSON log line.
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      // Read to the end whatever happens, so a chatty server never blocks on a full pipe.
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        for (const part of parts) onLine(part);
      });
    }
    child.once('exit', (code, signal) => {
      if (!found) reject(new Error(`${options.command} exited (${code ?? signal}) before listening:\n${tail()}`));
    });
    const timer = setTimeout(() => {
      if (!found) reject(new Error(`${options.command} was not listening within ${timeoutMs} ms:\n${tail()}`));
    }, timeoutMs);
    timer.unref();
  });
}

/** The process group of `pid` (field 5 of /proc/<pid>/stat), or null when the process is gone. */
export function groupOf(pid: number): number | null {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) : null;
}

/** Pids of processes whose command line holds `anvil` and `--port <port>` (a devnet a bench run started). */
export function anvilsOnPort(port: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const args = (readProc(`/proc/${entry}/cmdline`) ?? '').split('\0');
    const at = args.indexOf('--port');
    if (args.some((a) => a.includes('anvil')) && at >= 0 && args[at + 1] === String(port)) pids.push(Number(entry));
  }
  return pids;
}
