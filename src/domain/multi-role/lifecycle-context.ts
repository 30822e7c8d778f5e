import type {
  MultiRoleCustomLaunchCreateRequestV2,
  MultiRoleCustomLaunchResourceV2,
} from '../../../generated/types/service.ts';
import type { PermitAttester } from '../../chain/launch-permit.ts';
import type { MultiRoleLaunchChain } from '../../chain/multi-role-launch-chain.ts';
import type { Db } from '../../store/db.ts';
import type { BuiltMultiRoleGraph, MultiRoleGraphBuild } from './build.ts';
import type { MultiRoleLaunchRow } from './launch-store.ts';

/** The exact wallet transaction (spec/schemas/multi-role-resource.v2.schema.json WalletTransaction). */
export type MultiRoleWalletTransaction = NonNullable<MultiRoleCustomLaunchResourceV2['walletTransaction']>;

/** A verification requirement the review could not meet (missingVerificationRequirements of the resource). */
export type MultiRoleVerificationRequirement =
  MultiRoleCustomLaunchResourceV2['missingVerificationRequirements'][number];

/** What the lifecycle review of a built launch found (the Finding of spec/schemas/multi-role-preflight.v2.schema.json). */
export interface MultiRoleReviewOutcome {
  findings: ReadonlyArray<{ code: string; severity: 'blocking' | 'needs_evidence' | 'warning' }>;
  missingVerificationRequirements: readonly MultiRoleVerificationRequirement[];
}

/**
 * The shared lane's admission rules the lifecycle runs (src/domain/multi-role/build.ts and admission-review.ts): the
 * pinned rebuild of the graph and the review of the built graph with its chain checks. The composition root
 * (src/services.ts) gives the real ones; the lifecycle only calls them.
 */
export interface MultiRoleLaunchRules {
  build(request: MultiRoleCustomLaunchCreateRequestV2): Promise<MultiRoleGraphBuild>;
  review(
    request: MultiRoleCustomLaunchCreateRequestV2,
    build: BuiltMultiRoleGraph,
    chain: MultiRoleLaunchChain,
  ): Promise<MultiRoleReviewOutcome>;
}

/** What the shared lane's lifecycle steps read and call: the store, the admission rules, chain 4663, the attester. */
export interface MultiRoleLifecycleContext {
  db: Db;
  rules: MultiRoleLaunchRules;
  /** Chain 4663 through both providers and the lane's deployment; null without CHAIN_4663_RPC_URLS. */
  chain: MultiRoleLaunchChain | null;
  /** Signs the launch permits for the lane's PermitAuthority; null without PERMIT_ATTESTER_KEY. */
  attester: PermitAttester | null;
  now: () => number;
}

/**
 * build_json: the pinned build the review read (every target's init code), and from `simulating` on what the
 * simulation measured (gas, gas price and their product, in wei, as decimal strings).
 */
export interface StoredMultiRoleBuild {
  build: BuiltMultiRoleGraph;
  simulation?: { gasUsed: string; gasPriceWei: string; gasCostWei: string };
}

/** The immutable request of a stored launch. */
export function multiRoleRequestOf(row: MultiRoleLaunchRow): MultiRoleCustomLaunchCreateRequestV2 {
  return JSON.parse(row.request_bytes.toString('utf8')) as MultiRoleCustomLaunchCreateRequestV2;
}

/** The stored build of a launch past validating. */
export function storedMultiRoleBuildOf(row: MultiRoleLaunchRow): StoredMultiRoleBuild {
  if (!row.build_json) throw new Error(`launch ${row.launch_id} has no stored build`);
  return JSON.parse(row.build_json) as StoredMultiRoleBuild;
}
