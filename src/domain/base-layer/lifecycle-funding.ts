import type { Address } from 'viem';
import type { TokenEip712Domain } from '../../chain/funding-token.ts';
import { fundingAuthorizationNonceOf, receiveWithAuthorizationTypedData } from '../../core/funding-authorization.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import type { BaseFundingAuthorizationView } from './lifecycle-context.ts';

/** The funding authorization's typed data (spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData). */
export type BaseFundingTypedData = NonNullable<BaseFundingAuthorizationView['typedData']>;

/** The code a launch ends with when its funding authorization expires or its nonce is used without it. */
export const fundingExpiredCode = 'V3_FUNDING_AUTHORIZATION_EXPIRED';

/**
 * The ReceiveWithAuthorization typed data the controller signs: the token's domain as read on chain 1, from the
 * launch wallet to the lane's router, the request's amount, valid from 0 until `validBefore` (seconds), and the
 * launch's nonce.
 */
export function fundingTypedData(
  row: Pick<BaseLaunchRow, 'launch_id' | 'launch_intent_hash' | 'launch_wallet'>,
  domain: TokenEip712Domain,
  router: Address,
  amount: string,
  validBefore: bigint,
): BaseFundingTypedData {
  return receiveWithAuthorizationTypedData({
    domain: { ...domain, verifyingContract: domain.verifyingContract.toLowerCase() },
    from: row.launch_wallet,
    to: router,
    value: amount,
    validAfter: 0n,
    validBefore,
    nonce: fundingAuthorizationNonceOf(row.launch_id, row.launch_intent_hash),
  });
}

/** The stored funding authorization of an eip3009 launch, or null (native, or before its typed data). */
export function storedFundingOf(
  row: Pick<BaseLaunchRow, 'funding_authorization_json'>,
): BaseFundingAuthorizationView | null {
  return row.funding_authorization_json
    ? (JSON.parse(row.funding_authorization_json) as BaseFundingAuthorizationView)
    : null;
}

/** Whether the funding authorization's window has closed at `nowMs` (now >= validBefore); false without one. */
export function fundingWindowClosed(funding: BaseFundingAuthorizationView | null, nowMs: number): boolean {
  const validBefore = funding?.typedData?.message.validBefore;
  return validBefore !== undefined && BigInt(Math.floor(nowMs / 1000)) >= BigInt(validBefore);
}
