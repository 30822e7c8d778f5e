import { type Hex, keccak256, toHex } from 'viem';
import type { CustomLaunchFundingTypedDataV3 } from '../../generated/types/service.ts';

/**
 * The EIP-3009 nonce bound to a base-layer launch: keccak256 of the UTF-8 string
 * "platform.v3-funding-authorization:<launchId>:<launchIntentHash>"
 * (spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData.message.nonce).
 */
export function fundingAuthorizationNonceOf(launchId: string, launchIntentHash: string): Hex {
  return keccak256(toHex(`platform.v3-funding-authorization:${launchId}:${launchIntentHash}`));
}

/**
 * An EIP-3009 ReceiveWithAuthorization as eth_signTypedData_v4 takes it, on chain 1
 * (spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData): the token's domain, then the message.
 */
export function receiveWithAuthorizationTypedData(input: {
  domain: { name: string; version: string; verifyingContract: string };
  from: string;
  to: string;
  value: string;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}): CustomLaunchFundingTypedDataV3 {
  return {
    domain: {
      name: input.domain.name,
      version: input.domain.version,
      chainId: 1,
      verifyingContract: input.domain.verifyingContract,
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
      from: input.from,
      to: input.to,
      value: input.value,
      validAfter: input.validAfter.toString(),
      validBefore: input.validBefore.toString(),
      nonce: input.nonce,
    },
  } as CustomLaunchFundingTypedDataV3;
}
