import { randomBytes } from 'node:crypto';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { example, unboundReference, v4Example } from './server.ts';

/**
 * The V4 4.1.0 create example as a launch intent of its own: a fresh random nonce, so its launchIntentHash and its
 * funding nonce differ from every other request's, every binding recomputed. Byte-stable once made: resend the same
 * string for a replay. `unbound` adds the external reference nobody bound, so the lifecycle ends the launch in
 * action_required (one more transition) even without a chain.
 */
export function distinctV4Bytes(options: { unbound?: boolean } = {}): string {
  const request = example<CustomLaunchCreateRequestV4>(v4Example);
  request.nonce = `0x${randomBytes(32).toString('hex')}`;
  if (options.unbound) request.externalContracts = [structuredClone(unboundReference)];
  return JSON.stringify(bindRequestHashes(request));
}
