import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createTestClient, decodeFunctionData, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { type LaunchProjectManifestV1, readProjectManifest } from '../../src/client/launches/pack/project-manifest.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { type DevnetServer, startDevnetServer } from './devnet-server.ts';
import { auth, call } from './http.ts';
import { reissueDecisionBody } from './permit-reissue.ts';
import { exampleProject } from './sources.ts';
import { readV4Launch, untilV4Status } from './v4-launch-status.ts';
import { sendSigned } from './wallet-send.ts';

/**
 * The example project's manifest as the frozen profile 4.0.0 (no funding plan, no initial buy, so no native/USD quote
 * gates its permit: a test that moves the chain's clock ahead of the server's still gets one).
 */
export function frozenExampleManifest(): LaunchProjectManifestV1 {
  return { ...readProjectManifest(exampleProject), profile: '4.0.0', funding: { walletTransactionValueWei: '0' } };
}

/**
 * The example project's manifest as packed (the current profile 4.1.0: a funding plan with an initial buy, so a fresh
 * native/USD quote gates its permit), asking for a permit of `permitLifetimeSeconds` (permitWindow.lifetimeSeconds).
 */
export function fundedExampleManifest(permitLifetimeSeconds: number): LaunchProjectManifestV1 {
  const manifest = readProjectManifest(exampleProject);
  expect(manifest.profile).toBe('4.1.0');
  return { ...manifest, permitLifetimeSeconds };
}

/** The router `launch` call of an exact wallet transaction's calldata: its launch parameters and its permit. */
export function routerLaunchOf(data: string) {
  const { functionName, args } = decodeFunctionData({ abi: launchStampRouterAbi, data: data as Hex });
  expect(functionName).toBe('launch');
  const [params, , permit] = args as unknown as [
    { launchIntentHash: Hex; liquidityNative: bigint; initialBuyNative: bigint; minTokenOut: bigint },
    unknown,
    {
      launchIntentHash: Hex;
      wallet: Hex;
      value: bigint;
      checkpointBlockNumber: bigint;
      issuedAt: bigint;
      expiresAt: bigint;
    },
  ];
  return { params, permit };
}

/**
 * A devnet server for the permit-reissue tests of one file (`label` names its folder): the tracker polls every 100 ms,
 * the decision window is ten minutes, responses are validated. Started before the file's tests, stopped after them;
 * call the returned function inside a test for the server and its launch steps.
 */
export function permitReissueDevnet(label: string): () => {
  running: DevnetServer;
  launches: ReturnType<typeof v4DevnetLaunches>;
} {
  let running: DevnetServer | undefined;
  let launches: ReturnType<typeof v4DevnetLaunches> | undefined;
  beforeAll(async () => {
    running = await startDevnetServer(label, {
      LIFECYCLE_TRACKER_POLL_MS: '100',
      PERMIT_REISSUE_DECISION_WINDOW_MS: '600000',
      VALIDATE_RESPONSES: 'true',
    });
    launches = v4DevnetLaunches(running);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
  });
  return () => {
    if (!running || !launches) throw new Error('the permit-reissue devnet is not running (call inside a test)');
    return { running, launches };
  };
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
    return sendSigned(devnet.deployment.rpcUrl, chain, privateKeyToAccount(devnetOperatorKey), {
      ...tx,
      gas: BigInt(tx.gasLimit),
    });
  };
  /**
   * The controller's permit-reissue decision with the wallet key (spec/openapi/paths/v4-permit-reissue-disposition.yaml
   * decidePermitReissueV4), under a fresh Idempotency-Key.
   */
  const decideReissue = (launch: { launchId: string; requestDigest: string; launchWallet: string }, decision: string) =>
    call(`${server.url}/v4/chains/4663/custom-launches/${launch.launchId}/permit-reissue-disposition`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': `permit-reissue-${Math.random().toString(36).slice(2)}` }),
      body: reissueDecisionBody(launch, { launchWallet: launch.launchWallet, decision }),
    });
  /**
   * Reissues the launch's permit and follows it to the new wallet handoff: the same wallet, router and value, other
   * calldata (a new permit) expiring later, the queue's deadline the new permit's expiry.
   */
  const reissued = async (launch: {
    launchId: string;
    requestDigest: string;
    launchWallet: string;
    walletTransaction: { from: string; to: string; valueWei: string; data: string; permitExpiresAt: string };
  }) => {
    const r = await decideReissue(launch, 'reissue');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ disposition: 'reissue_scheduled', launchStatus: 'validating' });
    const again = await until(launch.launchId, ['awaiting_wallet_signature', 'action_required', 'failed'], 60_000);
    expect(again.status, JSON.stringify(again.findings)).toBe('awaiting_wallet_signature');
    expect(again.permitReissue).toMatchObject({ status: 'reissued', reissueCount: 1 });
    const [before, after] = [launch.walletTransaction, again.walletTransaction];
    expect(after).toMatchObject({ from: before.from, to: before.to, valueWei: before.valueWei });
    expect(after.data).not.toBe(before.data);
    expect(Date.parse(after.permitExpiresAt)).toBeGreaterThan(Date.parse(before.permitExpiresAt));
    expect(again.lifecycleQueue.deadlineAt).toBe(after.permitExpiresAt);
    return again;
  };
  /**
   * Follows a handed-off launch whose permit expired by chain time (before its exact transaction was mined) to the
   * decision it awaits: no transaction offered, the decision deadline its queue's deadline.
   */
  const awaitingReissue = async (launch: { launchId: string; walletTransaction: { permitExpiresAt: string } }) => {
    const waiting = await until(launch.launchId, ['wallet_action_required', 'failed']);
    expect(waiting.status, JSON.stringify(waiting.failure)).toBe('wallet_action_required');
    expect(waiting.walletTransaction).toBeNull();
    expect(waiting.permitReissue).toMatchObject({
      status: 'awaiting_decision',
      expiredPermitExpiresAt: launch.walletTransaction.permitExpiresAt,
      decidedAt: null,
      reissueCount: 0,
    });
    expect(waiting.lifecycleQueue.deadlineAt).toBe(waiting.permitReissue.decisionDeadlineAt);
    return waiting;
  };
  /**
   * The controller broadcasts the launch's exact transaction `tx`; the launch follows it through the sequencer's soft
   * confirmation to `finalized` once 65 more blocks are mined. Answers the finalized launch.
   */
  const finalizedBy = async (launchId: string, tx: Parameters<typeof send>[0]) => {
    const receipt = await send(tx);
    expect(receipt.status).toBe('success');
    const soft = await until(launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence).toMatchObject({ transactionHash: receipt.transactionHash });
    await testClient.mine({ blocks: 65 });
    return until(launchId, ['finalized']);
  };
  /** Whether the router has stamped the launch's intent. */
  const stamped = (launch: { launchIntentHash: string }) =>
    reader.readContract({
      address: devnet.deployment.contracts.platformLaunchStampRouter.address as Hex,
      abi: launchStampRouterAbi,
      functionName: 'launched',
      args: [`0x${launch.launchIntentHash.slice('sha256:'.length)}` as Hex],
    });
  return {
    chain,
    testClient,
    reader,
    requests,
    launchOf,
    until,
    deliverSources,
    handedOff,
    send,
    decideReissue,
    reissued,
    awaitingReissue,
    finalizedBy,
    stamped,
  };
}
