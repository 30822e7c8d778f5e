import { readFileSync } from 'node:fs';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import { multiRoleLaunchIntentHashOf, multiRoleProjectMetadataHashOf } from '../../src/core/multi-role-graph.ts';

/** The packed example (spec/examples/multi-role-create-request.v2.json): account 0, nonce 1, the devnet's lane. */
export const multiRoleExample = (): MultiRoleCustomLaunchCreateRequestV2 =>
  JSON.parse(
    readFileSync(new URL('../../spec/examples/multi-role-create-request.v2.json', import.meta.url), 'utf8'),
  ) as MultiRoleCustomLaunchCreateRequestV2;

/** The request with projectMetadataHash and launchIntentHash bound again over its current content. */
export function sealMultiRoleRequest(
  request: MultiRoleCustomLaunchCreateRequestV2,
): MultiRoleCustomLaunchCreateRequestV2 {
  const withMetadata = { ...request, projectMetadataHash: multiRoleProjectMetadataHashOf(request) };
  return { ...withMetadata, launchIntentHash: multiRoleLaunchIntentHashOf(withMetadata) };
}

/** The example with `change` applied (a fresh nonce unless it names one), sealed. */
export function multiRoleRequest(
  change: (request: MultiRoleCustomLaunchCreateRequestV2) => void = () => {},
  nonce?: string,
): MultiRoleCustomLaunchCreateRequestV2 {
  const request = multiRoleExample();
  request.nonce = nonce ?? String(1000 + ++sequence);
  change(request);
  return sealMultiRoleRequest(request);
}
let sequence = 0;

/** The exact bytes a request is sent as. */
export const multiRoleRequestBytes = (request: MultiRoleCustomLaunchCreateRequestV2): Buffer =>
  Buffer.from(JSON.stringify(request), 'utf8');
