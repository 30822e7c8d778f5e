import { fileURLToPath } from 'node:url';
import type { IntakeLimits } from '../generated/types/service.ts';
import { moduleLimits } from './core/module-files.ts';
import { type LogLevel, levelOf, logLevels } from './observability/log-level.ts';

/** Runtime configuration, read once from the environment. docs/configuration.md lists every variable. */
export interface Config {
  host: string;
  port: number;
  /**
   * The read-only developer API's own listener on HOST (DEVELOPERS_PORT, default 8788; `off` serves none):
   * spec/openapi/developer-api.openapi.yaml. The service runs the same with or without it.
   */
  developersPort: number | null;
  databasePath: string;
  /** How long a write waits for a lock held by another connection before a retryable 503. */
  busyTimeoutMs: number;
  /** Validate responses against the spec (on in tests and CI; costs throughput in production). */
  validateResponses: boolean;
  /**
   * New-request admission across the whole service (ADMISSION_QUOTA_EXHAUSTED; published as the capabilities'
   * admission quota, spec/schemas/custom-launch-capabilities.v2.schema.json). Exact replays consume nothing.
   */
  admissionPerHour: number;
  admissionPerDay: number;
  /** Requests per minute per route and credential (or client address for public routes). Project design. */
  routeBudgetPerMinute: number;
  /**
   * Server processes on the one port and SQLite file (WORKERS, 1 to 64, default 1): 1 is one plain process; more
   * runs a node:cluster primary with that many workers (src/server/cluster.ts).
   */
  workers: number;
  /** Body byte limit of V4 JSON routes. Project design: fits 16 targets of 24 KiB runtime code plus a 1 MiB image. */
  v4BodyLimitBytes: number;
  /** Whole V3 request limit (8,388,608 bytes by default; spec/schemas/custom-launch-capabilities.v3.schema.json). */
  v3BodyLimitBytes: number;
  /**
   * The module intake limits this deployment publishes and enforces (a deployment may publish limits lower than the
   * maxima; spec/schemas/modules-context.v1.schema.json intake.limits): MODULES_MAX_FILES, MODULES_MAX_FILE_BYTES,
   * MODULES_MAX_TOTAL_BYTES, MODULES_MAX_REQUEST_BYTES (the serialized upload, also the body limit) and
   * MODULES_MAX_PATH_LENGTH, each from 1 to the schema's maximum (the default).
   */
  modulesLimits: IntakeLimits;
  /** The deployment accepts module uploads (MODULES_SUBMISSIONS; capabilities moduleContributions.submissions). */
  modulesSubmissions: boolean;
  /** New module key issuance is open (MODULES_API_KEY_ISSUANCE; capabilities moduleContributions.apiKeyIssuance). */
  modulesApiKeyIssuance: boolean;
  /** Wallets that may decide module reviews (MODULES_REVIEWER_WALLETS, comma-separated); none: review not ready. */
  modulesReviewerWallets: string[];
  /** How often an idle module review worker looks for work (MODULES_REVIEW_POLL_MS). */
  modulesReviewPollMs: number;
  /** The exact source digest of the fixed quote test environment (MODULES_QUOTE_ENVIRONMENT_SOURCE_DIGEST), or null. */
  modulesQuoteEnvironmentSourceDigest: string | null;
  /** Lifecycle worker: the validation deadline, lease, first retry delay (doubling up to the cap), idle poll, and an
   * optional pause between claiming and evaluating a job (a knob for the crash-resume test and demos; 0 in
   * production). Transient failures are retried until the deadline; there is no attempt bound (it replaced
   * LIFECYCLE_MAX_ATTEMPTS). */
  lifecycle: {
    /** How long after acceptance a launch may stay in received/validating on transient failures
     * (LIFECYCLE_VALIDATION_DEADLINE_MS); then it fails with LIFECYCLE_VALIDATION_DEADLINE_PASSED. */
    validationDeadlineMs: number;
    /** How long a V4 launch whose permit expired before broadcast waits for the controller's permit-reissue
     * decision (PERMIT_REISSUE_DECISION_WINDOW_MS, default 24 hours); then it fails with LAUNCH_PERMIT_EXPIRED. */
    permitReissueDecisionWindowMs: number;
    leaseMs: number;
    backoffBaseMs: number;
    /** The longest wait between two attempts (LIFECYCLE_BACKOFF_MAX_MS). */
    backoffMaxMs: number;
    pollMs: number;
    stepDelayMs: number;
    /** How often the post-authorization tracker polls the chain (LIFECYCLE_TRACKER_POLL_MS). */
    trackerPollMs: number;
    /** How often the source verifier looks for due attempts (SOURCE_VERIFICATION_POLL_MS). */
    sourceVerificationPollMs: number;
    /** A retrying component's first delay, doubled per attempt (SOURCE_VERIFICATION_RETRY_BASE_MS). */
    sourceVerificationRetryBaseMs: number;
    /** The longest delay between attempts, and the wait of a component missing files (…_RETRY_MAX_MS). */
    sourceVerificationRetryMaxMs: number;
  };
  /** JSON-RPC URLs of chain 4663 (CHAIN_4663_RPC_URLS, comma-separated); empty when no chain is configured. */
  chain4663RpcUrls: string[];
  /**
   * JSON-RPC URLs of the base layer, chain 1 (CHAIN_1_RPC_URLS, comma-separated): exactly two provider positions
   * when set (the base devnet's URL twice under `make start`); empty when no base layer is configured.
   */
  chain1RpcUrls: string[];
  /** The base-layer deployment document (BASE_DEPLOYMENT_PATH, src/chain/base-deployment.ts); null when unset. */
  baseDeploymentPath: string | null;
  /**
   * The shared token-and-hook lane's contracts on chain 4663 (MULTI_ROLE_DEPLOYMENT_PATH,
   * src/chain/multi-role-deployment.ts; the chain-4663 devnet writes it as multi-role-deployment.json); null when
   * unset, and then the lane's capabilities report it unavailable.
   */
  multiRoleDeploymentPath: string | null;
  /** The V3 lane's operator settings (spec/schemas/custom-launch-capabilities.v3.schema.json). */
  v3: {
    /** Profile 3.4.0 is accepted (V3_PROFILE_340_ACTIVE); refused until an operator activates it. */
    profile340Active: boolean;
    /**
     * How long an EIP-3009 funding authorization the service asks for stays valid, in seconds
     * (V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS, 60 to 86,400): the typed data's validBefore minus its validAfter.
     */
    fundingAuthorizationWindowSeconds: number;
    /**
     * The fee certifications of the base layer (V3_FEE_CERTIFICATIONS, a JSON list of {adapter, profileVersion};
     * adapter null certifies the profile itself). A launch whose feeAdapter and profile match an entry carries the
     * 10 bps platform share for the exact pool key it stamps; every other launch carries none. Default: none.
     */
    feeCertifications: Array<{ adapter: string | null; profileVersion: string }>;
  };
  /** The native/USD aggregator on chain 4663 the initial-buy quote reads; null when not configured. */
  priceFeedAddress: string | null;
  /** The canonical Uniswap v4 pool manager of chain 4663: per-chain configuration, never a constant in code. */
  canonicalPoolManager: string;
  /** The one fixed recipient of the Native20 platform fee (spec/schemas/custom-launch-capabilities.v2.schema.json). */
  platformFeeRecipient: string;
  /** Seconds a client is told to wait when the price source is missing. */
  quoteRetryAfterSeconds: number;
  /** The chain-deployment document (chain-deployment.v1) this server is bound to; null without chain gates. */
  chainDeploymentPath: string | null;
  /** Private key of the permit attester: signs EIP-712 launch permits, never a transaction. Never logged. */
  permitAttesterKey: string | null;
  /** Source-verification records the operator has checked (JSON array); null: no external reference can bind. */
  sourceVerificationRegistryPath: string | null;
  /** The discovery manifest this single-process deployment serves (spec/openapi/paths/discovery-manifest.yaml). */
  discovery: {
    /** The service origin {base_url} clients send authenticated traffic to (PUBLIC_ORIGIN); null: the origin this
     * process listens on, as it answers the request. */
    serviceOrigin: string | null;
    publicAuthorization: boolean;
    publicWrites: boolean;
    releaseReady: boolean;
    state: DiscoveryState;
  };
  /**
   * Node's timeouts on both listeners: the request headers (HTTP_HEADERS_TIMEOUT_MS) and the whole request
   * (HTTP_REQUEST_TIMEOUT_MS) must arrive within them, else 408 REQUEST_TIMEOUT (spec/openapi/service.openapi.yaml).
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /** Each chain provider request's timeout (CHAIN_RPC_TIMEOUT_MS): a provider holding its answer longer is unreachable. */
  chainRpcTimeoutMs: number;
  /** How soon the bound deployment evidence is verified again while there is no verdict (DEPLOYMENT_EVIDENCE_RETRY_MS). */
  deploymentEvidenceRetryMs: number;
  /** The logger's level (LOG_LEVEL: trace, debug, info, warn, error, fatal or silent; default info). */
  logLevel: LogLevel;
  /**
   * The Prometheus scrape listener (METRICS_PORT, default off; METRICS_HOST, default 127.0.0.1): never the API's own
   * origin. With METRICS_TOKEN set, a scrape must send `Authorization: Bearer <token>`.
   */
  metrics: { port: number | null; host: string; token: string | null };
  /**
   * How long a stopping server lets its in-flight requests and its background step finish after SIGTERM before it
   * closes what is left (SHUTDOWN_GRACE_MS, default 10000).
   */
  shutdownGraceMs: number;
}

/** States a discovery entry can report (spec/schemas/discovery-manifest.v1.schema.json). */
export const discoveryStates = ['public', 'pending-public-discovery-promotion', 'paused', 'withdrawn'] as const;
export type DiscoveryState = (typeof discoveryStates)[number];

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value < 1) throw new Error(`${name} must be at least 1, got "${env[name]}"`);
  return value;
}

/** A limit a deployment may lower but never raise: 1 to `maximum`, `maximum` when unset. */
function lowerLimit(env: NodeJS.ProcessEnv, name: string, maximum: number): number {
  const value = int(env, name, maximum);
  if (value < 1 || value > maximum) throw new Error(`${name} must be from 1 to ${maximum}, got ${value}`);
  return value;
}

function address(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] ?? fallback;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new Error(`${name} must be a 0x address, got "${raw}"`);
  return raw;
}

function sha256DigestEnv(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^sha256:[0-9a-f]{64}$/.test(raw)) throw new Error(`${name} must be sha256: and 64 lowercase hex, got "${raw}"`);
  return raw;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function intInRange(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = int(env, name, fallback);
  if (value < min || value > max) throw new Error(`${name} must be from ${min} to ${max}, got ${value}`);
  return value;
}

const v3Profiles = ['3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0'];

/** V3_FEE_CERTIFICATIONS: a JSON list of {adapter: 0x address or null, profileVersion: a V3 profile}. */
function feeCertifications(env: NodeJS.ProcessEnv): Array<{ adapter: string | null; profileVersion: string }> {
  const raw = env.V3_FEE_CERTIFICATIONS;
  if (!raw) return [];
  const problem = `V3_FEE_CERTIFICATIONS must be a JSON list of {"adapter": <0x address or null>, "profileVersion": <${v3Profiles.join('|')}>}, got ${raw}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(problem);
  }
  if (!Array.isArray(parsed)) throw new Error(problem);
  return parsed.map((entry: unknown) => {
    const e = entry as { adapter?: unknown; profileVersion?: unknown };
    const keys = entry && typeof entry === 'object' ? Object.keys(entry).sort().join(',') : '';
    const adapterOk = e.adapter === null || (typeof e.adapter === 'string' && /^0x[0-9a-fA-F]{40}$/.test(e.adapter));
    if (keys !== 'adapter,profileVersion' || !adapterOk || !v3Profiles.includes(e.profileVersion as string)) {
      throw new Error(problem);
    }
    return {
      adapter: e.adapter === null ? null : (e.adapter as string).toLowerCase(),
      profileVersion: e.profileVersion as string,
    };
  });
}

/** BASE_DEPLOYMENT_PATH; required with CHAIN_1_RPC_URLS (a chain without its contracts cannot serve the lane). */
function baseDeploymentPath(env: NodeJS.ProcessEnv): string | null {
  const path = env.BASE_DEPLOYMENT_PATH || null;
  if (env.CHAIN_1_RPC_URLS && !path) {
    throw new Error('CHAIN_1_RPC_URLS needs BASE_DEPLOYMENT_PATH: the base-layer deployment document of that chain');
  }
  return path;
}

/** CHAIN_1_RPC_URLS: none, or exactly two http(s) URLs (the two provider positions of the base-layer readbacks). */
function chain1RpcUrls(env: NodeJS.ProcessEnv): string[] {
  const raw = env.CHAIN_1_RPC_URLS;
  if (raw === undefined || raw.trim() === '') return [];
  const urls = raw.split(',').map((u) => u.trim());
  if (urls.length !== 2 || urls.some((u) => !/^https?:\/\/\S+$/.test(u))) {
    throw new Error(`CHAIN_1_RPC_URLS must be exactly two comma-separated http(s) URLs, got "${raw}"`);
  }
  return urls;
}

function discoveryState(env: NodeJS.ProcessEnv): DiscoveryState {
  const raw = env.DISCOVERY_STATE || 'public';
  const state = discoveryStates.find((s) => s === raw);
  if (!state) throw new Error(`DISCOVERY_STATE must be one of ${discoveryStates.join(', ')}, got "${raw}"`);
  return state;
}

function origin(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PUBLIC_ORIGIN;
  if (!raw) return null;
  if (!/^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/.test(raw)) {
    throw new Error(
      `PUBLIC_ORIGIN must be an origin such as https://api.example or http://127.0.0.1:8787, got "${raw}"`,
    );
  }
  return raw;
}

function privateKey(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (!raw) return null;
  // The message never repeats the value: it is a key.
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new Error(`${name} must be a 0x-prefixed 32-byte hex private key`);
  return raw;
}

/** The devnet's second well-known test account, so a local deployment has a fee recipient it controls. */
export const defaultPlatformFeeRecipient = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Refuses a variable an earlier release read and this one replaced, rather than silently ignoring it. */
function refuseReplaced(env: NodeJS.ProcessEnv): void {
  if (env.LIFECYCLE_MAX_ATTEMPTS) {
    // Silently ignoring it would let an operator believe launches still fail after a few attempts.
    throw new Error(
      'LIFECYCLE_MAX_ATTEMPTS was replaced: transient failures are retried until LIFECYCLE_VALIDATION_DEADLINE_MS (docs/configuration.md)',
    );
  }
}

/** Builds the configuration from environment variables with the embedded defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const inCi = env.CI === 'true' || env.NODE_ENV === 'test' || env.VITEST === 'true';
  refuseReplaced(env);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: int(env, 'PORT', 8787),
    developersPort: env.DEVELOPERS_PORT === 'off' ? null : int(env, 'DEVELOPERS_PORT', 8788),
    databasePath: env.DATABASE_PATH ?? `${projectRoot}var/custom-launch.sqlite`,
    busyTimeoutMs: int(env, 'SQLITE_BUSY_TIMEOUT_MS', 5000),
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : inCi,
    admissionPerHour: intInRange(env, 'ADMISSION_PER_HOUR', 120, 1, 1_000_000),
    admissionPerDay: intInRange(env, 'ADMISSION_PER_DAY', 500, 1, 1_000_000),
    ...processes(env),
    ...observability(env),
    v4BodyLimitBytes: int(env, 'V4_BODY_LIMIT_BYTES', 4 * 1024 * 1024),
    v3BodyLimitBytes: 8_388_608,
    modulesLimits: {
      maxFiles: lowerLimit(env, 'MODULES_MAX_FILES', moduleLimits.maxFiles),
      maxFileBytes: lowerLimit(env, 'MODULES_MAX_FILE_BYTES', moduleLimits.maxFileBytes),
      maxTotalBytes: lowerLimit(env, 'MODULES_MAX_TOTAL_BYTES', moduleLimits.maxTotalBytes),
      maxRequestBytes: lowerLimit(env, 'MODULES_MAX_REQUEST_BYTES', moduleLimits.maxRequestBytes),
      maxPathLength: lowerLimit(env, 'MODULES_MAX_PATH_LENGTH', moduleLimits.maxPathLength),
      maxListPageItems: moduleLimits.maxListPageItems,
    },
    modulesSubmissions: bool(env, 'MODULES_SUBMISSIONS', true),
    modulesApiKeyIssuance: bool(env, 'MODULES_API_KEY_ISSUANCE', false),
    modulesReviewerWallets: (env.MODULES_REVIEWER_WALLETS ?? '')
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean)
      .map((w) => address({ MODULES_REVIEWER_WALLETS: w }, 'MODULES_REVIEWER_WALLETS', '')),
    modulesReviewPollMs: int(env, 'MODULES_REVIEW_POLL_MS', 1000),
    modulesQuoteEnvironmentSourceDigest: sha256DigestEnv(env, 'MODULES_QUOTE_ENVIRONMENT_SOURCE_DIGEST'),
    quoteRetryAfterSeconds: int(env, 'QUOTE_RETRY_AFTER_SECONDS', 30),
    lifecycle: {
      validationDeadlineMs: positiveInt(env, 'LIFECYCLE_VALIDATION_DEADLINE_MS', 24 * 3_600_000),
      permitReissueDecisionWindowMs: positiveInt(env, 'PERMIT_REISSUE_DECISION_WINDOW_MS', 24 * 3_600_000),
      leaseMs: int(env, 'LIFECYCLE_LEASE_MS', 30_000),
      backoffBaseMs: positiveInt(env, 'LIFECYCLE_BACKOFF_MS', 1_000),
      backoffMaxMs: positiveInt(env, 'LIFECYCLE_BACKOFF_MAX_MS', 60_000),
      pollMs: int(env, 'LIFECYCLE_POLL_MS', 250),
      stepDelayMs: int(env, 'LIFECYCLE_STEP_DELAY_MS', 0),
      trackerPollMs: int(env, 'LIFECYCLE_TRACKER_POLL_MS', 2000),
      sourceVerificationPollMs: int(env, 'SOURCE_VERIFICATION_POLL_MS', 2000),
      sourceVerificationRetryBaseMs: int(env, 'SOURCE_VERIFICATION_RETRY_BASE_MS', 30_000),
      sourceVerificationRetryMaxMs: int(env, 'SOURCE_VERIFICATION_RETRY_MAX_MS', 3_600_000),
    },
    chain4663RpcUrls: (env.CHAIN_4663_RPC_URLS ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    chain1RpcUrls: chain1RpcUrls(env),
    baseDeploymentPath: baseDeploymentPath(env),
    multiRoleDeploymentPath: env.MULTI_ROLE_DEPLOYMENT_PATH || null,
    v3: {
      profile340Active: bool(env, 'V3_PROFILE_340_ACTIVE', false),
      fundingAuthorizationWindowSeconds: intInRange(env, 'V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS', 3600, 60, 86_400),
      feeCertifications: feeCertifications(env),
    },
    priceFeedAddress: env.PRICE_FEED_ADDRESS ? address(env, 'PRICE_FEED_ADDRESS', '') : null,
    // This address is reported by third parties, not confirmed by Uniswap: configuration, never a constant.
    canonicalPoolManager: address(env, 'CANONICAL_POOL_MANAGER', '0x8366a39CC670B4001A1121B8F6A443A643e40951'),
    platformFeeRecipient: address(env, 'PLATFORM_FEE_RECIPIENT', defaultPlatformFeeRecipient),
    chainDeploymentPath: env.CHAIN_DEPLOYMENT_PATH || null,
    permitAttesterKey: privateKey(env, 'PERMIT_ATTESTER_KEY'),
    sourceVerificationRegistryPath: env.SOURCE_VERIFICATION_REGISTRY_PATH || null,
    discovery: {
      serviceOrigin: origin(env),
      publicAuthorization: bool(env, 'DISCOVERY_PUBLIC_AUTHORIZATION', true),
      publicWrites: bool(env, 'DISCOVERY_PUBLIC_WRITES', true),
      releaseReady: bool(env, 'DISCOVERY_RELEASE_READY', true),
      state: discoveryState(env),
    },
    ...timeouts(env),
  };
}

/** How many server processes serve the file, and each route's budget across them (docs/configuration.md). */
function processes(env: NodeJS.ProcessEnv): Pick<Config, 'workers' | 'routeBudgetPerMinute'> {
  const workers = intInRange(env, 'WORKERS', 1, 1, 64);
  // Each process would open its own empty in-memory database: there would be no one file to share.
  if (workers > 1 && env.DATABASE_PATH === ':memory:')
    throw new Error('WORKERS above 1 needs DATABASE_PATH to be a file');
  return { routeBudgetPerMinute: int(env, 'ROUTE_BUDGET_PER_MINUTE', 600), workers };
}

/** The logs, the metrics listener and the shutdown's grace (docs/configuration.md). */
function observability(env: NodeJS.ProcessEnv): Pick<Config, 'logLevel' | 'metrics' | 'shutdownGraceMs'> {
  const level = (env.LOG_LEVEL ?? '').trim().toLowerCase();
  if (level !== '' && !(logLevels as readonly string[]).includes(level)) {
    throw new Error(`LOG_LEVEL must be one of ${logLevels.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const token = env.METRICS_TOKEN ?? '';
  if (token !== '' && token.length < 16) throw new Error('METRICS_TOKEN must be at least 16 characters');
  return {
    logLevel: levelOf(level),
    metrics: {
      port: env.METRICS_PORT === undefined || env.METRICS_PORT === 'off' ? null : int(env, 'METRICS_PORT', 0),
      host: env.METRICS_HOST ?? '127.0.0.1',
      token: token === '' ? null : token,
    },
    shutdownGraceMs: intInRange(env, 'SHUTDOWN_GRACE_MS', 10_000, 100, 600_000),
  };
}

/** The listeners' timeouts and the chain reads' timings (docs/configuration.md). */
function timeouts(env: NodeJS.ProcessEnv): Pick<Config, 'http' | 'chainRpcTimeoutMs' | 'deploymentEvidenceRetryMs'> {
  return { http: httpTimeouts(env), ...chainReadTimings(env) };
}

/** Node's timeouts on both listeners (docs/configuration.md): 66 s for the headers, 300 s for a whole request. */
function httpTimeouts(env: NodeJS.ProcessEnv): Config['http'] {
  return {
    headersTimeoutMs: positiveInt(env, 'HTTP_HEADERS_TIMEOUT_MS', 66_000),
    requestTimeoutMs: positiveInt(env, 'HTTP_REQUEST_TIMEOUT_MS', 300_000),
  };
}

/** CHAIN_RPC_TIMEOUT_MS and DEPLOYMENT_EVIDENCE_RETRY_MS: how long a provider is waited for, how soon evidence is retried. */
function chainReadTimings(env: NodeJS.ProcessEnv): Pick<Config, 'chainRpcTimeoutMs' | 'deploymentEvidenceRetryMs'> {
  return {
    chainRpcTimeoutMs: positiveInt(env, 'CHAIN_RPC_TIMEOUT_MS', 20_000),
    deploymentEvidenceRetryMs: positiveInt(env, 'DEPLOYMENT_EVIDENCE_RETRY_MS', 10_000),
  };
}
