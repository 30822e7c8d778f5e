import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type AbiParameter, encodeAbiParameters, type Hex, isAddress, isHex, keccak256 } from 'viem';
import type {
  BaseLayerConstructorArg,
  BaseLayerProjectTarget,
} from '../../../generated/schemas/launch-project-manifest-v3.v1.ts';
import type { CustomLaunchCapabilitiesV3, CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import {
  baseLaunchIntentHashOf,
  baseProjectMetadataHashOf,
  mineBaseHookSalt,
  predictBaseGraphTarget,
  predictBaseLaunch,
} from '../../core/base-graph.ts';
import { sha256Digest, utf8Order } from '../../core/canonical-json.ts';
import { type HookPermission, hookPermissionBits } from '../../core/hook-permissions.ts';
import {
  compileSolidity,
  compileStandardJson,
  pinnedCompilerVersion,
  type SolidityBuild,
  solidityBuildSettings,
} from '../../solidity/compile-contracts.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { checkProjectImage, projectSourcePath } from '../launches/pack/pack.ts';
import { type BaseLayerProjectManifestV1, checkBaseLayerManifest, readBaseLayerManifest } from './manifest.ts';

type GraphTarget = CustomLaunchCreateRequestV3['graph']['targets'][number];
type StandardJson = CustomLaunchCreateRequestV3['compilation']['units'][number]['standardJson'];
/** The lane's contracts a pack binds: GET /v3/capabilities `deployment`. */
export type BaseLayerDeployment = NonNullable<CustomLaunchCapabilitiesV3['deployment']>;

/** Options of a V3 pack: the lane (capabilities or its deployment), the controller, and for reproducible output the source of fresh values. */
export interface BaseLayerPackOptions {
  /**
   * GET /v3/capabilities as the service answered it: its deployment, its pinned compiler (it must be this client's)
   * and, for eip3009 funding, its accepted funding tokens. Or only the lane's contracts, checked against nothing.
   */
  lane: { capabilities: CustomLaunchCapabilitiesV3 } | { deployment: BaseLayerDeployment };
  /** The controller wallet that will sign the funding authorization and send the wallet transaction. */
  launchWallet: string;
  /** The launch nonce of launchWallet (a decimal string); drawn from `fresh` unless given. */
  nonce?: string;
  /** A fresh 32-byte value for a label (the nonce, each target's salt, the hook salt search start); random unless given. */
  fresh?: (label: string) => Hex;
  /** A manifest used instead of the folder's launch-v3.json (checked the same way). */
  manifest?: BaseLayerProjectManifestV1;
}

/** What a V3 pack produced: the request, the byte-exact JSON text a submission sends, and what it predicts on chain 1. */
export interface BaseLayerPackResult {
  request: CustomLaunchCreateRequestV3;
  bytes: Buffer;
  /** The hook's permission mask and its mined salt. */
  hook: { mask: number; salt: Hex };
  /** The token and hook addresses and the pool id the router will create. */
  predicted: { token: Hex; hook: Hex; poolId: Hex };
}

const randomHex32 = (): Hex => `0x${randomBytes(32).toString('hex')}`;
const unitId = 'main';

function readProjectBytes(projectDir: string, relative: string): Buffer {
  const path = projectSourcePath(projectDir, relative);
  if (!path) throw new LocalCheckError('PROJECT_FILE_UNREADABLE', `cannot read ${relative} in ${projectDir}`);
  return readFileSync(path);
}

/** The lane's deployment, with the capabilities' compiler and funding-token checks made first. */
function laneDeployment(options: BaseLayerPackOptions, manifest: BaseLayerProjectManifestV1): BaseLayerDeployment {
  if ('deployment' in options.lane) return options.lane.deployment;
  const { capabilities } = options.lane;
  if (!capabilities.deployment) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      'the service has no base-layer deployment (capabilities deployment is null); it accepts no V3 launch',
    );
  }
  const local = pinnedCompilerVersion();
  if (capabilities.compilerVersion !== local) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      `the service builds with solc ${capabilities.compilerVersion}, this client with ${local}; the init code hashes would not match`,
    );
  }
  const { funding } = manifest;
  if (
    funding.mode === 'eip3009' &&
    !capabilities.fundingTokens.some((t) => t.address.toLowerCase() === funding.token.toLowerCase())
  ) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      `the funding token ${funding.token} is not one this service accepts (capabilities fundingTokens)`,
    );
  }
  return capabilities.deployment;
}

/**
 * The project's one compilation unit: every source the targets use, imports included (resolved inside the project or
 * node_modules as the V4 packer resolves them), inline, in UTF-8 order, with the pinned settings.
 */
function compilationUnit(projectDir: string, manifest: BaseLayerProjectManifestV1): StandardJson {
  const sources: Record<string, string> = {};
  for (const target of manifest.targets)
    sources[target.source] ??= readProjectBytes(projectDir, target.source).toString('utf8');
  let build: SolidityBuild;
  try {
    build = compileSolidity(sources, (path) => {
      const found = projectSourcePath(projectDir, path);
      return found ? readFileSync(found, 'utf8') : undefined;
    });
  } catch (err) {
    if (err instanceof LocalCheckError) throw err;
    throw new LocalCheckError(
      'SOURCE_COMPILE_FAILED',
      `the project's sources do not compile:\n${(err as Error).message}`,
    );
  }
  const paths = Object.keys(build.sources).sort(utf8Order);
  return {
    language: 'Solidity',
    sources: Object.fromEntries(paths.map((p) => [p, { content: build.sources[p] as string }])),
    settings: { optimizer: { ...solidityBuildSettings.optimizer }, evmVersion: solidityBuildSettings.evmVersion },
  };
}

/** The ABI value of one literal constructor argument, or a LocalCheckError naming it. */
function literalValue(type: string, value: string, where: string): unknown {
  const bad = () =>
    new LocalCheckError('PROJECT_MANIFEST_INVALID', `${where}: "${value}" is not a value of type ${type}`);
  if (type === 'string') return value;
  if (type === 'bool') {
    if (value !== 'true' && value !== 'false') throw bad();
    return value === 'true';
  }
  if (type === 'address') {
    if (!isAddress(value, { strict: false })) throw bad();
    return value;
  }
  if (type.startsWith('bytes')) {
    if (!isHex(value, { strict: true })) throw bad();
    return value;
  }
  const signed = type.startsWith('int');
  if (!(signed ? /^-?(?:0|[1-9][0-9]*)$/ : /^(?:0|[1-9][0-9]*)$/).test(value)) throw bad();
  const bits = BigInt(type.replace(/^u?int/, '') || '256');
  const n = BigInt(value);
  const [min, max] = signed ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  if (n < min || n > max) throw bad();
  return n;
}

/** Where the graph's targets land: each one's salt, init code hash and address, resolved in dependency order. */
interface Resolution {
  manifest: BaseLayerProjectManifestV1;
  deployment: BaseLayerDeployment;
  build: SolidityBuild;
  fresh: (label: string) => Hex;
  done: Map<string, GraphTarget & { address: Hex }>;
  visiting: Set<string>;
}

function resolveTarget(r: Resolution, target: BaseLayerProjectTarget): GraphTarget & { address: Hex } {
  const known = r.done.get(target.targetId);
  if (known) return known;
  if (r.visiting.has(target.targetId)) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `the constructor arguments of the graph refer to each other in a cycle through "${target.targetId}"`,
    );
  }
  r.visiting.add(target.targetId);
  const contract = r.build.contracts[target.source]?.[target.contractName];
  if (!contract) {
    throw new LocalCheckError(
      'SOURCE_COMPILE_FAILED',
      `${target.source} has no deployable contract ${target.contractName}`,
    );
  }
  const args = target.constructorArgs ?? [];
  const values = args.map((arg, i) => argValue(r, arg, `${target.targetId} constructor argument ${i}`));
  const constructorArgs = encodeConstructorArgs(target.targetId, args, values);
  const initCodeHash = keccak256(`${contract.bytecode}${constructorArgs.slice(2)}` as Hex);
  const { graphFactory, launchRouter } = r.deployment;
  const mask = target.role === 'hook' ? maskOf(target.hookPermissions ?? []) : undefined;
  const salt =
    mask !== undefined
      ? mineBaseHookSalt(
          graphFactory as Hex,
          launchRouter as Hex,
          initCodeHash,
          mask,
          // A fresh start gives each pack its own hook address; the shift leaves room to count up.
          BigInt(r.fresh('hook salt search start')) >> 8n,
        )
      : ((target.salt as Hex | undefined) ?? r.fresh(`salt of ${target.targetId}`));
  const item: GraphTarget & { address: Hex } = {
    targetId: target.targetId,
    role: target.role,
    compilationUnitId: unitId,
    contractName: `${target.source}:${target.contractName}`,
    constructorArgs,
    salt,
    initCodeHash,
    ...(mask !== undefined ? { hookPermissionMask: mask } : {}),
    address: predictBaseGraphTarget(graphFactory as Hex, launchRouter as Hex, salt, initCodeHash),
  };
  r.visiting.delete(target.targetId);
  r.done.set(target.targetId, item);
  return item;
}

/** The ABI encoding of a target's constructor arguments (0x when none), or a LocalCheckError naming the target. */
function encodeConstructorArgs(targetId: string, args: BaseLayerConstructorArg[], values: unknown[]): Hex {
  if (args.length === 0) return '0x';
  try {
    return encodeAbiParameters(
      args.map((a) => ({ type: a.type }) as AbiParameter),
      values,
    );
  } catch (err) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `the constructor arguments of ${targetId} do not encode: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

function argValue(r: Resolution, arg: BaseLayerConstructorArg, where: string): unknown {
  if ('deployment' in arg) return r.deployment[arg.deployment];
  if ('target' in arg) {
    const other = r.manifest.targets.find((t) => t.targetId === arg.target) as BaseLayerProjectTarget;
    return resolveTarget(r, other).address;
  }
  return literalValue(arg.type, arg.value, where);
}

function maskOf(flags: readonly string[]): number {
  let mask = 0;
  for (const [flag, bit] of Object.entries(hookPermissionBits)) if (flags.includes(flag as HookPermission)) mask |= bit;
  return mask;
}

/**
 * `v3 pack`: turns a base-layer project folder (launch-v3.json, the Solidity sources, the image) into a
 * CustomLaunchCreateRequestV3 (spec/schemas/custom-launch-create-request.v3.schema.json) for the lane's contracts.
 * Everything is local: the manifest is validated, the image checked, the sources carried inline as one standard-JSON
 * unit and compiled with the pinned solc to compute each target's init code hash (creation code followed by the
 * encoded constructor arguments), the hook's salt mined so its address carries its mask, projectMetadataHash and
 * launchIntentHash bound, and the result validated against its schema. Throws LocalCheckError; never makes a network
 * request. The same inputs and `fresh` give the same bytes.
 */
export function packBaseLayerLaunch(projectDir: string, options: BaseLayerPackOptions): BaseLayerPackResult {
  const manifest = options.manifest
    ? checkBaseLayerManifest(options.manifest, 'the given manifest')
    : readBaseLayerManifest(projectDir);
  const fresh = options.fresh ?? randomHex32;
  const deployment = laneDeployment(options, manifest);
  const { metadata } = manifest;
  const imageBytes = readProjectBytes(projectDir, metadata.imageFile);
  const mediaType = checkProjectImage(imageBytes, metadata.imageFile);
  const standardJson = compilationUnit(projectDir, manifest);
  let build: SolidityBuild;
  try {
    build = compileStandardJson(standardJson);
  } catch (err) {
    throw new LocalCheckError(
      'SOURCE_COMPILE_FAILED',
      `the compilation unit does not compile:\n${(err as Error).message}`,
    );
  }
  const resolution: Resolution = { manifest, deployment, build, fresh, done: new Map(), visiting: new Set() };
  const targets = manifest.targets.map((t) => {
    const { address: _address, ...target } = resolveTarget(resolution, t);
    return target;
  });
  const version = manifest.profileVersion;
  const request: CustomLaunchCreateRequestV3 = {
    schemaVersion: 'platform.custom-launch-create-request.v3',
    chainId: '1',
    caip2: 'eip155:1',
    profile: {
      schemaVersion: 'platform.direct-native-hook-graph-profile.v3',
      version,
      revision: version === '3.3.0' || version === '3.4.0' ? 3 : 2,
    },
    launchWallet: options.launchWallet,
    nonce: options.nonce ?? (BigInt(fresh('request nonce')) >> 192n).toString(),
    graph: { kind: manifest.graphKind, targets },
    compilation: { compilerVersion: build.compilerVersion, units: [{ unitId, standardJson }] },
    projectMetadata: {
      name: metadata.name,
      symbol: metadata.symbol,
      description: metadata.description,
      image: {
        mediaType,
        uri: metadata.imageUri,
        sha256: sha256Digest(imageBytes),
        byteLength: imageBytes.length,
        contentBase64: imageBytes.toString('base64'),
      },
      website: metadata.website,
      xProfile: metadata.xProfile,
      ...(metadata.links ? { links: metadata.links } : {}),
    },
    projectMetadataHash: '',
    liquidity: manifest.liquidity,
    funding: manifest.funding,
    applicantRates: manifest.applicantRates,
    feeAdapter: manifest.feeAdapter,
    launchIntentHash: '',
  };
  request.projectMetadataHash = baseProjectMetadataHashOf(request);
  request.launchIntentHash = baseLaunchIntentHashOf(request);
  const invalid = schemaProblems('custom-launch-create-request.v3.schema.json', request);
  if (invalid.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `the packed request does not match its schema:\n  ${invalid.join('\n  ')}`,
    );
  }
  const hook = targets.find((t) => t.role === 'hook') as GraphTarget;
  return {
    request,
    bytes: Buffer.from(`${JSON.stringify(request, null, 2)}\n`, 'utf8'),
    hook: { mask: hook.hookPermissionMask ?? 0, salt: hook.salt as Hex },
    predicted: predictBaseLaunch(request, deployment.graphFactory as Hex, deployment.launchRouter as Hex),
  };
}
