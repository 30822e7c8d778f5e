import { type Address, type Hex, keccak256, toHex } from 'viem';
import type { TokenEip712Domain } from '../../chain/funding-token.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import type { BaseFundingAuthorizationView } from './lifecycle-context.ts';

/** The funding authorization's typed data (spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData). */
export type BaseFundingTypedData = NonNullable<BaseFundingAuthorizationView['typedData']>;

/** The code a launch ends with when its funding authorization expires or its nonce is used without it. */
export const fundingExpiredCode = 'V3_FUNDING_AUTHORIZATION_EXPIRED';

/**
 * The EIP-3009 nonce bound to a launch: keccak256 of the UTF-8 string
 * "platform.v3-funding-authorization:<launchId>:<launchIntentHash>" (FundingTypedData.message.nonce).
 */
export function fundingNonceOf(launchId: string, launchIntentHash: string): Hex {
  return keccak256(toHex(`platform.v3-funding-authorization:${launchId}:${launchIntentHash}`));
}

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
  return {
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: 1,
      verifyingContract: domain.verifyingContract.toLowerCase(),
    },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      ReceiveWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: row.launch_wallet,
      to: router,
      value: amount,
      validAfter: '0',
      validBefore: validBefore.toString(),
      nonce: fundingNonceOf(row.launch_id, row.launch_intent_hash),
    },
  } as BaseFundingTypedData;
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
