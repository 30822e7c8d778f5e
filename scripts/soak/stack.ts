/*
 * The stack a soak runs against: `scripts/start.ts` (the `make start` stack: the chain-4663 devnet, the base-layer
 * devnet and the server in one process) on its own ports and a fresh SQLite file under build/soak/, with the keys
 * the traffic uses minted into that file before the server opens it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { mintPartnerRoot, mintWalletKey, rootBudgetMaxima, walletScopes } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The devnet's first funded account: the launch wallet of the example project, unlocked on anvil. */
export const soakWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** The ports of a soak stack (SOAK_PORT, SOAK_DEVELOPERS_PORT, SOAK_DEVNET_PORT, SOAK_BASE_DEVNET_PORT). */
export interface SoakPorts {
  server: number;
  developers: number;
  devnet: number;
  baseDevnet: number;
}

/** A running soak stack: where it answers, its keys, the server's pid, and how to stop it. */
export interface SoakStack {
  url: string;
  developersUrl: string;
  rpcUrl: string;
  databasePath: string;
  logPath: string;
  pid: number;
  chainDeployment: ChainDeploymentV1;
  /** A wallet key of soakWallet with every wallet scope on chain 4663. */
  walletKey: string;
  /** A partner root at the root budget maxima. */
  partnerRootKey: string;
  stop(): Promise<void>;
}

/**
 * The environment the stack runs under: `make start`'s, on the soak's ports and file, with the admission quota and
 * the route budget raised far above what a run reaches, so the figures measure work rather than refusals (the
 * quota at the capabilities schema's maximum, 1,000,000, since the capabilities publish it), and responses validated
 * against the spec (a response that does not match is a 500, so the run counts it) unless VALIDATE_RESPONSES says
 * otherwise.
 */
export function soakEnv(ports: SoakPorts, databasePath: string): Record<string, string> {
  return {
    PORT: String(ports.server),
    DEVELOPERS_PORT: String(ports.developers),
    DEVNET_PORT: String(ports.devnet),
    BASE_DEVNET_PORT: String(ports.baseDevnet),
    // The metrics listener `make start` turns on, on a free port (its default, 9464, may be another stack's).
    METRICS_PORT: '0',
    DATABASE_PATH: databasePath,
    ADMISSION_PER_HOUR: '1000000',
    ADMISSION_PER_DAY: '1000000',
    ROUTE_BUDGET_PER_MINUTE: '1000000000',
    VALIDATE_RESPONSES: process.env.VALIDATE_RESPONSES || 'true',
  };
}

function mintKeys(databasePath: string): { walletKey: string; partnerRootKey: string } {
  const db = openDatabase(databasePath);
  try {
    const walletKey = mintWalletKey(db, { wallet: soakWallet, scopes: walletScopes, chains: ['4663'] }).apiKey;
    const partnerRootKey = mintPartnerRoot(db, {
      name: 'Soak partner',
      wallet: soakWallet,
      chains: ['4663'],
      expiresAt: new Date(Date.now() + 365 * 86_400_000).toISOString(),
      now: Date.now(),
      budgets: { ...rootBudgetMaxima },
    }).apiKey;
    return { walletKey, partnerRootKey };
  } finally {
    db.close();
  }
}

async function untilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the stack exited with ${child.exitCode} before it was ready`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`the stack was not ready within ${timeoutMs / 1000} s`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The server stops its devnets from its exit handler; SIGKILL only if it has not exited 15 s later.
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return exited.finally(() => clearTimeout(force));
}

/** Starts the soak stack under `dir` (its SQLite file and the server's log there), ready when /readyz answers 200. */
export async function startSoakStack(dir: string, ports: SoakPorts): Promise<SoakStack> {
  mkdirSync(dir, { recursive: true });
  const databasePath = join(dir, 'soak.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
  const { walletKey, partnerRootKey } = mintKeys(databasePath);
  const logPath = join(dir, 'server.log');
  const log = createWriteStream(logPath);
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...soakEnv(ports, databasePath) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${ports.server}`;
  try {
    await untilReady(url, child, 300_000);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  const chainDeployment = JSON.parse(
    readFileSync(join(projectRoot, 'var/devnet/chain-deployment.json'), 'utf8'),
  ) as ChainDeploymentV1;
  return {
    url,
    developersUrl: `http://127.0.0.1:${ports.developers}`,
    rpcUrl: `http://127.0.0.1:${ports.devnet}`,
    databasePath,
    logPath,
    pid: child.pid as number,
    chainDeployment,
    walletKey,
    partnerRootKey,
    stop: () => stopChild(child),
  };
}

/** The resident set size of a process in bytes (Linux /proc), or null when it is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
