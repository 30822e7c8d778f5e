import type { CustomLaunchCreateRequestV4, CustomLaunchResourceV4 } from '../../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';

type ProjectMetadata = NonNullable<CustomLaunchResourceV4['boundMetadata']>['projectMetadata'];

/** The metadata a wallet review shows, checked against projectMetadataHash (and the request bytes, when given). */
export interface CheckedMetadata {
  projectMetadataHash: string;
  projectMetadata: ProjectMetadata;
  /** The image bytes, from the exact request bytes, checked against image.sha256; null without those bytes. */
  image: { bytes: Buffer; mediaType: ProjectMetadata['image']['mediaType'] } | null;
  /** What the metadata was checked against: the resource's projectMetadataHash alone, or also the request bytes. */
  checkedAgainst: 'resource' | 'request-bytes';
}

/** Why the bound metadata cannot be shown as the launch's: the wallet review must stop. */
export class BoundMetadataMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BoundMetadataMismatch';
  }
}

/**
 * The launch metadata of a resource's wallet review (custom-launch-resource.v4.schema.json boundMetadata:
 * the wallet review shows the same bound metadata read-only), shown
 * only once it is the bound one: the digest of its RFC 8785 canonical JSON equals projectMetadataHash. With the
 * exact request bytes (a submit journal's, or the request file), those bytes must be the launch's (their SHA-256 is
 * requestDigest), bind the same metadata and hash, and carry the image whose SHA-256 the metadata names. Throws
 * BoundMetadataMismatch otherwise.
 */
export function checkBoundMetadata(launch: CustomLaunchResourceV4, requestBytes?: Buffer): CheckedMetadata {
  const bound = launch.boundMetadata;
  if (!bound) {
    throw new BoundMetadataMismatch(
      `launch ${launch.launchId} carries no bound metadata beside its wallet transaction; do not sign without reviewing it`,
    );
  }
  const digest = sha256Digest(canonicalJson(bound.projectMetadata));
  if (digest !== bound.projectMetadataHash) {
    throw new BoundMetadataMismatch(
      `the metadata shown for launch ${launch.launchId} hashes to ${digest}, not its projectMetadataHash ${bound.projectMetadataHash}; do not sign`,
    );
  }
  if (requestBytes === undefined) {
    return { ...bound, image: null, checkedAgainst: 'resource' };
  }
  const bytesDigest = sha256Digest(requestBytes);
  if (bytesDigest !== launch.requestDigest) {
    throw new BoundMetadataMismatch(
      `the given request bytes (${bytesDigest}) are not those of launch ${launch.launchId} (requestDigest ${launch.requestDigest})`,
    );
  }
  const request = JSON.parse(requestBytes.toString('utf8')) as CustomLaunchCreateRequestV4;
  if (
    request.projectMetadataHash !== bound.projectMetadataHash ||
    sha256Digest(canonicalJson(request.projectMetadata)) !== bound.projectMetadataHash
  ) {
    throw new BoundMetadataMismatch(
      `the request bytes of launch ${launch.launchId} bind other metadata than the resource shows; do not sign`,
    );
  }
  const artifact = request.projectMetadataImageArtifact;
  const image = Buffer.from(artifact.bytesBase64, 'base64');
  const imageDigest = sha256Digest(image);
  if (
    imageDigest !== bound.projectMetadata.image.sha256 ||
    artifact.mediaType !== bound.projectMetadata.image.mediaType
  ) {
    throw new BoundMetadataMismatch(
      `the image in the request bytes (${imageDigest}, ${artifact.mediaType}) is not the image the metadata binds (${bound.projectMetadata.image.sha256}, ${bound.projectMetadata.image.mediaType})`,
    );
  }
  return { ...bound, image: { bytes: image, mediaType: artifact.mediaType }, checkedAgainst: 'request-bytes' };
}
