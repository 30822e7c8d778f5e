import { randomBytes } from 'node:crypto';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { example, v4Example } from './server.ts';

/**
 * The V4 4.1.0 create example as a launch intent of its own: a fresh random nonce, so its launchIntentHash and its
 * funding nonce differ from every other request's, every binding recomputed. Byte-stable once made: resend the same
 * string for a replay.
 */
export function distinctV4Bytes(): string {
  const request = example<CustomLaunchCreateRequestV4>(v4Example);
  request.nonce = `0x${randomBytes(32).toString('hex')}`;
  return JSON.stringify(bindRequestHashes(request));
}
