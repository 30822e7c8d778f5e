/*
 * The inputs of the clients scenario (conformance/clients/README.md): for each language, two fresh packs of
 * examples/example-launch bound to the devnet's chain deployment (each pack draws its own nonce and salts, so no two
 * share an intent), the Idempotency-Key to create the first with, and the bytes of every manifest file; and, once per
 * run, a seed launch of the same wallet followed to `finalized`, so that a `limit=1` list has a second page and the
 * public finalized feed is not empty. The generated clients read the inputs file; they pack nothing themselves.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainDeploymentV1, CustomLaunchResourceV4 } from '../../generated/types/service.ts';
import { createLaunchClient } from '../../src/client/launches/client.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { deliverSourceFile, manifestFiles } from '../../src/client/launches/sources.ts';
import { anvilAccount0, blocksToFinalize, devnetController } from '../devnet-controller.ts';

/** One language's inputs file: what its scenario program sends (conformance/clients/README.md). */
export interface ScenarioInputs {
  language: string;
  idempotencyKey: string;
  /** The create request the scenario preflights, creates and replays. */
  request: unknown;
  /** Another pack: sent with the same Idempotency-Key, it must answer 409 IDEMPOTENCY_CONFLICT. */
  otherRequest: unknown;
  /** Every file of the request's source manifest, once per hash: delivered with putCustomLaunchSourceFileV4. */
  sourceFiles: Array<{ sha256: string; path: string }>;
}

/** Packs the language's two requests and writes `<dir>/<language>.json` with the manifest files beside it. */
export function writeScenarioInputs(options: {
  language: string;
  dir: string;
  projectDir: string;
  chainDeployment: ChainDeploymentV1;
}): string {
  const { language, dir, projectDir, chainDeployment } = options;
  const request = packLaunchProject(projectDir, { chainDeployment }).request;
  const otherRequest = packLaunchProject(projectDir, { chainDeployment }).request;
  const sourcesDir = join(dir, 'sources');
  mkdirSync(sourcesDir, { recursive: true });
  const sourceFiles = manifestFiles(projectDir, request).map((file) => {
    const path = join(sourcesDir, file.sha256);
    writeFileSync(path, file.bytes);
    return { sha256: file.sha256, path };
  });
  const inputs: ScenarioInputs = {
    language,
    idempotencyKey: `clients-${language}-${randomUUID()}`,
    request,
    otherRequest,
    sourceFiles,
  };
  const file = join(dir, `${language}.json`);
  writeFileSync(file, `${JSON.stringify(inputs, null, 2)}\n`);
  return file;
}

/** The examples' wallet: anvil account 0, which the devnet unlocks. */
export const exampleWallet = anvilAccount0;

/**
 * A launch of the wallet followed to `finalized` with the repository's own client: created, its sources delivered,
 * its exact wallet transaction sent from the unlocked anvil account (as the controller would, after review), and
 * the blocks mined. Answers its launchId; throws with the launch's last status when a step does not come.
 */
export async function seedFinalizedLaunch(options: {
  url: string;
  apiKey: string;
  rpcUrl: string;
  projectDir: string;
  chainDeployment: ChainDeploymentV1;
  log: (line: string) => void;
}): Promise<string> {
  const { url, apiKey, rpcUrl, projectDir, chainDeployment } = options;
  const client = createLaunchClient({ baseUrl: url, apiKey });
  const request = packLaunchProject(projectDir, { chainDeployment }).request;
  const created = await client.create(request, `clients-seed-${randomUUID()}`);
  if (!created.data) throw new Error(`seed create: ${created.response.status} ${JSON.stringify(created.error)}`);
  const { launchId } = created.data;
  for (const file of manifestFiles(projectDir, request)) {
    const delivered = await deliverSourceFile(url, launchId, file, { apiKey, timeoutMs: 30_000 });
    if (delivered.error) throw new Error(`seed source ${file.sha256}: ${JSON.stringify(delivered.error)}`);
  }
  const until = async (statuses: string[]): Promise<CustomLaunchResourceV4> => {
    const deadline = Date.now() + 120_000;
    let last: CustomLaunchResourceV4 | undefined;
    while (Date.now() < deadline) {
      const read = await client.get(launchId);
      last = read.data ?? last;
      if (last && statuses.includes(last.status)) return last;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`seed launch ${launchId} stayed ${last?.status ?? 'unread'}, not ${statuses.join(' | ')}`);
  };
  const devnet = devnetController(rpcUrl);
  const awaiting = await until(['awaiting_wallet_signature']);
  const tx = awaiting.walletTransaction;
  if (!tx || tx.from.toLowerCase() !== exampleWallet) throw new Error(`seed launch ${launchId}: no wallet transaction`);
  await devnet.send(tx);
  await until(['sequencer_soft_confirmed', 'ethereum_posted', 'finalized']);
  await devnet.mine(blocksToFinalize);
  await until(['finalized']);
  options.log(`seed launch ${launchId} finalized`);
  return launchId;
}
