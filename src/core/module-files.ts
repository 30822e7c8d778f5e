// The file rules of a module submission that the server's intake and the module client's local check share
// (spec/schemas/module-submission-request.v0.1.schema.json; submitModule in
// spec/openapi/paths/modules-submissions.yaml). Pure: no I/O.
import { createHash } from 'node:crypto';
import type { ApiErrorCode, IntakeLimits, ModuleSubmissionRequest } from '../../generated/types/service.ts';

/**
 * The intake limits: the defaults, and the most a deployment may publish (config MODULES_MAX_*); the modules context
 * and the public capabilities publish the live ones (spec/schemas/modules-context.v1.schema.json IntakeLimits).
 */
export const moduleLimits = {
  maxFiles: 128,
  maxFileBytes: 4_194_304,
  maxTotalBytes: 16_777_216,
  maxRequestBytes: 25_165_824,
  maxPathLength: 240,
  maxListPageItems: 20,
} as const satisfies IntakeLimits;

/** Engine dependency aliases: submitted path prefix, then the import prefix it maps to (the engine profile's table). */
export const engineAliases: ReadonlyArray<readonly [string, string]> = [
  ['dependencies/scoped/openzeppelin/contracts/', '@openzeppelin/contracts/'],
  ['dependencies/scoped/openzeppelin/uniswap-hooks/', '@openzeppelin/uniswap-hooks/'],
  ['dependencies/scoped/uniswap/blocknumberish/', '@uniswap/blocknumberish/'],
  ['dependencies/scoped/uniswap/liquidity-launcher/', '@uniswap/liquidity-launcher/'],
  ['dependencies/scoped/uniswap/uerc20-factory/', '@uniswap/uerc20-factory/'],
  ['dependencies/scoped/uniswap/v4-core/', '@uniswap/v4-core/'],
  ['dependencies/scoped/uniswap/v4-periphery/', '@uniswap/v4-periphery/'],
  ['dependencies/scoped/solady/src/', '@solady/src/'],
];

/** The compiler source name of a submitted path: its alias's import prefix, or the path itself. */
export function compilerSourceName(path: string): string {
  for (const [prefix, imported] of engineAliases) {
    if (path.startsWith(prefix)) return imported + path.slice(prefix.length);
  }
  return path;
}

/** A broken file rule: the public error code it maps to and the message that names the file. */
export class ModuleFileRuleError extends Error {
  /** A code of the one error table (spec/schemas/api-error.schema.json ApiErrorCode). */
  readonly code: ApiErrorCode & ('INVALID_REQUEST' | 'OPEN_SOURCE_HASH' | 'MODULE_FILE_HASH' | 'PAYLOAD_TOO_LARGE');

  constructor(code: ModuleFileRuleError['code'], options: { message: string }) {
    super(options.message);
    this.name = 'ModuleFileRuleError';
    this.code = code;
  }
}

function invalid(message: string): never {
  throw new ModuleFileRuleError('INVALID_REQUEST', { message });
}

/**
 * The submitted files against the descriptor's inventory (module-submission-request.v0.1 files and
 * descriptor.source.files) and the deployment's published `limits` (moduleLimits by default): first, before any byte is decoded,
 * at most maxFiles files, each path at most maxPathLength characters and each declared size at most maxFileBytes
 * (INVALID_REQUEST, as the schema refuses the moduleLimits maxima); then the same paths, each once (INVALID_REQUEST);
 * each file's sha256 the inventory's (OPEN_SOURCE_HASH); strict canonical base64 decoding to the declared size and
 * SHA-256 (MODULE_FILE_HASH); at most maxTotalBytes decoded (PAYLOAD_TOO_LARGE). Shared by the server's intake (as ApiErrors) and
 * the module client's local check. Returns the total decoded size.
 */
export function checkSubmittedFiles(
  request: ModuleSubmissionRequest,
  limits: IntakeLimits = moduleLimits,
): { byteCount: number } {
  const d = request.descriptor;
  const count = Math.max(d.source.files.length, request.files.length);
  if (count > limits.maxFiles)
    invalid(`The package has ${count} files; this deployment takes at most ${limits.maxFiles}.`);
  for (const f of d.source.files) {
    if (f.path.length > limits.maxPathLength) {
      invalid(
        `${f.path.slice(0, 64)}…: the path has ${f.path.length} characters; this deployment takes at most ${limits.maxPathLength}.`,
      );
    }
    if (f.size > limits.maxFileBytes) {
      invalid(`${f.path}: ${f.size} bytes; this deployment takes at most ${limits.maxFileBytes} per file.`);
    }
  }
  const inventory = new Map<string, { sha256: string; size: number }>();
  for (const f of d.source.files) {
    if (inventory.has(f.path)) invalid(`descriptor.source.files lists ${f.path} twice.`);
    inventory.set(f.path, { sha256: f.sha256, size: f.size });
  }
  const seen = new Set<string>();
  let byteCount = 0;
  for (const file of request.files) {
    if (seen.has(file.path)) invalid(`files lists ${file.path} twice.`);
    seen.add(file.path);
    const declared = inventory.get(file.path);
    if (!declared) invalid(`files has ${file.path}, which descriptor.source.files does not list.`);
    if (file.sha256 !== declared.sha256) {
      throw new ModuleFileRuleError('OPEN_SOURCE_HASH', {
        message: `${file.path}: files gives sha256 ${file.sha256}, the descriptor inventory ${declared.sha256}.`,
      });
    }
    // The schema types the base64 text (its anyOf leaves the generated type open).
    const encoded = file.bytes as string;
    const bytes = Buffer.from(encoded, 'base64');
    // Strict: only the canonical padded encoding of the decoded bytes is accepted (Node decodes leniently).
    if (bytes.toString('base64') !== encoded) {
      throw new ModuleFileRuleError('MODULE_FILE_HASH', {
        message: `${file.path}: bytes is not canonical padded base64.`,
      });
    }
    if (bytes.length !== declared.size) {
      throw new ModuleFileRuleError('MODULE_FILE_HASH', {
        message: `${file.path}: ${bytes.length} bytes decoded, the inventory declares ${declared.size}.`,
      });
    }
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== file.sha256) {
      throw new ModuleFileRuleError('MODULE_FILE_HASH', {
        message: `${file.path}: the decoded bytes hash to ${actual}, not ${file.sha256}.`,
      });
    }
    byteCount += bytes.length;
  }
  for (const path of inventory.keys()) {
    if (!seen.has(path)) invalid(`descriptor.source.files lists ${path}, but files does not carry it.`);
  }
  if (byteCount > limits.maxTotalBytes) {
    throw new ModuleFileRuleError('PAYLOAD_TOO_LARGE', {
      message: `The files decode to ${byteCount} bytes; this deployment takes at most ${limits.maxTotalBytes} of raw source.`,
    });
  }

  return { byteCount };
}
