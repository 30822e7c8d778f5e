import type { Config } from '../../config.ts';
import type { FindingCode } from '../launches/finding-codes.ts';
import { type EvidenceStateKind, evidenceCheck } from './deployment-evidence-check.ts';

/**
 * What runs in this server process, as the public documents (capabilities, discovery manifest, launch guide,
 * coverage report) describe it. main.ts builds the chain gates (LaunchAuthorizer, the tracker and the source
 * verifier) exactly when the configuration binds a chain deployment, and only then watches its deployment evidence.
 */
export interface RunningGates {
  /** The chain gates run: the state of their bound deployment evidence. Null: no chain gates run. */
  chainGates: { evidence: EvidenceStateKind } | null;
  /** A native/USD price source is configured (CHAIN_4663_RPC_URLS and PRICE_FEED_ADDRESS). */
  priceFeed: boolean;
  /** The operator's source-verification registry is configured (SOURCE_VERIFICATION_REGISTRY_PATH). */
  sourceVerificationRegistry: boolean;
}

/**
 * The running gates of this process: the chain gates run exactly when their deployment evidence is watched
 * (src/services.ts), so the evidence's presence says they run.
 */
export function runningGates(
  config: Pick<Config, 'sourceVerificationRegistryPath'>,
  evidence: EvidenceStateKind | undefined,
  priceFeed: boolean,
): RunningGates {
  return {
    chainGates: evidence ? { evidence } : null,
    priceFeed,
    sourceVerificationRegistry: config.sourceVerificationRegistryPath !== null,
  };
}

/** Whether a V4 launch can reach its wallet handoff now, and the public codes of why not. */
export interface WritesGate {
  open: boolean;
  reasons: FindingCode[];
}

/**
 * The one decision behind capabilities `writes` and the discovery manifest's `publicWrites`, `releaseReady` and
 * `reasons`: writes are open only when the chain gates run and their deployment evidence is verified.
 * Spec: custom-launch-capabilities.v2.schema.json (writes), discovery-manifest.v1.schema.json (DiscoveryReasons).
 */
export function writesGate(gates: RunningGates): WritesGate {
  if (!gates.chainGates) return { open: false, reasons: ['CHAIN_NOT_CONFIGURED'] };
  const check = evidenceCheck(gates.chainGates.evidence);
  return check.reason ? { open: false, reasons: [check.reason] } : { open: true, reasons: [] };
}
