import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Hex, keccak256 } from 'viem';
import type { ChainDeploymentV1, CustomLaunchCreateRequestV4 } from '../../../../generated/types/service.ts';
import { sha256Digest, utf8Order } from '../../../core/canonical-json.ts';
import { clientReleases } from '../../../core/client-releases.ts';
import { mineHookSalt } from '../../../core/create2.ts';
import { type HookPermission, hookPermissionBits } from '../../../core/hook-permissions.ts';
import { inspectImage } from '../../../core/image.ts';
import { bindRequestHashes } from '../../../core/request-hashes.ts';
import { compileSolidity, type SolidityBuild, solidityBuildSettings } from '../../../solidity/compile-contracts.ts';
import { schemaProblems } from '../../../spec/schema-registry.ts';
import { LocalCheckError } from '../../core/local-check-error.ts';
import { type LaunchProjectManifestV1, readProjectManifest, validateProjectManifest } from './project-manifest.ts';

type GraphTarget = CustomLaunchCreateRequestV4['graphBundle']['targets'][number];
type HookPermissions = NonNullable<GraphTarget['hookPermissions']>;

/** Options of a pack: the chain deployment to bind and, for reproducible output, the source of fresh values. */
export interface PackOptions {
  /** The chain-deployment document the request binds (the devnet writes var/devnet/chain-deployment.json). */
  chainDeployment: ChainDeploymentV1;
  /** A fresh 32-byte value for a label (the nonce, each drawn CREATE2 salt); random unless given. */
  fresh?: (label: string) => Hex;
  /** Identity the request's agentAttestation names. */
  agent?: { agentId: string; agentVersion: string };
  /** A manifest used instead of the folder's launch.json (checked the same way); the spec's examples vary one. */
  manifest?: LaunchProjectManifestV1;
}

/** What a pack produced: the request and the byte-exact JSON text a submission sends. */
export interface PackResult {
  request: CustomLaunchCreateRequestV4;
  bytes: Buffer;
  /** The hook's permission mask and its mined CREATE2 salt. */
  hook: { mask: number; create2Salt: string };
}

const repoNodeModules = fileURLToPath(new URL('../../../../node_modules', import.meta.url));
const randomHex32 = (): Hex => `0x${randomBytes(32).toString('hex')}`;

/**
 * The path of `relative` inside `base`, or a LocalCheckError when it leaves `base`, by its text or through a
 * symbolic link (both sides are compared after resolving links, so a linked file cannot smuggle in outside bytes).
 */
function inside(base: string, relative: string, what: string): string {
  const root = resolve(base);
  const path = resolve(root, relative);
  const outside = (candidate: string, top: string) => candidate !== top && !candidate.startsWith(top + sep);
  if (outside(path, root) || (existsSync(path) && outside(realpathSync(path), realpathSync(root)))) {
    throw new LocalCheckError('PROJECT_FILE_UNREADABLE', `${relative} lies outside ${what}`);
  }
  return path;
}

function projectPath(projectDir: string, relative: string): string {
  return inside(projectDir, relative, 'the project folder');
}

function readProjectFile(projectDir: string, relative: string): Buffer {
  try {
    return readFileSync(projectPath(projectDir, relative));
  } catch (err) {
    if (err instanceof LocalCheckError) throw err;
    throw new LocalCheckError('PROJECT_FILE_UNREADABLE', `cannot read ${relative} in ${projectDir}`);
  }
}

const imageTypes: Record<string, string> = {
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/**
 * The metadata image check, made locally before anything is compiled or sent: a PNG or a single-frame GIF whose
 * bytes match its file's type. JPEG, WebP and animated GIF or PNG are refused.
 */
export function checkProjectImage(bytes: Uint8Array, file: string): 'image/png' | 'image/gif' {
  const declared = imageTypes[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const inspection = inspectImage(bytes, declared);
  if (!inspection.ok) throw new LocalCheckError('IMAGE_REFUSED', `${file}: ${inspection.code}: ${inspection.detail}`);
  return inspection.mediaType;
}

/**
 * Where a project's source unit lives: an `@…` import in the project's or this repository's node_modules, any other
 * path inside the project folder (symlinks included); undefined when it does not exist.
 */
export function projectSourcePath(projectDir: string, path: string): string | undefined {
  const candidates = path.startsWith('@')
    ? [join(projectDir, 'node_modules'), repoNodeModules].map((modules) => inside(modules, path, 'node_modules'))
    : [projectPath(projectDir, path)];
  return candidates.find((c) => existsSync(c));
}

/** Compiles the project's target sources with the pinned build; imports resolve inside the project or node_modules. */
function compileProject(projectDir: string, manifest: LaunchProjectManifestV1): SolidityBuild {
  const sources: Record<string, string> = {};
  for (const target of manifest.targets)
    sources[target.source] ??= readProjectFile(projectDir, target.source).toString('utf8');
  // solc-js turns an exception of the import callback into a compiler error; keep the refusal and rethrow it.
  let refused: LocalCheckError | undefined;
  try {
    return compileSolidity(sources, (path) => {
      try {
        const found = projectSourcePath(projectDir, path);
        return found ? readFileSync(found, 'utf8') : undefined;
      } catch (err) {
        refused ??= err instanceof LocalCheckError ? err : undefined;
        return undefined;
      }
    });
  } catch (err) {
    if (refused) throw refused;
    if (err instanceof LocalCheckError) throw err;
    throw new LocalCheckError(
      'SOURCE_COMPILE_FAILED',
      `the project's sources do not compile:\n${(err as Error).message}`,
    );
  }
}

/**
 * Mines the hook's CREATE2 salt from a fresh starting point, so each pack of a project gets its own hook address
 * (a salt mined from zero would collide with an earlier launch of the same code); the address carries the mask.
 */
function hookSalt(
  chainDeployment: ChainDeploymentV1,
  runtimeCode: Hex,
  flags: readonly string[],
  fresh: (label: string) => Hex,
): Hex {
  const { graphFactory, platformLaunchStampRouter } = chainDeployment.contracts;
  const start = BigInt(fresh('hook salt search start')) >> 8n; // leaves room to count up without overflow
  return mineHookSalt(
    graphFactory.address as Hex,
    platformLaunchStampRouter.address as Hex,
    runtimeCode,
    hookPermissionsOf(flags).mask,
    start,
  );
}

function hookPermissionsOf(flags: readonly string[]): HookPermissions {
  const permissions: Record<string, unknown> = {};
  let mask = 0;
  for (const [flag, bit] of Object.entries(hookPermissionBits)) {
    const on = flags.includes(flag as HookPermission);
    permissions[flag] = on;
    if (on) mask |= bit;
  }
  return { mask, ...permissions } as HookPermissions;
}

/** A hash not yet bound: bindRequestHashes replaces each. */
const unbound = `sha256:${'0'.repeat(64)}`;

function sumWei(values: string[]): bigint {
  return values.reduce((total, v) => total + BigInt(v), 0n);
}

/**
 * `pack`: turns a project folder (launch.json, the Solidity sources, the image) into a CustomLaunchCreateRequestV4
 * bound to `chainDeployment` (spec/schemas/custom-launch-create-request.v4.schema.json). Everything is
 * local: the manifest is validated, the image checked, the sources compiled with the pinned build, every hash
 * computed, the hook's CREATE2 salt mined for its permission mask, a fresh nonce drawn, and the result validated
 * against the create-request schema. Throws LocalCheckError; never makes a network request.
 */
export function packLaunchProject(projectDir: string, options: PackOptions): PackResult {
  const manifest = options.manifest
    ? validateProjectManifest(options.manifest, 'the given manifest')
    : readProjectManifest(projectDir);
  const fresh = options.fresh ?? randomHex32;
  const imageBytes = readProjectFile(projectDir, manifest.metadata.imageFile);
  const mediaType = checkProjectImage(imageBytes, manifest.metadata.imageFile);

  const problems = schemaProblems('chain-deployment.v1.schema.json', options.chainDeployment);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'CHAIN_DEPLOYMENT_UNREADABLE',
      `the chain deployment is not a chainDeployment document:\n  ${problems.join('\n  ')}`,
    );
  }

  const build = compileProject(projectDir, manifest);
  const targets = graphTargets(manifest, build, options.chainDeployment, fresh);
  const common = commonFields({ manifest, build, targets, imageBytes, mediaType, options, fresh });
  const request = withFunding(common, manifest);
  const bound = bindRequestHashes(request);
  const invalid = schemaProblems('custom-launch-create-request.v4.schema.json', bound);
  if (invalid.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `the packed request does not match its schema:\n  ${invalid.join('\n  ')}`,
    );
  }
  const hook = bound.graphBundle.targets.find((t) => t.role === 'hook');
  return {
    request: bound,
    bytes: Buffer.from(`${JSON.stringify(bound, null, 2)}\n`, 'utf8'),
    hook: { mask: hook?.hookPermissions?.mask ?? 0, create2Salt: hook?.create2Salt ?? '' },
  };
}

/** The graph bundle's targets: each contract's runtime bytecode and hash, and its CREATE2 salt (mined for a hook). */
function graphTargets(
  manifest: LaunchProjectManifestV1,
  build: SolidityBuild,
  chainDeployment: ChainDeploymentV1,
  fresh: (label: string) => Hex,
): GraphTarget[] {
  return manifest.targets.map((target) => {
    const contract = build.contracts[target.source]?.[target.contractName];
    if (!contract) {
      throw new LocalCheckError(
        'SOURCE_COMPILE_FAILED',
        `${target.source} has no deployable contract ${target.contractName}`,
      );
    }
    const runtimeBytecode = contract.deployedBytecode as Hex;
    const item: GraphTarget = {
      targetId: target.targetId,
      role: target.role,
      runtimeBytecode,
      runtimeCodeHash: keccak256(runtimeBytecode),
      create2Salt:
        target.role === 'hook'
          ? hookSalt(chainDeployment, runtimeBytecode, target.hookPermissions ?? [], fresh)
          : (target.create2Salt ?? fresh(`create2 salt of ${target.targetId}`)),
    };
    if (target.role === 'hook') item.hookPermissions = hookPermissionsOf(target.hookPermissions ?? []);
    return item;
  });
}

/** The request fields every profile shares, every hash still unbound (bindRequestHashes fills them). */
function commonFields(input: {
  manifest: LaunchProjectManifestV1;
  build: SolidityBuild;
  targets: GraphTarget[];
  imageBytes: Buffer;
  mediaType: 'image/png' | 'image/gif';
  options: PackOptions;
  fresh: (label: string) => Hex;
}) {
  const { manifest, build, targets, imageBytes, mediaType, options, fresh } = input;
  const sourceFiles = Object.keys(build.sources).sort(utf8Order);
  const sourceBundleManifest = {
    schemaVersion: 'platform.custom-launch-source-bundle-manifest.v1' as const,
    files: sourceFiles.map((path) => {
      const bytes = Buffer.from(build.sources[path] as string, 'utf8');
      return { path, sha256: createHash('sha256').update(bytes).digest('hex'), byteLength: bytes.length };
    }),
  };
  const { metadata } = manifest;
  const imageSha256 = sha256Digest(imageBytes);
  const projectMetadata = {
    name: metadata.name,
    symbol: metadata.symbol,
    description: metadata.description,
    image: { uri: metadata.imageUri, mediaType, sha256: imageSha256 },
    links: metadata.links,
  };
  return {
    schemaVersion: 'platform.custom-launch-create-request.v4' as const,
    chainId: '4663' as const,
    caip2: 'eip155:4663' as const,
    chainDeployment: options.chainDeployment,
    chainDeploymentDescriptorDigest: unbound,
    launchWallet: manifest.launchWallet,
    nonce: fresh(`request nonce, profile ${manifest.profile}`),
    permitWindow: { lifetimeSeconds: manifest.permitLifetimeSeconds },
    sourceDescriptor: {
      schemaVersion: 'platform.custom-launch-source-descriptor.v1' as const,
      language: 'Solidity' as const,
      compilerVersion: build.compilerVersion,
      evmVersion: solidityBuildSettings.evmVersion,
      optimizer: solidityBuildSettings.optimizer,
      viaIR: solidityBuildSettings.viaIR,
    },
    sourceBundleManifest,
    externalContracts: [],
    graphBundle: {
      schemaVersion: 'platform.custom-launch-graph-bundle.v1' as const,
      targets,
      graphBundleDigest: unbound,
    },
    projectMetadata,
    projectMetadataHash: unbound,
    projectMetadataImageArtifact: {
      mediaType,
      byteLength: imageBytes.length,
      sha256: imageSha256,
      bytesBase64: imageBytes.toString('base64'),
    },
    verificationBundle: {
      schemaVersion: 'platform.custom-launch-verification-bundle.v1' as const,
      graphBundleDigest: unbound,
      sourceBundleManifestDigest: unbound,
      targets: manifest.targets.map((t) => ({
        targetId: t.targetId,
        sourcePath: t.source,
        contractName: t.contractName,
      })),
    },
    liquidityModel: manifest.liquidity,
    launchIntentHash: unbound,
    agentAttestation: {
      schemaVersion: 'platform.custom-launch-agent-attestation.v1' as const,
      agentId: options.agent?.agentId ?? 'custom-launch-cli',
      agentVersion: options.agent?.agentVersion ?? clientReleases[manifest.profile],
      evidenceVerifiedClaim: false as const,
      feeBehaviorClaim: false as const,
      safetyClaim: false as const,
    },
  };
}

/** The request of the manifest's profile: a 4.1.0 funding plan (its allocations must balance) or 4.0.0 exact value. */
function withFunding(
  common: ReturnType<typeof commonFields>,
  manifest: LaunchProjectManifestV1,
): CustomLaunchCreateRequestV4 {
  let request: CustomLaunchCreateRequestV4;
  const funding = manifest.funding;
  if (manifest.profile === '4.1.0' && 'nativeAllocations' in funding) {
    const allocations = funding.nativeAllocations;
    const total = sumWei([
      allocations.initialLiquidityWei,
      allocations.initialBuyWei,
      allocations.reservesWei,
      ...allocations.otherNativeAllocations.map((a) => a.amountWei),
    ]);
    if (total !== BigInt(funding.walletTransactionValueWei)) {
      throw new LocalCheckError(
        'FUNDING_PLAN_UNBALANCED',
        `the native allocations sum to ${total} wei, not walletTransactionValueWei ${funding.walletTransactionValueWei}`,
      );
    }
    request = {
      ...common,
      profile: '4.1.0',
      funding: { model: 'hash-bound-funding-plan', fundingPlanHash: unbound },
      fundingPlan: {
        schemaVersion: 'platform.custom-launch-funding-plan.v2',
        profile: '4.1.0',
        revision: 2,
        mode: 'funded',
        settlementAsset: { kind: 'native' },
        walletTransactionValueWei: funding.walletTransactionValueWei,
        nativeAllocations: allocations,
        maxLaunchValueWei: funding.maxLaunchValueWei,
        maxGasCostWei: funding.maxGasCostWei,
        initialBuy: { minTokenOut: funding.minTokenOut, recipient: manifest.launchWallet },
        fundingPlanHash: unbound,
      },
    } as CustomLaunchCreateRequestV4;
  } else {
    request = {
      ...common,
      profile: '4.0.0',
      funding: {
        model: 'exact-wallet-value',
        walletTransactionValueWei: funding.walletTransactionValueWei,
        initialBuyWei: '0',
      },
    } as CustomLaunchCreateRequestV4;
  }

  return request;
}
