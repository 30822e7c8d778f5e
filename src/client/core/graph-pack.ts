import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AbiParameter, encodeAbiParameters, type Hex, isAddress, isHex, keccak256 } from 'viem';
import type { BaseLayerProjectMetadataSource } from '../../../generated/schemas/launch-project-manifest-v3.v1.ts';
import type { MultiRoleProjectMetadataSource } from '../../../generated/schemas/multi-role-project-manifest.v1.ts';
import { mineBaseHookSalt, predictBaseGraphTarget } from '../../core/base-graph.ts';
import { sha256Digest, utf8Order } from '../../core/canonical-json.ts';
import { type HookPermission, hookPermissionBits } from '../../core/hook-permissions.ts';
import {
  compileSolidity,
  compileStandardJson,
  pinnedCompilerVersion,
  type SolidityBuild,
  type StandardJsonSources,
  solidityBuildSettings,
} from '../../solidity/compile-contracts.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { checkProjectImage, projectSourcePath } from '../launches/pack/pack.ts';
import { LocalCheckError } from './local-check-error.ts';

/*
 * The pack of a CREATE2 graph project, shared by the base-layer (V3) lane
 * (spec/schemas/launch-project-manifest-v3.v1.schema.json) and the shared lane
 * (spec/schemas/multi-role-project-manifest.v1.schema.json): both manifests declare targets the same way (a contract
 * of a project file, a role, constructor arguments that are literals, contracts of the lane's deployment or other
 * targets, the hook's callbacks, an optional fixed salt), both lanes deploy them through a graph factory with the
 * router as the caller, and both requests carry the sources as one inline standard-JSON input.
 */

/** The lane contracts a constructor argument may name (the capabilities' deployment of either lane). */
export type LaneContractName = 'poolManager' | 'launchRouter' | 'graphFactory' | 'permitAuthority';
/** The addresses of the lane's contracts. */
export type LaneContracts = Record<LaneContractName, string>;

/** One constructor argument of a manifest target: a literal, a lane contract, or another target's address. */
export type ProjectConstructorArg =
  | { type: string; value: string }
  | { type: 'address'; deployment: LaneContractName }
  | { type: 'address'; target: string };

/** One target of a graph project manifest, as both lanes' manifests declare it. */
export interface ProjectGraphTarget {
  targetId: string;
  role: string;
  source: string;
  contractName: string;
  constructorArgs?: readonly ProjectConstructorArg[];
  hookPermissions?: readonly string[];
  salt?: string;
}

/** A target as the request carries it, with the address the lane's factory gives it. */
export interface PackedGraphTarget {
  targetId: string;
  role: string;
  /** Fully qualified: source path, colon, contract name. */
  contractName: string;
  constructorArgs: Hex;
  salt: Hex;
  initCodeHash: Hex;
  hookPermissionMask?: number;
  address: Hex;
}

/** The inline standard-JSON compilation input of a project (language, sources, settings). */
export type ProjectCompilationUnit = StandardJsonSources & {
  sources: Record<string, { content: string }>;
  settings: { optimizer: { enabled: boolean; runs: number }; evmVersion: typeof solidityBuildSettings.evmVersion };
};

/**
 * Reads a project manifest file as JSON, or a LocalCheckError: PROJECT_MANIFEST_MISSING when the folder has no such
 * file, PROJECT_MANIFEST_INVALID when it is not JSON. The caller validates the value against its schema.
 */
export function readProjectManifestJson(projectDir: string, file: string): { path: string; value: unknown } {
  const path = join(projectDir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new LocalCheckError('PROJECT_MANIFEST_MISSING', `no ${file} in ${projectDir}`);
  }
  try {
    return { path, value: JSON.parse(text) };
  } catch (err) {
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * The graph rules of a project manifest that its schema cannot state: each role in `wanted` occurs exactly that many
 * times, target ids are unique, and every target constructor argument names a target of the graph.
 */
export function checkProjectGraph(
  path: string,
  targets: readonly ProjectGraphTarget[],
  wanted: Record<string, number>,
  graphName: string,
): void {
  for (const [role, want] of Object.entries(wanted)) {
    const count = targets.filter((t) => t.role === role).length;
    if (count !== want) {
      throw new LocalCheckError(
        'PROJECT_MANIFEST_INVALID',
        `${path}: ${graphName} needs exactly ${want} ${role}${want === 1 ? '' : 's'}, found ${count}`,
      );
    }
  }
  const ids = targets.map((t) => t.targetId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate)
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path}: targetId "${duplicate}" is used twice`);
  for (const target of targets) {
    for (const arg of target.constructorArgs ?? []) {
      if ('target' in arg && !ids.includes(arg.target)) {
        throw new LocalCheckError(
          'PROJECT_MANIFEST_INVALID',
          `${path}: ${target.targetId} takes the address of "${arg.target}", which is no target of the graph`,
        );
      }
    }
  }
}

/** The bytes of a file of the project folder, or a LocalCheckError when it is missing or lies outside the folder. */
export function readProjectBytes(projectDir: string, relative: string): Buffer {
  const path = projectSourcePath(projectDir, relative);
  if (!path) throw new LocalCheckError('PROJECT_FILE_UNREADABLE', `cannot read ${relative} in ${projectDir}`);
  return readFileSync(path);
}

/**
 * The project's one compilation unit: every source the targets use, imports included (resolved inside the project or
 * node_modules as the V4 packer resolves them), inline, in UTF-8 order, with the pinned settings.
 */
export function projectCompilationUnit(
  projectDir: string,
  targets: readonly ProjectGraphTarget[],
): ProjectCompilationUnit {
  const sources: Record<string, string> = {};
  for (const target of targets) sources[target.source] ??= readProjectBytes(projectDir, target.source).toString('utf8');
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

/** The unit built alone, exactly as the service builds it (compileStandardJson), or SOURCE_COMPILE_FAILED. */
export function compileProjectUnit(unit: ProjectCompilationUnit): SolidityBuild {
  try {
    return compileStandardJson(unit);
  } catch (err) {
    throw new LocalCheckError(
      'SOURCE_COMPILE_FAILED',
      `the compilation unit does not compile:\n${(err as Error).message}`,
    );
  }
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

/** How a graph is resolved: the lane's contracts, the build of the unit, the hook's role name and fresh values. */
export interface GraphResolutionInput {
  targets: readonly ProjectGraphTarget[];
  build: SolidityBuild;
  deployment: LaneContracts;
  /** The role whose target is the pool's hook (its salt is mined for its mask). */
  hookRole: string;
  /** A fresh 32-byte value for a label (each drawn salt, the hook salt search start). */
  fresh: (label: string) => Hex;
}

/** Where the graph's targets land: each one's salt, init code hash and address, resolved in dependency order. */
interface Resolution extends GraphResolutionInput {
  done: Map<string, PackedGraphTarget>;
  visiting: Set<string>;
}

function resolveTarget(r: Resolution, target: ProjectGraphTarget): PackedGraphTarget {
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
  const mask = target.role === r.hookRole ? hookMaskOf(target.hookPermissions ?? []) : undefined;
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
  const item: PackedGraphTarget = {
    targetId: target.targetId,
    role: target.role,
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
function encodeConstructorArgs(targetId: string, args: readonly ProjectConstructorArg[], values: unknown[]): Hex {
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

function argValue(r: Resolution, arg: ProjectConstructorArg, where: string): unknown {
  if ('deployment' in arg) return r.deployment[arg.deployment];
  if ('target' in arg) {
    const other = r.targets.find((t) => t.targetId === arg.target) as ProjectGraphTarget;
    return resolveTarget(r, other).address;
  }
  return literalValue(arg.type, arg.value, where);
}

/** The v4 permission mask of a hook's enabled callbacks. */
export function hookMaskOf(flags: readonly string[]): number {
  let mask = 0;
  for (const [flag, bit] of Object.entries(hookPermissionBits)) if (flags.includes(flag as HookPermission)) mask |= bit;
  return mask;
}

/**
 * Resolves a project's graph for the lane's factory and router: each target's constructor arguments encoded (a
 * target argument is the other target's predicted address, so targets resolve in dependency order; a cycle is
 * refused), its init code hash (creation code of the unit's build followed by the arguments), its salt (the hook's
 * mined so its address carries its mask, another's fixed or drawn from `fresh`) and its address. In manifest order.
 */
export function resolveProjectGraph(input: GraphResolutionInput): PackedGraphTarget[] {
  const resolution: Resolution = { ...input, done: new Map(), visiting: new Set() };
  return input.targets.map((t) => resolveTarget(resolution, t));
}

/** The metadata source of both lanes' manifests: the image is a project file published at imageUri. */
export type ProjectMetadataSource = BaseLayerProjectMetadataSource | MultiRoleProjectMetadataSource;

/** A project's metadata image: its bytes and media type. */
export interface ProjectImage {
  bytes: Buffer;
  mediaType: 'image/png' | 'image/gif';
}

/**
 * Reads the project's metadata image and checks it locally: a PNG or a single-frame GIF whose bytes match its file's
 * type; JPEG, WebP and animated images are IMAGE_REFUSED.
 */
export function readProjectImage(projectDir: string, imageFile: string): ProjectImage {
  const bytes = readProjectBytes(projectDir, imageFile);
  return { bytes, mediaType: checkProjectImage(bytes, imageFile) };
}

/** The request's projectMetadata (both lanes' requests carry the same shape): the manifest's fields, the image inline. */
export function packedProjectMetadata(metadata: ProjectMetadataSource, image: ProjectImage) {
  return {
    name: metadata.name,
    symbol: metadata.symbol,
    description: metadata.description,
    image: {
      mediaType: image.mediaType,
      uri: metadata.imageUri,
      sha256: sha256Digest(image.bytes),
      byteLength: image.bytes.length,
      contentBase64: image.bytes.toString('base64'),
    },
    website: metadata.website,
    xProfile: metadata.xProfile,
    ...(metadata.links ? { links: metadata.links } : {}),
  };
}

/** CAPABILITIES_MISMATCH unless the service's pinned compiler is this client's (else no init code hash would match). */
export function checkServiceCompiler(compilerVersion: string): void {
  const local = pinnedCompilerVersion();
  if (compilerVersion !== local) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      `the service builds with solc ${compilerVersion}, this client with ${local}; the init code hashes would not match`,
    );
  }
}

/** A random 32-byte value (0x + 64 lowercase hex): a pack's fresh value when none is given. */
export const randomHex32 = (_label: string): Hex => `0x${randomBytes(32).toString('hex')}`;

/** The launch nonce: the given one, else a decimal of 64 bits drawn from `fresh`. */
export function packNonce(nonce: string | undefined, fresh: (label: string) => Hex): string {
  return nonce ?? (BigInt(fresh('request nonce')) >> 192n).toString();
}

/**
 * The byte-exact JSON text of a packed request (two-space indented, one final newline), once it matches its schema
 * of spec/schemas (`schemaFile`); REQUEST_INVALID otherwise.
 */
export function packedRequestBytes(schemaFile: string, request: unknown): Buffer {
  const invalid = schemaProblems(schemaFile, request);
  if (invalid.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `the packed request does not match its schema:\n  ${invalid.join('\n  ')}`,
    );
  }
  return Buffer.from(`${JSON.stringify(request, null, 2)}\n`, 'utf8');
}
