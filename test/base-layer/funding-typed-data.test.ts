import { type Address, type Hex, keccak256, toHex, verifyTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  fundingAuthorizationNonceOf,
  receiveWithAuthorizationTypedData,
} from '../../src/core/funding-authorization.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';

// spec/schemas/custom-launch-resource.v3.schema.json FundingTypedData: the typed data the controller signs.
describe('the EIP-3009 funding authorization typed data', () => {
  const launchId = '0b6a3f1e-8c5d-4e2a-9f7b-1c2d3e4f5a6b';
  const intent = `sha256:${'ab'.repeat(32)}`;
  const account = privateKeyToAccount(devnetOperatorKey);
  const typedData = receiveWithAuthorizationTypedData({
    domain: { name: 'Devnet USD', version: '2', verifyingContract: '0xdc64a140aa3e981100a9beca4e685f962f0cf6c9' },
    from: account.address,
    to: '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9',
    value: '250000000',
    validAfter: 0n,
    validBefore: 1_800_000_000n,
    nonce: fundingAuthorizationNonceOf(launchId, intent),
  });

  it('binds the nonce to the launch: keccak256 of platform.v3-funding-authorization:<launchId>:<intent>', () => {
    expect(typedData.message.nonce).toBe(keccak256(toHex(`platform.v3-funding-authorization:${launchId}:${intent}`)));
    expect(fundingAuthorizationNonceOf(launchId, `sha256:${'cd'.repeat(32)}`)).not.toBe(typedData.message.nonce);
  });

  it('is the schema shape, and a wallet signature over it verifies for the signer only', async () => {
    expect(schemaProblems('custom-launch-resource.v3.schema.json#/$defs/FundingTypedData', typedData)).toEqual([]);
    const typed = {
      domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as Address },
      types: { ReceiveWithAuthorization: typedData.types.ReceiveWithAuthorization },
      primaryType: 'ReceiveWithAuthorization' as const,
      message: {
        from: typedData.message.from as Address,
        to: typedData.message.to as Address,
        value: BigInt(typedData.message.value),
        validAfter: BigInt(typedData.message.validAfter),
        validBefore: BigInt(typedData.message.validBefore),
        nonce: typedData.message.nonce as Hex,
      },
    };
    const signature = await account.signTypedData(typed);
    expect(await verifyTypedData({ ...typed, address: account.address, signature })).toBe(true);
    const stranger = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    expect(await verifyTypedData({ ...typed, address: stranger, signature })).toBe(false);
  });
});
