import type { Hex } from 'viem';
import type {
  MultiRoleCustomLaunchCapabilitiesV2,
  MultiRoleCustomLaunchCreateRequestV2,
} from '../../../generated/types/service.ts';
import {
  multiRoleLaunchIntentHashOf,
  multiRoleProjectMetadataHashOf,
  predictMultiRoleLaunch,
} from '../../core/multi-role-graph.ts';
import {
  checkServiceCompiler,
  compileProjectUnit,
  packedProjectMetadata,
  packedRequestBytes,
  packNonce,
  projectCompilationUnit,
  randomHex32,
  readProjectImage,
  resolveProjectGraph,
} from '../core/graph-pack.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { checkMultiRoleManifest, type MultiRoleProjectManifestV1, readMultiRoleManifest } from './manifest.ts';

type GraphTarget = MultiRoleCustomLaunchCreateRequestV2['graph']['targets'][number];
/** The lane's contracts a pack binds: the capabilities' `deployment`. */
export type MultiRoleDeploymentContracts = NonNullable<MultiRoleCustomLaunchCapabilitiesV2['deployment']>;

/**
 * What a pack reads of GET /v4/chains/4663/multi-role-custom-launches/capabilities: the pinned compiler (it must be
 * this client's), the lane's contracts, and when given the profile revisions (the manifest's must accept new
 * submissions). The whole capabilities document fits.
 */
export type MultiRolePackCapabilities = Pick<MultiRoleCustomLaunchCapabilitiesV2, 'compilerVersion' | 'deployment'> &
  Partial<Pick<MultiRoleCustomLaunchCapabilitiesV2, 'profiles'>>;

/** Options of a shared-lane pack. */
export interface MultiRolePackOptions {
  /** The controller wallet that reviews, signs and broadcasts the wallet transaction. */
  launchWallet: string;
  /** The launch nonce (a decimal string); drawn from `fresh` unless given. */
  nonce?: string;
  /**
   * The lane's capabilities, or a function that reads them; the function is called only after the manifest and the
   * image passed their local checks, so a refused project makes no network request.
   */
  capabilities: MultiRolePackCapabilities | (() => Promise<MultiRolePackCapabilities>);
  /** A fresh 32-byte value for a label (the nonce, each drawn salt, the hook salt search start); random unless given. */
  fresh?: (label: string) => Hex;
  /** A manifest used instead of the folder's launch-multi-role.json (checked the same way). */
  manifest?: MultiRoleProjectManifestV1;
}

/** What a shared-lane pack produced: the request, its byte-exact JSON text, and what it predicts on chain 4663. */
export interface MultiRolePackResult {
  request: MultiRoleCustomLaunchCreateRequestV2;
  bytes: Buffer;
  /** The token_hook's permission mask and its mined salt. */
  tokenHook: { mask: number; salt: Hex };
  /** The token_hook's address (the token and the pool's hooks) and the pool id the router will create. */
  predicted: { tokenHook: Hex; poolId: Hex };
}

/** The lane's contracts, once the capabilities' deployment, compiler and profile revision are checked. */
function laneContracts(
  capabilities: MultiRolePackCapabilities,
  manifest: MultiRoleProjectManifestV1,
): MultiRoleDeploymentContracts {
  if (!capabilities.deployment) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      'the service has bound no shared-lane contracts (capabilities deployment is null); it accepts no launch',
    );
  }
  checkServiceCompiler(capabilities.compilerVersion);
  const revision = manifest.profileRevision;
  if (capabilities.profiles && !capabilities.profiles.some((p) => p.revision === revision && p.acceptsNewSubmissions)) {
    throw new LocalCheckError(
      'CAPABILITIES_MISMATCH',
      `the service's profile revision ${revision} does not accept new submissions (capabilities profiles)`,
    );
  }
  return capabilities.deployment;
}

/**
 * `multi-role pack`: turns a shared-lane project folder (launch-multi-role.json, the Solidity sources, the image)
 * into a MultiRoleCustomLaunchCreateRequestV2 (spec/schemas/multi-role-create-request.v2.schema.json) for the lane's
 * contracts. The manifest (spec/schemas/multi-role-project-manifest.v1.schema.json) is validated and the image
 * checked (PNG or single-frame GIF; JPEG, WebP and animated images are refused) before the capabilities are read; then
 * the sources are carried inline as one standard-JSON input and compiled with the pinned solc to compute each
 * target's init code hash (creation code followed by the encoded constructor arguments: literals, the lane's
 * contracts, other targets' predicted addresses), the token_hook's salt mined so its CREATE2 address (lane factory,
 * lane router) carries its mask, projectMetadataHash and launchIntentHash bound, and the result validated against its
 * schema. Rejects with LocalCheckError. The same inputs and `fresh` give the same bytes.
 */
export async function packMultiRoleProject(
  projectDir: string,
  options: MultiRolePackOptions,
): Promise<MultiRolePackResult> {
  const manifest = options.manifest
    ? checkMultiRoleManifest(options.manifest, 'the given manifest')
    : readMultiRoleManifest(projectDir);
  const { metadata } = manifest;
  const image = readProjectImage(projectDir, metadata.imageFile);
  const capabilities = typeof options.capabilities === 'function' ? await options.capabilities() : options.capabilities;
  const deployment = laneContracts(capabilities, manifest);
  const fresh = options.fresh ?? randomHex32;
  const unit = projectCompilationUnit(projectDir, manifest.targets);
  const build = compileProjectUnit(unit);
  const resolved = resolveProjectGraph({ targets: manifest.targets, build, deployment, hookRole: 'token_hook', fresh });
  const targets = resolved.map(({ address: _address, ...target }) => target as GraphTarget);
  const request: MultiRoleCustomLaunchCreateRequestV2 = {
    schemaVersion: 'platform.multi-role-custom-launch-create-request.v2',
    chainId: '4663',
    caip2: 'eip155:4663',
    profile: { schemaVersion: 'platform.multi-role-launch-profile.v2', revision: manifest.profileRevision },
    launchWallet: options.launchWallet,
    nonce: packNonce(options.nonce, fresh),
    graph: { targets: targets as MultiRoleCustomLaunchCreateRequestV2['graph']['targets'] },
    source: { compilerVersion: build.compilerVersion, ...unit },
    liquidity: manifest.liquidity,
    economics: manifest.economics,
    funding: manifest.funding,
    projectMetadata: packedProjectMetadata(metadata, image),
    projectMetadataHash: '',
    launchIntentHash: '',
  };
  request.projectMetadataHash = multiRoleProjectMetadataHashOf(request);
  request.launchIntentHash = multiRoleLaunchIntentHashOf(request);
  const bytes = packedRequestBytes('multi-role-create-request.v2.schema.json', request);
  const tokenHook = targets.find((t) => t.role === 'token_hook') as GraphTarget;
  return {
    request,
    bytes,
    tokenHook: { mask: tokenHook.hookPermissionMask ?? 0, salt: tokenHook.salt as Hex },
    predicted: predictMultiRoleLaunch(request, deployment.graphFactory as Hex, deployment.launchRouter as Hex),
  };
}
