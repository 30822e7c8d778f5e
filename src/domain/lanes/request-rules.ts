import { createHash } from 'node:crypto';
import type { Principal } from '../../auth/keys.ts';
import type { ImageInspection, MetadataImageMediaType } from '../../core/image.ts';
import { ApiError } from '../../errors/api-error.ts';

/** One broken request rule: where (a JSON pointer into the request) and what. */
export type RuleIssue = { location: string; message: string };

/**
 * The request rules every lane checks first, before any other: a wallet key's wallet must be the request's
 * launchWallet (403 WALLET_MISMATCH; a partner credential gets no wallet authority from naming one), and the exact
 * bytes are at most `maxBytes` (413 PAYLOAD_TOO_LARGE). Spec: the server rules in the `$comment` of
 * spec/schemas/custom-launch-create-request.v3.schema.json and multi-role-create-request.v2.schema.json.
 */
export function checkLaneEnvelope(
  principal: Principal,
  launchWallet: string,
  rawBytes: Buffer,
  maxBytes: number,
): void {
  if (principal.kind === 'wallet' && principal.wallet?.toLowerCase() !== launchWallet.toLowerCase()) {
    throw new ApiError('WALLET_MISMATCH');
  }
  if (rawBytes.length > maxBytes) {
    throw new ApiError('PAYLOAD_TOO_LARGE', {
      message: `The request is ${rawBytes.length} bytes; the limit is ${maxBytes}.`,
    });
  }
}

/** Every broken rule in one 400 INVALID_REQUEST (its issues list them all), or nothing when none is. */
export function rejectRuleIssues(issues: readonly RuleIssue[]): void {
  if (issues.length === 0) return;
  throw new ApiError('INVALID_REQUEST', {
    message: `The request breaks ${issues.length} request rule(s); first: ${issues[0]?.location} ${issues[0]?.message}`,
    issues: [...issues],
  });
}

/** A request's metadata image: its declared type, digest, length and base64 bytes. */
export interface LaneImage {
  mediaType: string;
  sha256: string;
  byteLength: number;
  contentBase64: string;
}

/**
 * An image's sha256 and byteLength describe its bytes, and the bytes decode as the declared media type under the
 * lane's `inspect` (src/core/image.ts). Spec: Image of spec/schemas/custom-launch-create-request.v3.schema.json and
 * multi-role-create-request.v2.schema.json.
 */
export function imageRuleIssues(
  image: LaneImage,
  at: string,
  inspect: (bytes: Uint8Array, mediaType: string) => ImageInspection<MetadataImageMediaType>,
): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const bytes = Buffer.from(image.contentBase64, 'base64');
  if (bytes.length !== image.byteLength) {
    issues.push({ location: `${at}/byteLength`, message: `is ${image.byteLength} but the bytes are ${bytes.length}` });
  }
  if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` !== image.sha256) {
    issues.push({ location: `${at}/sha256`, message: 'does not match the image bytes' });
  }
  const decoded = inspect(bytes, image.mediaType);
  if (!decoded.ok) {
    issues.push({
      location: `${at}/contentBase64`,
      message: `does not decode as ${image.mediaType}: ${decoded.code}, ${decoded.detail}`,
    });
  }
  return issues;
}
