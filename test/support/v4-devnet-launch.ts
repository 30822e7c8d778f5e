import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { type LaunchProjectManifestV1, readProjectManifest } from '../../src/client/launches/pack/project-manifest.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import type { DevnetServer } from './devnet-server.ts';
import { auth, call } from './http.ts';
import { exampleProject } from './sources.ts';
import { readV4Launch, untilV4Status } from './v4-launch-status.ts';

/**
 * The example project's manifest as the frozen profile 4.0.0 (no funding plan, no initial buy, so no native/USD quote
 * gates its permit: a test that moves the chain's clock ahead of the server's still gets one).
 */
export function frozenExampleManifest(): LaunchProjectManifestV1 {
  return { ...readProjectManifest(exampleProject), profile: '4.0.0', funding: { walletTransactionValueWei: '0' } };
}

/**
 * The V4 launch steps of the devnet tests against a running devnet server: the test plays the controller (anvil
 * account 0) that packs, submits, delivers its sources and signs and broadcasts the exact wallet transaction; the
 * server follows only by polling the chain.
 */
export function v4DevnetLaunches(running: DevnetServer) {
  const { devnet, server, key } = running;
  const chain = chain4663(devnet.deployment.rpcUrl);
  const testClient = createTestClient({ mode: 'anvil', chain, transport: http(devnet.deployment.rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });
  const walletClient = createWalletClient({ chain, transport: http(devnet.deployment.rpcUrl) });
  /** The packed request of each launch created here (the test plays the controller that packed it). */
  const requests = new Map<string, CustomLaunchCreateRequestV4>();

  const launchOf = (launchId: string) => readV4Launch(server.url, key, launchId);
  /** Polls until the launch is in one of `statuses` (the tracker polls every 100 ms in these tests). */
  const until = (launchId: string, statuses: string[], timeoutMs = 20_000) =>
    untilV4Status(server.url, key, launchId, statuses, timeoutMs);
  /** The controller delivers every file of the launch's manifest from the project folder (or `extra`, by path). */
  const deliverSources = async (launchId: string, extra: Record<string, string> = {}) => {
    const manifest = requests.get(launchId)?.sourceBundleManifest;
    if (!manifest) throw new Error(`no request for ${launchId}`);
    for (const file of manifest.files) {
      const r = await call(`${server.url}/v4/chains/4663/custom-launches/${launchId}/source-files/${file.sha256}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
        body:
          extra[file.path] !== undefined
            ? Buffer.from(extra[file.path] as string)
            : readFileSync(join(exampleProject, file.path)),
      });
      expect(r.status, r.text).toBe(201);
    }
  };
  /**
   * A fresh launch of the example project (from `manifest` when given; its request edited first, if asked), its
   * sources delivered (`extra` bytes by path; the permit waits for them), followed to the wallet handoff.
   */
  const handedOff = async (
    edit?: (request: CustomLaunchCreateRequestV4) => void,
    extra: Record<string, string> = {},
    manifest?: LaunchProjectManifestV1,
  ) => {
    const packed = packLaunchProject(exampleProject, {
      chainDeployment: devnet.chainDeployment,
      ...(manifest ? { manifest } : {}),
    });
    let bytes = packed.bytes;
    let request = packed.request;
    if (edit) {
      edit(request);
      request = bindRequestHashes(request);
      bytes = Buffer.from(JSON.stringify(request));
    }
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': `devnet-${Math.random().toString(36).slice(2)}-0001` }),
      body: bytes,
    });
    expect(created.status, created.text).toBe(202);
    requests.set(created.json.launchId, request);
    await deliverSources(created.json.launchId, extra);
    const launch = await until(created.json.launchId, ['awaiting_wallet_signature', 'action_required', 'failed']);
    expect(launch.status, JSON.stringify(launch.findings)).toBe('awaiting_wallet_signature');
    return launch;
  };
  /** The controller signs and broadcasts `tx` from account 0; resolves its receipt. */
  const send = async (tx: { to: string; valueWei: string; data: string; gasLimit: string }) => {
    const hash = await walletClient.sendTransaction({
      account: privateKeyToAccount(devnetOperatorKey),
      chain,
      to: tx.to as Hex,
      value: BigInt(tx.valueWei),
      data: tx.data as Hex,
      gas: BigInt(tx.gasLimit),
    });
    return reader.waitForTransactionReceipt({ hash });
  };
  return { chain, testClient, reader, walletClient, requests, launchOf, until, deliverSources, handedOff, send };
}
