import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFunctionData, encodeFunctionData, type Hex, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV4, SourceVerificationV1 } from '../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';
import { predictGraphTarget } from '../../src/core/create2.ts';
import type { startDevnet } from '../../src/devnet/devnet.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';
import { call } from '../support/http.ts';
import type { ServerProcess } from '../support/process.ts';
import { v4DevnetLaunches } from '../support/v4-devnet-launch.ts';

/**
 * The post-authorization lifecycle: from the exact wallet transaction to finalized on a real devnet, followed by the
 * server only by polling the chain. The wallet here is the test playing the controller (anvil account 0), never the
 * service.
 */
describe('the post-authorization lifecycle on the devnet', () => {
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let server: ServerProcess;
  let launches: ReturnType<typeof v4DevnetLaunches>;
  let testClient: ReturnType<typeof v4DevnetLaunches>['testClient'];
  let reader: ReturnType<typeof v4DevnetLaunches>['reader'];
  let requests: ReturnType<typeof v4DevnetLaunches>['requests'];
  const launchOf = (launchId: string) => launches.launchOf(launchId);
  const until = (launchId: string, statuses: string[], timeoutMs?: number) =>
    launches.until(launchId, statuses, timeoutMs);
  const handedOff = (...args: Parameters<ReturnType<typeof v4DevnetLaunches>['handedOff']>) =>
    launches.handedOff(...args);
  const send = (tx: Parameters<ReturnType<typeof v4DevnetLaunches>['send']>[0]) => launches.send(tx);

  const feed = async () => {
    const r = await call(`${server.url}/v4/chains/4663/finalized-custom-launches?limit=25`);
    expect(r.status, r.text).toBe(200);
    return r.json.launches as Array<{ launchId: string; [k: string]: unknown }>;
  };

  /** Sends the exact transaction and mines past the finalized checkpoint (anvil: latest - 64). */
  const finalize = async (launch: { launchId: string; walletTransaction: Parameters<typeof send>[0] }) => {
    const receipt = await send(launch.walletTransaction);
    expect(receipt.status).toBe('success');
    await until(launch.launchId, ['sequencer_soft_confirmed']);
    await testClient.mine({ blocks: 65 });
    return until(launch.launchId, ['finalized']);
  };
  /** The launch's sourceVerification in the public feed, polled until `done` holds of it. */
  const verificationUntil = async (
    launchId: string,
    done: (v: SourceVerificationV1) => boolean,
    timeoutMs = 30_000,
  ) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = (await feed()).find((f) => f.launchId === launchId);
      const v = item?.sourceVerification as SourceVerificationV1 | undefined;
      if (v && done(v)) return v;
      if (Date.now() > deadline) throw new Error(`source verification is ${JSON.stringify(v)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Where the router's factory put each target of a launch, and the runtime code hash there now. */
  const deployedTargets = async (launchId: string) => {
    const request = requests.get(launchId) as CustomLaunchCreateRequestV4;
    const { graphFactory, platformLaunchStampRouter } = devnet.deployment.contracts;
    return Promise.all(
      request.graphBundle.targets.map(async (t) => {
        const address = predictGraphTarget(
          graphFactory.address as Hex,
          platformLaunchStampRouter.address as Hex,
          t.create2Salt as Hex | undefined,
          t.runtimeBytecode as Hex,
        );
        const code = (await reader.getCode({ address })) ?? '0x';
        return { targetId: t.targetId, address, runtimeCodeHash: keccak256(code), code };
      }),
    );
  };
  /**
   * The operator records what a public verification service reported for each target (such services lie outside
   * this machine; the server reads only the operator's registry file, as it does for external references).
   */
  const recordObservations = async (launchId: string, targets?: Awaited<ReturnType<typeof deployedTargets>>) => {
    const registry = join(running.dir, 'source-verification.json');
    const records = JSON.parse(readFileSync(registry, 'utf8')) as unknown[];
    for (const t of targets ?? (await deployedTargets(launchId))) {
      records.push({
        chainId: '4663',
        address: t.address,
        runtimeCodeHash: t.runtimeCodeHash,
        provider: 'test-verification-service',
        evidenceUri: `https://verification.example/4663/${t.address}`,
        evidenceDigest: `sha256:${createHash('sha256').update(t.code).digest('hex')}`,
      });
    }
    writeFileSync(registry, JSON.stringify(records, null, 2));
  };

  let running: DevnetServer;
  beforeAll(async () => {
    running = await startDevnetServer('finality', {
      LIFECYCLE_TRACKER_POLL_MS: '100',
      SOURCE_VERIFICATION_POLL_MS: '100',
      SOURCE_VERIFICATION_RETRY_BASE_MS: '200',
      SOURCE_VERIFICATION_RETRY_MAX_MS: '1000',
      PERMIT_REISSUE_DECISION_WINDOW_MS: '3000',
      VALIDATE_RESPONSES: 'true',
    });
    ({ devnet, server } = running);
    launches = v4DevnetLaunches(running);
    ({ testClient, reader, requests } = launches);
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  });

  it('follows the exact transaction to finalized, and the launch joins the finalized feed', async () => {
    const launch = await handedOff();
    expect(launch.chainEvidence).toBeNull();
    const receipt = await send(launch.walletTransaction);
    expect(receipt.status).toBe('success');

    const soft = await until(launch.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence).toEqual({
      transactionHash: receipt.transactionHash,
      blockNumber: String(receipt.blockNumber),
      blockHash: receipt.blockHash,
      finalizedAt: null,
    });
    expect((await feed()).some((f) => f.launchId === launch.launchId)).toBe(false);

    // anvil: safe = latest - 32 stands in for "posted to the base layer", finalized = latest - 64 for finality.
    await testClient.mine({ blocks: 33 });
    await until(launch.launchId, ['ethereum_posted']);
    expect((await feed()).some((f) => f.launchId === launch.launchId)).toBe(false);
    await testClient.mine({ blocks: 32 });
    const finalized = await until(launch.launchId, ['finalized']);
    expect(finalized.chainEvidence.finalizedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(finalized.chainEvidence.transactionHash).toBe(receipt.transactionHash);

    const item = (await feed()).find((f) => f.launchId === launch.launchId);
    expect(item).toMatchObject({
      chainId: '4663',
      caip2: 'eip155:4663',
      profile: '4.1.0',
      transactionHash: receipt.transactionHash,
      blockNumber: String(receipt.blockNumber),
      blockHash: receipt.blockHash,
      router: devnet.deployment.contracts.platformLaunchStampRouter.address.toLowerCase(),
      finalityPolicy: devnet.chainDeployment.finality,
      finalizedAt: finalized.chainEvidence.finalizedAt,
    });
    // Source verification starts after finalized, over the sources delivered before the permit: no component
    // waits for files; with no provider observation recorded each retries, sorted by targetId.
    // The shared lane's feed is separate: a V4 launch never appears there.
    const shared = await call(`${server.url}/v4/chains/4663/multi-role-custom-launches/finalized?limit=25`);
    expect(shared.status, shared.text).toBe(200);
    expect(shared.json.launches.some((l: { launchId: string }) => l.launchId === launch.launchId)).toBe(false);
    expect(item?.sourceVerification).toBeDefined();
    const verification = await verificationUntil(launch.launchId, (v) => v.status === 'retrying');
    expect(verification.components.map((c) => c.targetId)).toEqual(['hook', 'initializer', 'token']);
    for (const c of verification.components) expect(c.reasonCode).toBe('PROVIDER_OBSERVATION_MISSING');
    // The resource carries the same source verification once finalized (the verifier may move the waiting rows'
    // next attempt between the two reads; the final state is compared whole in the verification tests below).
    const fromResource = (await launchOf(launch.launchId)).sourceVerification as SourceVerificationV1;
    const rows = (v: SourceVerificationV1) => v.components.map((c) => [c.targetId, c.status, c.reasonCode]);
    expect(rows(fromResource)).toEqual(rows(verification));
  }, 120_000);

  it('never accepts a transaction that differs in one byte, and accepts the exact one after it', async () => {
    const launch = await handedOff();
    const tx = launch.walletTransaction;
    // One byte of the permit signature (the calldata's tail) changes: the router rejects it, and so does the server.
    const cut = tx.data.length - 80;
    const flipped = `${tx.data.slice(0, cut)}${(Number.parseInt(tx.data.slice(cut, cut + 2), 16) ^ 0xff).toString(16).padStart(2, '0')}${tx.data.slice(cut + 2)}`;
    expect(flipped.length).toBe(tx.data.length);
    const wrong = await send({ ...tx, data: flipped });
    expect(wrong.status).toBe('reverted');

    const refused = await until(launch.launchId, ['wallet_action_required']);
    expect(refused.chainEvidence).toBeNull();
    const finding = refused.findings.find((f: { code: string }) => f.code === 'WALLET_TRANSACTION_MISMATCH');
    expect(finding?.message).toContain(wrong.transactionHash);

    const right = await send(tx);
    expect(right.status).toBe('success');
    const soft = await until(launch.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence.transactionHash).toBe(right.transactionHash);
    expect(soft.chainEvidence.transactionHash).not.toBe(wrong.transactionHash);
  }, 120_000);

  it("does not count another launch's transaction from the same wallet as a mismatch", async () => {
    const [a, b] = [await handedOff(), await handedOff()];
    await send(a.walletTransaction);
    await until(a.launchId, ['sequencer_soft_confirmed']);
    // A few more tracker polls over the block that holds a's transaction.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const other = await launchOf(b.launchId);
    expect(other.status).toBe('awaiting_wallet_signature');
    expect(other.findings.map((f: { code: string }) => f.code)).not.toContain('WALLET_TRANSACTION_MISMATCH');
  }, 120_000);

  it('fails the launch when another transaction stamped its intent with other bytes, and never accepts that one', async () => {
    const launch = await handedOff();
    const tx = launch.walletTransaction;
    // The permit binds the intent, wallet, value and checkpoint, not every launch parameter: a lower minTokenOut
    // still launches on chain. The server must still refuse it as the launch's transaction.
    const { args } = decodeFunctionData({ abi: launchStampRouterAbi, data: tx.data as Hex });
    const [params, targets, permit, signature] = args as unknown as [{ minTokenOut: bigint }, unknown, unknown, Hex];
    const data = encodeFunctionData({
      abi: launchStampRouterAbi,
      functionName: 'launch',
      args: [{ ...params, minTokenOut: params.minTokenOut - 1n }, targets, permit, signature] as never,
    });
    expect(data).not.toBe(tx.data);
    const other = await send({ ...tx, data });
    expect(other.status).toBe('success');
    const failed = await until(launch.launchId, ['failed']);
    expect(failed.chainEvidence).toBeNull();
    expect(failed.failure.code).toBe('LAUNCH_STAMPED_BY_OTHER_TRANSACTION');
    expect(failed.failure.message).toContain(other.transactionHash);
  }, 120_000);

  it('detects a reorg that drops the transaction by re-reading the block hash, and waits for it again', async () => {
    const launch = await handedOff();
    const snapshot = await testClient.snapshot();
    const first = await send(launch.walletTransaction);
    const soft = await until(launch.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence.blockHash).toBe(first.blockHash);

    // The block that held the transaction is replaced by other blocks at the same height.
    await testClient.revert({ id: snapshot });
    await testClient.mine({ blocks: 2 });
    expect((await reader.getBlock({ blockNumber: first.blockNumber })).hash).not.toBe(first.blockHash);
    const dropped = await until(launch.launchId, ['awaiting_wallet_signature']);
    expect(dropped.chainEvidence).toBeNull();
    expect(dropped.findings.map((f: { code: string }) => f.code)).toContain('CHAIN_REORG_DETECTED');

    const again = await send(launch.walletTransaction);
    const back = await until(launch.launchId, ['sequencer_soft_confirmed']);
    expect(back.chainEvidence).toMatchObject({ transactionHash: again.transactionHash, blockHash: again.blockHash });
  }, 120_000);

  it('verifies the sources after finalized (delivered before the permit): retrying until observed, then exact_match', async () => {
    // The permit waited for the sources, so verification never waits for files here (SOURCE_FILES_MISSING, the
    // state of a launch finalized without them, is tested in test/lifecycle/source-verification-rules.test.ts).
    const launch = await handedOff();
    const finalized = await finalize(launch);

    // Delivered, built and matched, but no provider observation yet: retrying, with no provider or digest shown.
    const retrying = await verificationUntil(launch.launchId, (v) => v.status === 'retrying');
    for (const c of retrying.components) {
      expect(c).toEqual({
        targetId: c.targetId,
        status: 'retrying',
        updatedAt: expect.any(String),
        nextAttemptAt: expect.any(String),
        reasonCode: 'PROVIDER_OBSERVATION_MISSING',
      });
    }
    expect(retrying.updatedAt).toBe(
      retrying.components
        .map((c) => c.updatedAt)
        .sort()
        .at(-1),
    );

    await recordObservations(launch.launchId);
    const exact = await verificationUntil(launch.launchId, (v) => v.status !== 'retrying');
    expect(exact.status).toBe('exact_match');
    expect(exact.components.map((c) => c.targetId)).toEqual(['hook', 'initializer', 'token']);
    expect(exact.updatedAt).toBe(
      exact.components
        .map((c) => c.updatedAt)
        .sort()
        .at(-1),
    );
    const targets = await deployedTargets(launch.launchId);
    for (const c of exact.components) {
      const target = targets.find((t) => t.targetId === c.targetId);
      if (!target) throw new Error(`no target ${c.targetId}`);
      expect(c).toEqual({
        targetId: c.targetId,
        status: 'exact_match',
        updatedAt: expect.any(String),
        providerObservation: {
          providerId: 'test-verification-service',
          observedAt: expect.any(String),
          observationDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          releaseAuthority: false,
        },
        protectedBuildDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        // The binding names the code both providers hold at the finalized block, recomputed here independently.
        finalizedBytecodeDigest: sha256Digest(
          canonicalJson({
            schemaVersion: 'platform.custom-launch-finalized-bytecode.v1',
            chainId: '4663',
            address: target.address,
            blockNumber: finalized.chainEvidence.blockNumber,
            blockHash: finalized.chainEvidence.blockHash.toLowerCase(),
            runtimeCodeHash: target.runtimeCodeHash,
          }),
        ),
      });
      // The finalized code is the code the example project compiles to.
      expect(target.code).toBe(
        (requests.get(launch.launchId) as CustomLaunchCreateRequestV4).graphBundle.targets
          .find((t) => t.targetId === c.targetId)
          ?.runtimeBytecode.toLowerCase(),
      );
    }
    expect(new Set(exact.components.map((c) => c.protectedBuildDigest)).size).toBe(3);

    // Verification never revises finality; the resource carries the same verification.
    const after = await launchOf(launch.launchId);
    expect(after.status).toBe('finalized');
    expect(after.chainEvidence).toEqual(finalized.chainEvidence);
    expect(after.sourceVerification).toEqual(exact);
  }, 120_000);

  it('a provider observation alone never yields exact_match: sources that do not rebuild the code need attention', async () => {
    // The controller declares 999 optimizer runs, but the deployed code was compiled with 200.
    const launch = await handedOff((r) => {
      r.sourceDescriptor.optimizer.runs = 999;
    });
    await finalize(launch);
    // The provider reports every target (as a service holding other sources might): still not exact.
    await recordObservations(launch.launchId);
    const v = await verificationUntil(launch.launchId, (x) => x.status === 'needs_attention');
    for (const c of v.components) {
      expect(c).toEqual({
        targetId: c.targetId,
        status: 'needs_attention',
        updatedAt: expect.any(String),
        reasonCode: 'PROTECTED_BUILD_MISMATCH',
      });
    }
    // needs_attention is final: later attempts never change it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await feed()).find((f) => f.launchId === launch.launchId)?.sourceVerification).toEqual(v);
    expect((await launchOf(launch.launchId)).status).toBe('finalized');
  }, 120_000);

  it('needs attention for another compiler, a contract not in the build, or sources that do not compile', async () => {
    const broken = 'contract Broken { this is not Solidity }\n';
    const brokenFile = {
      path: 'contracts/Broken.sol',
      sha256: createHash('sha256').update(broken).digest('hex'),
      byteLength: Buffer.byteLength(broken),
    };
    const cases = [
      {
        edit: (r: CustomLaunchCreateRequestV4) => {
          r.sourceDescriptor.compilerVersion = '0.8.26+commit.8a97fa7a';
        },
        want: { hook: 'COMPILER_NOT_PINNED', initializer: 'COMPILER_NOT_PINNED', token: 'COMPILER_NOT_PINNED' },
      },
      {
        edit: (r: CustomLaunchCreateRequestV4) => {
          const token = r.verificationBundle.targets.find((t) => t.targetId === 'token');
          if (token) token.contractName = 'NotInTheBuild';
        },
        // The other two rows rebuild exactly and wait for a provider observation; the aggregate fails closed.
        want: {
          hook: 'PROVIDER_OBSERVATION_MISSING',
          initializer: 'PROVIDER_OBSERVATION_MISSING',
          token: 'TARGET_NOT_IN_BUILD',
        },
      },
      {
        edit: (r: CustomLaunchCreateRequestV4) => {
          r.sourceBundleManifest.files = [brokenFile, ...r.sourceBundleManifest.files];
        },
        want: { hook: 'SOURCE_COMPILE_FAILED', initializer: 'SOURCE_COMPILE_FAILED', token: 'SOURCE_COMPILE_FAILED' },
      },
    ];
    const launches = [];
    for (const c of cases) launches.push(await handedOff(c.edit, { [brokenFile.path]: broken }));
    for (const launch of launches) {
      expect((await send(launch.walletTransaction)).status).toBe('success');
      await until(launch.launchId, ['sequencer_soft_confirmed']);
    }
    await testClient.mine({ blocks: 65 });
    for (const [i, launch] of launches.entries()) {
      await until(launch.launchId, ['finalized']);
      const v = await verificationUntil(
        launch.launchId,
        (x) => x.status === 'needs_attention' && x.components.every((c) => c.reasonCode !== 'SOURCE_FILES_MISSING'),
      );
      expect(Object.fromEntries(v.components.map((c) => [c.targetId, c.reasonCode]))).toEqual(cases[i]?.want);
      for (const c of v.components) {
        expect(c.providerObservation).toBeUndefined();
        expect(c.protectedBuildDigest).toBeUndefined();
        expect(c.finalizedBytecodeDigest).toBeUndefined();
      }
    }
  }, 120_000);

  it('retries while the providers cannot show the finalized code (the block was reorganised away)', async () => {
    const launch = await handedOff();
    const snapshot = await testClient.snapshot();
    await finalize(launch);
    // The sources are held since the permit: the observations are recorded only once the code is gone, so no
    // attempt can match before the reorganisation.
    const targets = await deployedTargets(launch.launchId);
    // The finalized block is replaced (anvil allows what a real chain's finality forbids): the code is gone.
    await testClient.revert({ id: snapshot });
    await testClient.mine({ blocks: 2 });
    await recordObservations(launch.launchId, targets);
    const v = await verificationUntil(
      launch.launchId,
      (x) => x.status === 'retrying' && x.components.every((c) => c.reasonCode === 'FINALIZED_CODE_UNAVAILABLE'),
    );
    for (const c of v.components) {
      expect(c).toEqual({
        targetId: c.targetId,
        status: 'retrying',
        updatedAt: expect.any(String),
        nextAttemptAt: expect.any(String),
        reasonCode: 'FINALIZED_CODE_UNAVAILABLE',
      });
    }
    // It keeps retrying (never exact, never needs_attention), and verification never revises finality.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = await verificationUntil(launch.launchId, () => true);
    expect(later.status).toBe('retrying');
    expect(later.components.every((c) => c.reasonCode === 'FINALIZED_CODE_UNAVAILABLE')).toBe(true);
    expect((await launchOf(launch.launchId)).status).toBe('finalized');
  }, 120_000);

  it('fails the launch when the exact transaction is mined but reverts', async () => {
    const launch = await handedOff();
    // The exact bytes (chain, sender, router, value, calldata) with too little gas (above the intrinsic cost, far below
    // the launch's): mined, reverted, no stamp.
    const reverted = await send({ ...launch.walletTransaction, gasLimit: '200000' });
    expect(reverted.status).toBe('reverted');
    const failed = await until(launch.launchId, ['failed']);
    expect(failed.chainEvidence).toBeNull();
    expect(failed.failure).toMatchObject({
      code: 'WALLET_TRANSACTION_REVERTED',
      remediation: { findingCodes: ['WALLET_TRANSACTION_REVERTED'], newRequestRequired: true },
    });
  }, 120_000);

  it('fails a launch whose permit expired, by chain time, before its transaction was mined, once no reissue was decided', async () => {
    const launch = await handedOff();
    await testClient.increaseTime({ seconds: 3601 });
    await testClient.mine({ blocks: 1 });
    const waiting = await until(launch.launchId, ['wallet_action_required', 'failed']);
    expect(waiting.status).toBe('wallet_action_required');
    expect(waiting.walletTransaction).toBeNull();
    expect(waiting.permitReissue).toMatchObject({
      status: 'awaiting_decision',
      expiredPermitExpiresAt: launch.walletTransaction.permitExpiresAt,
    });
    // PERMIT_REISSUE_DECISION_WINDOW_MS is 3 s on this server: no decision by then fails the launch.
    const failed = await until(launch.launchId, ['failed']);
    expect(failed.permitReissue).toMatchObject({ status: 'decision_deadline_passed', decidedAt: null });
    expect(failed.failure).toMatchObject({
      code: 'LAUNCH_PERMIT_EXPIRED',
      remediation: { findingCodes: ['LAUNCH_PERMIT_EXPIRED'], newRequestRequired: true },
    });
  }, 120_000);
});
