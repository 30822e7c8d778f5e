/**
 * The one closed table of public error codes: HTTP status, whether the same bytes may be retried, and the default
 * message. spec/schemas/api-error.schema.json `$defs.ApiErrorCode` must list exactly these codes
 * (test/errors/error-table.test.ts walks both ways). The statuses and retry rules are those the operations of
 * spec/openapi/service.openapi.yaml answer with (spec/openapi/components/responses.yaml).
 */
export const errorTable = {
  INVALID_REQUEST: { status: 400, retryable: false, message: 'The request does not match the contract.' },
  MALFORMED_JSON: { status: 400, retryable: false, message: 'The request body is not valid JSON.' },
  UNAUTHENTICATED: { status: 401, retryable: false, message: 'Missing or invalid API key; verify the configured key.' },
  INSUFFICIENT_SCOPE: { status: 403, retryable: false, message: 'The API key lacks the scope this operation needs.' },
  CHAIN_NOT_ALLOWED: { status: 403, retryable: false, message: 'The API key has no grant for this chain.' },
  WALLET_MISMATCH: {
    status: 403,
    retryable: false,
    message: 'launchWallet must equal the wallet the API key is bound to.',
  },
  NOT_FOUND: {
    status: 404,
    retryable: false,
    message: 'Not found: check the identifier, chain and credential lineage.',
  },
  TOKEN_LIST_EMPTY: {
    status: 404,
    retryable: false,
    message:
      'No finalized launch has a token that fits the token-lists format yet; a token list holds at least one token.',
  },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, message: 'The method is not allowed on this path.' },
  CHAIN_MISMATCH: {
    status: 409,
    retryable: false,
    message: 'The path chainId does not equal the chainId bound in the request.',
  },
  IDEMPOTENCY_CONFLICT: {
    status: 409,
    retryable: false,
    message: 'This Idempotency-Key was already used with different request bytes.',
  },
  CUSTOM_LAUNCH_V2_READ_ONLY: {
    status: 409,
    retryable: false,
    message: 'V2 custom launches are read-only history; new creation is permanently refused.',
  },
  CUSTOM_LAUNCH_V1_READ_ONLY: {
    status: 409,
    retryable: false,
    message: 'V1 custom launches are read-only history; new creation is permanently refused.',
  },
  PROFILE_NOT_ACTIVE: {
    status: 409,
    retryable: false,
    message: 'Profile 3.4.0 is preparatory and refused until an operator activates it; use the default profile 3.3.0.',
  },
  FUNDING_AUTHORIZATION_NOT_AWAITED: {
    status: 409,
    retryable: false,
    message:
      'The launch is not awaiting a funding authorization (it has native funding, or its status is before or past awaiting_funding_authorization).',
  },
  FUNDING_AUTHORIZATION_SIGNER_MISMATCH: {
    status: 409,
    retryable: false,
    message:
      "The signature does not recover to launchWallet over the launch's exact typed data; sign fundingAuthorization.typedData unchanged with the controller wallet.",
  },
  FUNDING_AUTHORIZATION_NONCE_USED: {
    status: 409,
    retryable: false,
    message: "The authorization nonce is already used or cancelled on chain 1; this launch's funding cannot complete.",
  },
  FUNDING_AUTHORIZATION_WINDOW_CLOSED: {
    status: 409,
    retryable: false,
    message: 'The authorization window (validAfter to validBefore) is not open now.',
  },
  FUNDING_AUTHORIZATION_BALANCE_INSUFFICIENT: {
    status: 409,
    retryable: false,
    message:
      'launchWallet holds less of the funding token than the authorized amount; fund the wallet, then send the signature again.',
  },
  WALLET_KEY_REQUIRED: {
    status: 403,
    retryable: false,
    message:
      "Only a wallet key whose wallet is the launch's launchWallet may make this decision; a partner credential cannot, whatever its scopes.",
  },
  PERMIT_REISSUE_NOT_AWAITED: {
    status: 409,
    retryable: false,
    message:
      'The launch is not awaiting a permit-reissue decision: its permit has not expired, or the decision was already made or its deadline passed.',
  },
  LAUNCH_NOT_CANCELLABLE: {
    status: 409,
    retryable: false,
    message: 'The launch can no longer be cancelled: its wallet transaction was submitted, or it already ended.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, message: "The request body exceeds this route's byte limit." },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    message:
      'The request body must have the media type the operation declares (application/json, or application/octet-stream for a source file).',
  },
  RATE_LIMITED: {
    status: 429,
    retryable: true,
    message: 'Rate limit reached; retry the same bytes after Retry-After.',
  },
  ADMISSION_QUOTA_EXHAUSTED: {
    status: 429,
    retryable: true,
    message: 'The service-wide new-launch admission quota is used up; retry the same bytes after Retry-After.',
  },
  INTERNAL: {
    status: 500,
    retryable: false,
    message: 'Internal error. Reconcile with the requestId before retrying; do not change the request bytes.',
  },
  NOT_IMPLEMENTED: { status: 501, retryable: false, message: 'This deployment does not implement this operation yet.' },
  UNAVAILABLE: { status: 503, retryable: true, message: 'The service is unavailable; retry after Retry-After.' },
  BASE_LAYER_NOT_CONFIGURED: {
    status: 503,
    retryable: false,
    message:
      'This deployment has no base-layer (chain 1) lane configured (BASE_DEPLOYMENT_PATH); GET /v3/capabilities reports acceptsNewSubmissions false.',
  },
  MULTI_ROLE_LANE_UNAVAILABLE: {
    status: 503,
    retryable: false,
    message:
      'The shared token-and-hook lane is not available on this deployment (its contracts are not bound: MULTI_ROLE_DEPLOYMENT_PATH); GET .../multi-role-custom-launches/capabilities reports readiness unavailable.',
  },
  PRICE_SOURCE_UNAVAILABLE: {
    status: 503,
    retryable: true,
    message: 'No fresh native/USD price is available; no stale value is served. Retry after Retry-After.',
  },
  DEPLOYMENT_EVIDENCE_TAMPERED: {
    status: 503,
    retryable: false,
    message:
      'The deployment evidence this server is bound to failed verification; the V4 lane accepts no writes. Read /readyz.',
  },
  DEPLOYMENT_EVIDENCE_UNVERIFIED: {
    status: 503,
    retryable: true,
    message: 'The deployment evidence is not verified yet; retry after Retry-After.',
  },
  SOURCE_FILE_DIGEST_MISMATCH: {
    status: 400,
    retryable: false,
    message: 'The body is not the file the path names: its SHA-256 differs from the sha256 in the path.',
  },
  SOURCE_FILE_NOT_IN_MANIFEST: {
    status: 409,
    retryable: false,
    message: "The launch's sourceBundleManifest lists no file with this SHA-256; deliver only the manifest's files.",
  },
  AUTHENTICATION_REQUIRED: {
    status: 401,
    retryable: false,
    message: 'Use an active, unexpired key for the author wallet.',
  },
  API_SCOPE_REQUIRED: {
    status: 401,
    retryable: false,
    message: 'Use a key with the required scopes; see authorization.missingScopes.',
  },
  MODULE_SUBMISSION_NOT_FOUND: { status: 404, retryable: false, message: 'No such submission for this wallet.' },
  MODULE_REVIEW_EXPORT_NOT_ACCEPTED: {
    status: 409,
    retryable: false,
    message: 'The review is not accepted; follow nextAction of the review status.',
  },
  MODULE_REVIEW_EXPORT_BINDING_INVALID: {
    status: 503,
    retryable: false,
    message: 'Inconsistent source, build or decision binding; no partial export is served.',
  },
  MODULE_REVIEW_EXPORT_UNAVAILABLE: {
    status: 503,
    retryable: true,
    message: 'Review export is unavailable; keep the receipt and check readiness later.',
  },
  MODULE_REVIEW_UNAVAILABLE: {
    status: 503,
    retryable: true,
    message: 'Review is unavailable; keep the receipt and check readiness later.',
  },
  MODULE_REVIEW_JOB_UNAVAILABLE: {
    status: 503,
    retryable: false,
    message: 'The durable review job is missing; keep the submission identity and report the failure.',
  },
  MODULE_SUBMISSIONS_UNAVAILABLE: {
    status: 503,
    retryable: true,
    message: 'This deployment does not accept module uploads.',
  },
  MODULE_AUTHOR_MISMATCH: {
    status: 403,
    retryable: false,
    message: "descriptor.author must equal the API key's wallet.",
  },
  OPEN_ADDRESS: { status: 400, retryable: false, message: 'The reward wallet must be a nonzero EVM address.' },
  OPEN_SOURCE_HASH: {
    status: 400,
    retryable: false,
    message: 'A file hash in the descriptor does not match the inventory.',
  },
  MODULE_FILE_HASH: { status: 400, retryable: false, message: 'Submitted file bytes do not match their SHA-256.' },
  OPEN_CONFIG_FIXED_OVERRIDE: {
    status: 400,
    retryable: false,
    message: 'A fixed configuration value was overridden.',
  },
  MODULE_IDEMPOTENCY_CONFLICT: {
    status: 409,
    retryable: false,
    message: 'This Idempotency-Key was already used with different request bytes.',
  },
  MODULE_PACKAGE_CONFLICT: {
    status: 409,
    retryable: false,
    message: 'The package conflicts with an existing one; read it or submit a linked revision.',
  },
  MODULE_VERSION_ALREADY_SUBMITTED: {
    status: 409,
    retryable: false,
    message: 'This version was already submitted; submit a new linked version.',
  },
  MODULE_REVISION_LINEAGE_INVALID: {
    status: 409,
    retryable: false,
    message: 'The predecessor is not valid for this author and package family.',
  },
  MODULE_BUILD_SOURCE_ALIAS_COLLISION: {
    status: 400,
    retryable: false,
    message: 'Two submitted files map to the same compiler source name.',
  },
  MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED: {
    status: 400,
    retryable: false,
    message: 'The source size exceeds the review profile capacity.',
  },
  SUBKEY_BOUNDS_EXCEEDED: {
    status: 400,
    retryable: false,
    message: "A subkey cannot exceed the partner root's scopes, budgets or expiry.",
  },
  SUBKEY_REVOKED: {
    status: 409,
    retryable: false,
    message:
      'The subkey is revoked (by DELETE or by a rotation): rotate its current replacement, or issue a new subkey.',
  },
  SUBKEY_LIMIT_REACHED: {
    status: 409,
    retryable: false,
    message: 'This partner root holds the most subkeys it may (1000 over its lifetime, rotations included).',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    retryable: false,
    message: 'The request header section exceeds the 16 KiB limit; send fewer or shorter headers.',
  },
  MALFORMED_HTTP_REQUEST: {
    status: 400,
    retryable: false,
    message: 'The request is not valid HTTP/1.1 (request line, headers or framing); nothing was read.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    retryable: true,
    message: 'The request did not arrive in time (headers or body); nothing was read. Send it again.',
  },
  STORAGE_FULL: {
    status: 503,
    retryable: true,
    message:
      "The server's storage is full, so nothing of this request was stored; retry the same bytes with the same Idempotency-Key after Retry-After.",
  },
  LAUNCH_INTENT_CONFLICT: {
    status: 409,
    retryable: false,
    message:
      "The intent is already a launch: a resubmission must reuse its journal's Idempotency-Key and exact request bytes.",
  },
} as const satisfies Record<string, { status: number; retryable: boolean; message: string }>;

/** A public error code from the table. */
export type ErrorCode = keyof typeof errorTable;

/** Every public error code, in table order. */
export const errorCodes = Object.keys(errorTable) as ErrorCode[];
