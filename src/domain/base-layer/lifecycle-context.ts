import type { Address } from 'viem';
import type { CustomLaunchCreateRequestV3, CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { BaseLaunchChain } from '../../chain/base-launch-chain.ts';
import type { PermitAttester } from '../../chain/launch-permit.ts';
import type { Db } from '../../store/db.ts';
import type { BuiltBaseGraph } from './build.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import type { BaseLaunchRules } from './lifecycle-rules.ts';

/** The exact wallet transaction (spec/schemas/custom-launch-resource.v3.schema.json WalletTransaction). */
export type BaseWalletTransaction = NonNullable<CustomLaunchResourceV3['walletTransaction']>;
/** The funding authorization of an eip3009 launch as the resource shows it. */
export type BaseFundingAuthorizationView = NonNullable<CustomLaunchResourceV3['fundingAuthorization']>;

/** What the lifecycle steps read and call: the store, the admission rules, chain 1 and the permit attester. */
export interface BaseLifecycleContext {
  db: Db;
  rules: BaseLaunchRules;
  /** Chain 1 through both providers; null without CHAIN_1_RPC_URLS and BASE_DEPLOYMENT_PATH. */
  chain: BaseLaunchChain | null;
  /** Signs the launch permits for chain 1's PermitAuthority; null without PERMIT_ATTESTER_KEY. */
  attester: PermitAttester | null;
  now: () => number;
  /** V3_FUNDING_AUTHORIZATION_WINDOW_SECONDS. */
  fundingWindowSeconds: number;
}

/**
 * build_json: the pinned build the review read, every target's init code, and from `prepared` on the exact wallet
 * transaction under preparation. That transaction stays here, out of the resource, until the simulation passes:
 * wallet_transaction_json holds it only from `authorized` on (the resource shows that column as walletTransaction).
 */
export interface StoredBaseBuild {
  build: BuiltBaseGraph;
  prepared?: { transaction: BaseWalletTransaction; permitExpiresAt: string };
}

/** The immutable request of a stored launch. */
export function baseRequestOf(row: BaseLaunchRow): CustomLaunchCreateRequestV3 {
  return JSON.parse(row.request_bytes.toString('utf8')) as CustomLaunchCreateRequestV3;
}

/** The stored build of a launch past validating. */
export function storedBuildOf(row: BaseLaunchRow): StoredBaseBuild {
  if (!row.build_json) throw new Error(`launch ${row.launch_id} has no stored build`);
  return JSON.parse(row.build_json) as StoredBaseBuild;
}

/** The launch wallet as an address. */
export function walletOf(row: Pick<BaseLaunchRow, 'launch_wallet'>): Address {
  return row.launch_wallet as Address;
}
