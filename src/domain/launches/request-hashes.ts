import type { components } from '../../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../canonical-json.ts';

type CreateRequestV4 = components['schemas']['CustomLaunchCreateRequestV4'];
type FundingPlan = components['schemas']['FundingPlanV2'];
type GraphBundle = components['schemas']['GraphBundle'];

/** `sha256:` digest of a value's RFC 8785 canonical JSON (spec/README.md, Conventions). */
export function digestOf(value: unknown): string {
  return sha256Digest(canonicalJson(value));
}

/** projectMetadataHash: the digest of projectMetadata (launch-transport.md What the service does 9). */
export function projectMetadataHashOf(request: Pick<CreateRequestV4, 'projectMetadata'>): string {
  return digestOf(request.projectMetadata);
}

/** fundingPlanHash: the digest of the plan without that field (funding-plan.v2.schema.json). */
export function fundingPlanHashOf(plan: FundingPlan): string {
  const { fundingPlanHash: _hash, ...unhashed } = plan;
  return digestOf(unhashed);
}

/** graphBundleDigest: the digest of the bundle without that field (custom-launch-create-request.v4.schema.json). */
export function graphBundleDigestOf(bundle: GraphBundle): string {
  const { graphBundleDigest: _digest, ...unhashed } = bundle;
  return digestOf(unhashed);
}

/** launchIntentHash: the digest of the request without launchIntentHash and agentAttestation. */
export function launchIntentHashOf(request: CreateRequestV4): string {
  const { launchIntentHash: _hash, agentAttestation: _attestation, ...intent } = request;
  return digestOf(intent);
}

/**
 * Recomputes every hash binding of a request after an edit, inner ones first (the graph digest, metadata and plan
 * hashes, then the intent hash over them). Packers and tests use it; the server only ever checks the bindings.
 */
export function bindRequestHashes(request: CreateRequestV4): CreateRequestV4 {
  const bound = structuredClone(request);
  bound.graphBundle.graphBundleDigest = graphBundleDigestOf(bound.graphBundle);
  bound.projectMetadataHash = projectMetadataHashOf(bound);
  if (bound.profile === '4.1.0') {
    bound.fundingPlan.fundingPlanHash = fundingPlanHashOf(bound.fundingPlan);
    bound.funding.fundingPlanHash = bound.fundingPlan.fundingPlanHash;
  }
  bound.launchIntentHash = launchIntentHashOf(bound);
  return bound;
}
