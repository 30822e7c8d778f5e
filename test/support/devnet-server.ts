import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { type ServerProcess, startServerProcess } from './process.ts';

/** A fresh devnet, a server process bound to it with its own SQLite file, and a key for the devnet's account 0. */
export interface DevnetServer {
  dir: string;
  devnet: Awaited<ReturnType<typeof startDevnet>>;
  server: ServerProcess;
  /** A wallet key for anvil account 0 with both launch scopes on chain 4663. */
  key: string;
  stop(): Promise<void>;
}

/** The devnet's first funded account: the launch wallet of the examples. */
export const devnetWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/**
 * Starts a devnet and a real server process against it (`env` added to the devnet's server environment, before
 * the server starts: a fast worker, PUBLIC_ORIGIN behind a proxy, a chain-deployment override; `envFor` adds what
 * needs the running devnet, such as proxies in front of it).
 */
export async function startDevnetServer(
  label: string,
  env: Record<string, string> = {},
  envFor: (devnet: DevnetServer['devnet']) => Promise<Record<string, string>> = async () => ({}),
): Promise<DevnetServer> {
  const dir = mkdtempSync(join(tmpdir(), `custom-launch-${label}-`));
  const devnet = await startDevnet({ outputDir: dir });
  const databasePath = join(dir, 'api.sqlite');
  const db = openDatabase(databasePath);
  const key = mintWalletKey(db, {
    wallet: devnetWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  }).apiKey;
  db.close();
  const server = await envFor(devnet)
    .then((added) =>
      startServerProcess({
        ...devnetServerEnv(devnet.deployment, dir),
        DATABASE_PATH: databasePath,
        LIFECYCLE_POLL_MS: '50',
        ...env,
        ...added,
      }),
    )
    .catch(async (err: unknown) => {
      await devnet.stop();
      throw err;
    });
  return {
    dir,
    devnet,
    server,
    key,
    stop: async () => {
      await server.stop();
      await devnet.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
