/*
 * The composition root: every service of the server is built here, once. `createApp` takes the request-serving
 * services (and builds them with `buildServices` itself when a test gives only a database and a configuration);
 * `src/main.ts` builds the chain gates, the services and the background workers through this file and runs them.
 */

import type { Hex } from 'viem';
import type {
  CustomLaunchCreateRequestV3,
  CustomLaunchPreflightV3,
  MultiRoleCustomLaunchCapabilitiesV2,
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchPreflightV2,
} from '../generated/types/service.ts';
import type { Principal } from './auth/keys.ts';
import { type BaseDeployment, readBaseDeployment } from './chain/base-deployment.ts';
import { BaseLaunchChain } from './chain/base-launch-chain.ts';
import { fundingTokenReader } from './chain/funding-token.ts';
import { viemLaunchObserver } from './chain/launch-observer.ts';
import { PermitAttester } from './chain/launch-permit.ts';
import { privateAnvilEvm } from './chain/local-evm.ts';
import { type MultiRoleDeployment, readMultiRoleDeployment } from './chain/multi-role-deployment.ts';
import { MultiRoleLaunchChain } from './chain/multi-role-launch-chain.ts';
import { minimumInitialBuyWei, type PriceFeed, priceFeedFromConfig } from './chain/price-feed.ts';
import { registryObservationProvider } from './chain/source-observation.ts';
import { watchDeploymentEvidence } from './chain/verify-deployment-evidence.ts';
import type { Config } from './config.ts';
import { baseReviewContextOf } from './domain/base-layer/admission-review.ts';
import { BaseLayerLaunches, type BaseRequestCheck } from './domain/base-layer/launch-service.ts';
import { BaseLayerLifecycleWorker } from './domain/base-layer/lifecycle-worker.ts';
import { pinnedBaseLaunchRules } from './domain/base-layer/pinned-rules.ts';
import { preflightBaseLayer } from './domain/base-layer/preflight.ts';
import { type BaseLayerRuleContext, checkBaseLayerRequestRules } from './domain/base-layer/request-rules.ts';
import { currentBaseRuleSet } from './domain/base-layer/rule-sets.ts';
import { BaseLayerTracker } from './domain/base-layer/tracker.ts';
import { LaunchService } from './domain/launches/launch-service.ts';
import type { ExternalReferenceBinder } from './domain/launches/preflight.ts';
import { authorizerFromConfig, type LaunchAuthorizer } from './domain/lifecycle/chain-gates.ts';
import { SourceVerifier } from './domain/lifecycle/source-verifier.ts';
import { LaunchTracker } from './domain/lifecycle/tracker.ts';
import { LifecycleWorker } from './domain/lifecycle/worker.ts';
import { ModuleReviewWorker } from './domain/modules/review-worker.ts';
import { MultiRoleLaunches } from './domain/multi-role/launch-service.ts';
import { MultiRoleLifecycleWorker } from './domain/multi-role/lifecycle-worker.ts';
import { multiRolePoolManager, pinnedMultiRoleLaunchRules } from './domain/multi-role/pinned-rules.ts';
import { preflightMultiRole } from './domain/multi-role/preflight.ts';
import { checkMultiRoleRequestRules, type MultiRoleRuleContext } from './domain/multi-role/request-rules.ts';
import { MultiRoleTracker } from './domain/multi-role/tracker.ts';
import { SubkeyService } from './domain/partners/subkeys.ts';
import { multiRoleActiveRevisions, multiRoleCapabilities } from './domain/public/capabilities-multi-role.ts';
import type { EvidenceStateKind } from './domain/public/deployment-evidence-check.ts';
import { multiRoleClientDigest } from './domain/public/multi-role-assets.ts';
import { ApiError } from './errors/api-error.ts';
import { compileSolidityIsolated, pinnedCompilerVersion, solidityAstsIsolated } from './solidity/compile-contracts.ts';
import type { Db } from './store/db.ts';

/** What the routes serve requests with. */
export interface Services {
  db: Db;
  config: Config;
  now: () => number;
  launches: LaunchService;
  subkeys: SubkeyService;
  /** The native/USD price source; null without CHAIN_4663_RPC_URLS and PRICE_FEED_ADDRESS. */
  priceFeed: PriceFeed | null;
  /** The bound deployment evidence's state; absent on a server without chain gates. */
  evidence?: (() => EvidenceStateKind) | undefined;
  /** The module review worker runs in this process (review capabilities' worker authority). */
  reviewWorkerRunning?: (() => boolean) | undefined;
  /** The chain gates' read-only external-reference binding for preflight; null without chain gates. */
  referenceBinder: ExternalReferenceBinder | null;
  /** The base-layer (chain 1) deployment of the V3 lane (BASE_DEPLOYMENT_PATH); null when none is configured. */
  baseDeployment: BaseDeployment | null;
  /** The V3 launches: create, list, get, the funding authorization and cancellation. */
  baseLaunches: BaseLayerLaunches;
  /** preflightCustomLaunchV3 over a schema-valid request: persists nothing. */
  preflightBaseLayer: (
    principal: Principal,
    request: CustomLaunchCreateRequestV3,
    rawBytes: Buffer,
  ) => Promise<CustomLaunchPreflightV3>;
  /** The pinned solc long version (read once, on first use). */
  compilerVersion: () => string;
  /** The shared lane's (MultiRole V2) contracts on chain 4663 (MULTI_ROLE_DEPLOYMENT_PATH); null when unbound. */
  multiRoleDeployment: MultiRoleDeployment | null;
  /** Chain 4663 as the shared lane reads it (both CHAIN_4663_RPC_URLS and its contracts); null without either. */
  multiRoleChain: MultiRoleLaunchChain | null;
  /** The shared-lane launches: create, list and get. */
  multiRoleLaunches: MultiRoleLaunches;
  /** preflightMultiRoleCustomLaunch over a schema-valid request: persists nothing. */
  preflightMultiRole: (
    principal: Principal,
    request: MultiRoleCustomLaunchCreateRequestV2,
    rawBytes: Buffer,
  ) => Promise<MultiRoleCustomLaunchPreflightV2>;
  /** getMultiRoleCapabilitiesV2's document, readiness included. */
  multiRoleCapabilities: () => MultiRoleCustomLaunchCapabilitiesV2;
}

/** The inputs of `buildServices`: the chain hooks are absent on a server without chain gates. */
export interface ServiceInputs {
  db: Db;
  config: Config;
  now: () => number;
  evidence?: (() => EvidenceStateKind) | undefined;
  reviewWorkerRunning?: (() => boolean) | undefined;
  referenceBinder?: ExternalReferenceBinder | null | undefined;
}

/** Builds the request-serving services. */
export function buildServices(inputs: ServiceInputs): Services {
  const { db, config, now } = inputs;
  const base = baseLayerServices(inputs);
  return {
    ...base,
    ...multiRoleServices(inputs, base.compilerVersion),
    db,
    config,
    now,
    launches: new LaunchService(
      db,
      {
        admissionPerHour: config.admissionPerHour,
        admissionPerDay: config.admissionPerDay,
        lifecycleValidationDeadlineMs: config.lifecycle.validationDeadlineMs,
      },
      now,
    ),
    subkeys: new SubkeyService(db, now),
    priceFeed: priceFeedFromConfig(config),
    evidence: inputs.evidence,
    reviewWorkerRunning: inputs.reviewWorkerRunning,
    referenceBinder: inputs.referenceBinder ?? null,
  };
}

/**
 * The V3 lane's services: the base deployment document read once at start, the funding-token reads on the first
 * chain-1 provider (the deployment's own URL when CHAIN_1_RPC_URLS is unset), and the request rules with this
 * deployment's context (profile 3.4.0 activation, the accepted funding tokens, the pinned compiler).
 */
function baseLayerServices(
  inputs: ServiceInputs,
): Pick<Services, 'baseDeployment' | 'baseLaunches' | 'preflightBaseLayer' | 'compilerVersion'> {
  const { db, config, now } = inputs;
  const baseDeployment = config.baseDeploymentPath ? readBaseDeployment(config.baseDeploymentPath) : null;
  const rpcUrl = config.chain1RpcUrls[0] ?? baseDeployment?.rpcUrl;
  let compiler: string | undefined;
  const compilerVersion = () => {
    compiler ??= pinnedCompilerVersion();
    return compiler;
  };
  const ruleContext = (): BaseLayerRuleContext => ({
    profile340Active: config.v3.profile340Active,
    fundingTokens: baseDeployment ? [baseDeployment.contracts.fundingToken.address] : [],
    compilerVersion: compilerVersion(),
  });
  const checkRules: BaseRequestCheck = (principal, request, rawBytes) =>
    checkBaseLayerRequestRules(principal, request, rawBytes, ruleContext());
  return {
    baseDeployment,
    compilerVersion,
    baseLaunches: new BaseLayerLaunches({
      db,
      now,
      admission: { perHour: config.admissionPerHour, perDay: config.admissionPerDay },
      checkRules,
      fundingTokens: baseDeployment && rpcUrl ? fundingTokenReader(rpcUrl) : null,
    }),
    preflightBaseLayer: async (principal, request, rawBytes) => {
      if (!baseDeployment) throw new ApiError('BASE_LAYER_NOT_CONFIGURED');
      return preflightBaseLayer(principal, request, rawBytes, {
        ...ruleContext(),
        ...baseReviewContextOf(baseDeployment, currentBaseRuleSet(db).retiredRules, config.v3.feeCertifications),
      });
    },
  };
}

/**
 * The shared lane's (MultiRole V2) services: its deployment document read once at start, the request rules with the
 * pinned compiler and the active profile revisions, the launch service on the global admission quota, preflight
 * (with the chain-4663 reads when two CHAIN_4663_RPC_URLS are set; without them the chain checks wait for the lifecycle review) and
 * the capabilities over the exact client bytes served.
 */
export function multiRoleServices(
  inputs: ServiceInputs,
  compilerVersion: () => string,
): Pick<
  Services,
  'multiRoleDeployment' | 'multiRoleChain' | 'multiRoleLaunches' | 'preflightMultiRole' | 'multiRoleCapabilities'
> {
  const { db, config, now } = inputs;
  const deployment = config.multiRoleDeploymentPath ? readMultiRoleDeployment(config.multiRoleDeploymentPath) : null;
  const chain =
    deployment && config.chain4663RpcUrls.length === 2
      ? new MultiRoleLaunchChain(config.chain4663RpcUrls, deployment)
      : null;
  const ruleContext = (): MultiRoleRuleContext => ({
    compilerVersion: compilerVersion(),
    activeRevisions: multiRoleActiveRevisions,
  });
  return {
    multiRoleDeployment: deployment,
    multiRoleChain: chain,
    multiRoleLaunches: new MultiRoleLaunches({
      db,
      now,
      admission: { perHour: config.admissionPerHour, perDay: config.admissionPerDay },
      checkRules: (principal, request, rawBytes) =>
        checkMultiRoleRequestRules(principal, request, rawBytes, ruleContext()),
    }),
    preflightMultiRole: (principal, request, rawBytes) =>
      preflightMultiRole(principal, request, rawBytes, {
        ...ruleContext(),
        deployment,
        chain,
        canonicalPoolManager: multiRolePoolManager(deployment, config.canonicalPoolManager),
      }),
    multiRoleCapabilities: () =>
      multiRoleCapabilities({ deployment, compilerVersion: compilerVersion(), clientSha256: multiRoleClientDigest() }),
  };
}

/** The chain gates: the launch authorizer and its deployment evidence watcher, or neither without chain config. */
export function buildChainGates(config: Config): {
  authorizer: LaunchAuthorizer | null;
  evidence: ReturnType<typeof watchDeploymentEvidence> | null;
} {
  const authorizer = authorizerFromConfig(config);
  // The bound deployment evidence is verified against the chain at start-up; until then the V4 lane takes no writes.
  const evidence = authorizer
    ? watchDeploymentEvidence(authorizer.chainDeployment, config.chain4663RpcUrls, {
        retryMs: config.deploymentEvidenceRetryMs,
        timeoutMs: config.chainRpcTimeoutMs,
      })
    : null;
  return { authorizer, evidence };
}

/** A background worker's start: it returns the stop that resolves when the worker has finished. */
type Start = () => () => Promise<void>;

/** The background workers of one server process, and the local EVM the module review starts on first use. */
export interface Workers {
  lifecycle: Start;
  tracker: Start | null;
  verifier: Start | null;
  review: Start;
  /** The base-layer (V3) lifecycle worker: it runs without chain 1 too (reviewed launches then wait). */
  baseLayer: Start;
  /** The base-layer tracker; null without CHAIN_1_RPC_URLS and BASE_DEPLOYMENT_PATH. */
  baseTracker: Start | null;
  /** The shared lane's (MultiRole V2) lifecycle worker: it runs without chain 4663 too (launches then wait). */
  multiRole: Start;
  /** The shared lane's tracker; null without CHAIN_4663_RPC_URLS and MULTI_ROLE_DEPLOYMENT_PATH. */
  multiRoleTracker: Start | null;
  /** Stops the module review's private local EVM. */
  stopReviewEvm: () => Promise<void> | void;
}

/** Builds the background workers over the same price feed and chain gates the routes use. */
export function buildWorkers(services: Services, authorizer: LaunchAuthorizer | null, workerId: string): Workers {
  const { db, config } = services;
  const worker = new LifecycleWorker({
    db,
    lifecycle: config.lifecycle,
    admission: { canonicalPoolManager: config.canonicalPoolManager },
    now: Date.now,
    workerId,
    minimumInitialBuyWei: () => minimumInitialBuyWei(services.priceFeed, Date.now()),
    authorizer,
    sourceAsts: solidityAstsIsolated,
  });
  // The module review pipeline: plans and builds submitted packages (reviewers decide through the admin command).
  // The review's private local EVM for engine builds (the measured execution budget), started at the first one.
  const reviewEvm = privateAnvilEvm();
  const reviewWorker = new ModuleReviewWorker({
    db,
    now: Date.now,
    workerId,
    leaseMs: config.lifecycle.leaseMs,
    compile: compileSolidityIsolated,
    quoteEnvironmentSourceDigest: config.modulesQuoteEnvironmentSourceDigest,
    evm: reviewEvm.evm,
  });
  const chain = authorizer ? chainWorkers(services, authorizer, workerId) : null;
  const base = baseLayerWorkers(services, workerId);
  const multiRole = multiRoleWorkers(services, workerId);
  return {
    lifecycle: () => worker.start(),
    tracker: chain?.tracker ?? null,
    verifier: chain?.verifier ?? null,
    review: () => reviewWorker.start(config.modulesReviewPollMs),
    baseLayer: base.lifecycle,
    baseTracker: base.tracker,
    multiRole: multiRole.lifecycle,
    multiRoleTracker: multiRole.tracker,
    stopReviewEvm: () => reviewEvm.stop(),
  };
}

/** The workers that follow the chain the gates are bound to; without chain gates nothing is authorized. */
function chainWorkers(
  services: Services,
  authorizer: LaunchAuthorizer,
  workerId: string,
): { tracker: Start; verifier: Start } {
  const { db, config } = services;
  const observer = viemLaunchObserver(config.chain4663RpcUrls, { timeoutMs: config.chainRpcTimeoutMs });
  const tracker = new LaunchTracker({
    db,
    observer,
    finalityPolicy: authorizer.chainDeployment.finality,
    graphFactory: authorizer.chainDeployment.contracts.graphFactory.address as Hex,
    now: Date.now,
    workerId,
    pollMs: config.lifecycle.trackerPollMs,
    permitReissueDecisionWindowMs: config.lifecycle.permitReissueDecisionWindowMs,
  });
  // Source verification of finalized launches: the delivered sources, the pinned compiler, the finalized code on
  // both providers, and the operator's registry of provider observations.
  const verifier = new SourceVerifier({
    db,
    observer,
    provider: registryObservationProvider(config.sourceVerificationRegistryPath, Date.now),
    compilerVersion: pinnedCompilerVersion(),
    compile: compileSolidityIsolated,
    now: Date.now,
    retryBaseMs: config.lifecycle.sourceVerificationRetryBaseMs,
    retryMaxMs: config.lifecycle.sourceVerificationRetryMaxMs,
  });
  return {
    tracker: () => tracker.start(),
    verifier: () => verifier.start(config.lifecycle.sourceVerificationPollMs),
  };
}

/** Blocks the base-layer and shared-lane trackers scan per launch and poll at most. */
const laneTrackerBlocksPerPoll = 500;

/**
 * The base-layer (V3) workers: the lifecycle worker over the pinned build and review, and, with chain 1 configured
 * (CHAIN_1_RPC_URLS and BASE_DEPLOYMENT_PATH), the reads of chain 1, the permit attester and the tracker.
 */
export function baseLayerWorkers(services: Services, workerId: string): { lifecycle: Start; tracker: Start | null } {
  const { db, config } = services;
  const chain =
    config.chain1RpcUrls.length === 2 && services.baseDeployment
      ? new BaseLaunchChain(config.chain1RpcUrls, services.baseDeployment)
      : null;
  const worker = new BaseLayerLifecycleWorker(
    {
      db,
      rules: pinnedBaseLaunchRules(services.baseDeployment, config.v3.feeCertifications),
      chain,
      attester: config.permitAttesterKey ? new PermitAttester(config.permitAttesterKey as `0x${string}`) : null,
      now: Date.now,
      fundingWindowSeconds: config.v3.fundingAuthorizationWindowSeconds,
    },
    { workerId, lifecycle: config.lifecycle },
  );
  const tracker = chain
    ? new BaseLayerTracker({ db, chain, now: Date.now, workerId, maxBlocksPerPoll: laneTrackerBlocksPerPoll })
    : null;
  return {
    lifecycle: () => worker.start(),
    tracker: tracker ? () => tracker.start(config.lifecycle.trackerPollMs) : null,
  };
}

/**
 * The shared lane's (MultiRole V2) workers: the lifecycle worker over the pinned build and the review, and, with
 * chain 4663 configured (two CHAIN_4663_RPC_URLS and MULTI_ROLE_DEPLOYMENT_PATH), the reads of chain 4663, the permit
 * attester and the tracker, which writes the lane's own finalized feed.
 */
export function multiRoleWorkers(services: Services, workerId: string): { lifecycle: Start; tracker: Start | null } {
  const { db, config, multiRoleDeployment: deployment, multiRoleChain: chain } = services;
  const worker = new MultiRoleLifecycleWorker(
    {
      db,
      rules: pinnedMultiRoleLaunchRules(deployment, config.canonicalPoolManager),
      chain,
      attester: config.permitAttesterKey ? new PermitAttester(config.permitAttesterKey as `0x${string}`) : null,
      now: Date.now,
    },
    { workerId, lifecycle: config.lifecycle },
  );
  const tracker = chain
    ? new MultiRoleTracker({ db, chain, now: Date.now, workerId, maxBlocksPerPoll: laneTrackerBlocksPerPoll })
    : null;
  return {
    lifecycle: () => worker.start(),
    tracker: tracker ? () => tracker.start(config.lifecycle.trackerPollMs) : null,
  };
}
