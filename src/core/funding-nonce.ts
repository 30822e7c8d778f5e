import type { Hex } from 'viem';
import { canonicalJson, sha256Digest } from './canonical-json.ts';

/**
 * The funding nonce of a profile 4.1.0 request (spec/schemas/custom-launch-create-request.v4.schema.json, LaunchNonce):
 * 16 bytes of fresh entropy, then the first 16 bytes of the SHA-256 of the RFC 8785 canonical JSON of the derivation
 * record over the chain, the lowercase launch wallet, the funding plan hash and that entropy. Project design.
 */
export function fundingNonceOf(entropy: Hex, launchWallet: string, fundingPlanHash: string): Hex {
  const record = {
    schemaVersion: 'platform.custom-launch-funding-nonce.v1',
    chainId: '4663',
    launchWallet: launchWallet.toLowerCase(),
    fundingPlanHash,
    entropy: entropy.toLowerCase(),
  };
  const derived = sha256Digest(canonicalJson(record)).slice('sha256:'.length, 'sha256:'.length + 32);
  return `${entropy.toLowerCase()}${derived}` as Hex;
}

/** The entropy half of a nonce: its first 16 bytes. */
export function fundingNonceEntropy(nonce: string): Hex {
  return nonce.slice(0, 2 + 32).toLowerCase() as Hex;
}

/**
 * Whether a 4.1.0 request's nonce follows the funding-nonce derivation from its own launchWallet and fundingPlanHash
 * (the condition of FUNDING_NONCE_CONFORMANCE_UNPROVEN is its negation).
 */
export function followsFundingNonceDerivation(request: {
  nonce: string;
  launchWallet: string;
  fundingPlan: { fundingPlanHash: string };
}): boolean {
  const expected = fundingNonceOf(
    fundingNonceEntropy(request.nonce),
    request.launchWallet,
    request.fundingPlan.fundingPlanHash,
  );
  return expected === request.nonce;
}
