/**
 * Codes of the client's own checks, made before any network request (pack, and the request check of preflight and
 * submit). The image codes are those of the server's image finding (src/core/image.ts).
 */
export type LocalCheckCode =
  | 'PROJECT_MANIFEST_MISSING'
  | 'PROJECT_MANIFEST_INVALID'
  | 'PROJECT_FILE_UNREADABLE'
  | 'SOURCE_COMPILE_FAILED'
  | 'SOURCE_FILE_CHANGED'
  | 'CHAIN_DEPLOYMENT_UNREADABLE'
  | 'FUNDING_PLAN_UNBALANCED'
  | 'REQUEST_UNREADABLE'
  | 'REQUEST_INVALID'
  | 'IMAGE_REFUSED'
  | 'CAPABILITIES_MISMATCH'
  | 'PERMIT_REISSUE_NOT_AWAITED';

/** A local check failed: nothing was sent anywhere. The CLI exits 3 with the message. */
export class LocalCheckError extends Error {
  constructor(
    readonly code: LocalCheckCode,
    message: string,
  ) {
    super(message);
    this.name = 'LocalCheckError';
  }
}
