import type { Hex } from 'viem';
import type { CustomLaunchCapabilitiesV3, CustomLaunchCreateRequestV3 } from '../../../generated/types/service.ts';
import { baseLaunchIntentHashOf, baseProjectMetadataHashOf, predictBaseLaunch } from '../../core/base-graph.ts';
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
import { type BaseLayerProjectManifestV1, checkBaseLayerManifest, readBaseLayerManifest } from './manifest.ts';

type GraphTarget = CustomLaunchCreateRequestV3['graph']['targets'][number];
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

const unitId = 'main';

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
  checkServiceCompiler(capabilities.compilerVersion);
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
  const image = readProjectImage(projectDir, metadata.imageFile);
  const standardJson = projectCompilationUnit(projectDir, manifest.targets);
  const build = compileProjectUnit(standardJson);
  const resolved = resolveProjectGraph({ targets: manifest.targets, build, deployment, hookRole: 'hook', fresh });
  const targets = resolved.map(
    ({ address: _address, targetId, role, ...rest }) =>
      ({ targetId, role, compilationUnitId: unitId, ...rest }) as GraphTarget,
  );
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
    nonce: packNonce(options.nonce, fresh),
    graph: { kind: manifest.graphKind, targets },
    compilation: { compilerVersion: build.compilerVersion, units: [{ unitId, standardJson }] },
    projectMetadata: packedProjectMetadata(metadata, image),
    projectMetadataHash: '',
    liquidity: manifest.liquidity,
    funding: manifest.funding,
    applicantRates: manifest.applicantRates,
    feeAdapter: manifest.feeAdapter,
    launchIntentHash: '',
  };
  request.projectMetadataHash = baseProjectMetadataHashOf(request);
  request.launchIntentHash = baseLaunchIntentHashOf(request);
  const bytes = packedRequestBytes('custom-launch-create-request.v3.schema.json', request);
  const hook = targets.find((t) => t.role === 'hook') as GraphTarget;
  return {
    request,
    bytes,
    hook: { mask: hook.hookPermissionMask ?? 0, salt: hook.salt as Hex },
    predicted: predictBaseLaunch(request, deployment.graphFactory as Hex, deployment.launchRouter as Hex),
  };
}
