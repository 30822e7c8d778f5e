import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { concat, encodeAbiParameters, type Hex, keccak256 } from 'viem';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { baseLaunchIntentHashOf, baseProjectMetadataHashOf, mineBaseHookSalt } from '../../src/core/base-graph.ts';
import type { BaseLayerPreflightContext } from '../../src/domain/base-layer/preflight.ts';
import { pinnedCompilerVersion, serverStandardJson } from '../../src/solidity/compile-contracts.ts';

/** The base-layer devnet's fixed addresses (src/devnet/base-devnet.ts deploys them at these addresses). */
export const baseDevnetAddresses = {
  poolManager: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  graphFactory: '0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0',
  launchRouter: '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9',
  fundingToken: '0xdc64a140aa3e981100a9beca4e685f962f0cf6c9',
} as const satisfies Record<string, Hex>;

/** anvil's test account 1, the default launch wallet. */
export const defaultBaseLaunchWallet = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

/** The test hook's permission mask: beforeSwap and afterSwap. */
export const baseHookMask = 0x00c0;

const fixtureDir = new URL('../fixtures/base-layer/', import.meta.url);

/** The Solidity sources of the test graph (test/fixtures/base-layer), by file name. */
export const baseLayerSources: Readonly<Record<string, string>> = Object.fromEntries(
  readdirSync(fixtureDir)
    .filter((f) => f.endsWith('.sol'))
    .sort()
    .map((f) => [f, readFileSync(new URL(f, fixtureDir), 'utf8')]),
);

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A real 2×2 RGB PNG (red, green / blue, white), 8-bit, not interlaced. */
export const tinyPng: Buffer = (() => {
  const ihdr = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]);
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
})();

/** The metadata image object of `bytes` as the request carries it. */
export function baseLayerImage(bytes: Buffer, mediaType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif') {
  return {
    mediaType,
    uri: 'https://example.com/token.png',
    sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    byteLength: bytes.length,
    contentBase64: bytes.toString('base64'),
  };
}

/** The one compilation unit of the test graph: every fixture source, optimizer on (200 runs), cancun. */
export const baseLayerUnit = {
  unitId: 'graph',
  standardJson: {
    language: 'Solidity' as const,
    sources: Object.fromEntries(Object.entries(baseLayerSources).map(([path, content]) => [path, { content }])),
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' as const },
  },
};

let creationCodes: Record<string, Hex> | undefined;

/** The creation code of a fixture contract as the server builds the unit (same input, same pinned solc-js). */
export function baseLayerCreationCode(contract: string): Hex {
  if (!creationCodes) {
    const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
    const output = JSON.parse(solc.compile(serverStandardJson(baseLayerUnit.standardJson)));
    creationCodes = {};
    for (const byName of Object.values<Record<string, { evm: { bytecode: { object: string } } }>>(output.contracts)) {
      for (const [name, c] of Object.entries(byName)) creationCodes[name] = `0x${c.evm.bytecode.object}`;
    }
  }
  const code = creationCodes[contract];
  if (!code) throw new Error(`no fixture contract ${contract}`);
  return code;
}

/** Options of a test request; every field has a valid default. */
export interface BaseLayerRequestOptions {
  launchWallet?: string;
  nonce?: string;
  kind?: 'direct' | 'router-primitive';
  profileVersion?: '3.2.0' | '3.3.0' | '3.4.0';
  funding?: CustomLaunchCreateRequestV3['funding'];
  feeAdapter?: string | null;
  /** Extra auxiliary targets by fixture contract name, e.g. BaseNote or BaseDestructible. */
  auxiliaries?: readonly string[];
  graphFactory?: Hex;
  launchRouter?: Hex;
  tokenSupply?: string;
}

/** Recomputes projectMetadataHash and launchIntentHash after a change, so only the changed rule can fail. */
export function sealBaseLayerRequest(request: CustomLaunchCreateRequestV3): CustomLaunchCreateRequestV3 {
  const withMetadata =
    request.projectMetadata === undefined
      ? request
      : { ...request, projectMetadataHash: baseProjectMetadataHashOf(request) };
  return { ...withMetadata, launchIntentHash: baseLaunchIntentHashOf(withMetadata) };
}

const saltOf = (label: string): Hex => keccak256(Buffer.from(`base-layer test salt ${label}`));
const minedSalts = new Map<string, Hex>();

function minedHookSalt(factory: Hex, router: Hex, initCodeHash: Hex): Hex {
  const key = `${factory}:${router}:${initCodeHash}`;
  let salt = minedSalts.get(key);
  if (!salt) {
    salt = mineBaseHookSalt(factory, router, initCodeHash, baseHookMask);
    minedSalts.set(key, salt);
  }
  return salt;
}

type Target = CustomLaunchCreateRequestV3['graph']['targets'][number];

/** A target of the test unit with its real init code hash. */
function fixtureTarget(targetId: string, role: Target['role'], contract: string, constructorArgs: Hex = '0x'): Target {
  const initCodeHash = keccak256(concat([baseLayerCreationCode(contract), constructorArgs]));
  return {
    targetId,
    role,
    compilationUnitId: baseLayerUnit.unitId,
    contractName: `${contract}.sol:${contract}`,
    constructorArgs,
    salt: saltOf(targetId),
    initCodeHash,
  };
}

/** The graph targets: token, hook (salt mined for its mask), initializer unless router primitive, auxiliaries. */
function fixtureTargets(options: BaseLayerRequestOptions, factory: Hex, router: Hex, tokenSupply: string): Target[] {
  const primitive = options.kind === 'router-primitive';
  const token = primitive
    ? fixtureTarget(
        'token',
        'token',
        'BasePrimitiveToken',
        encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [router, BigInt(tokenSupply)]),
      )
    : fixtureTarget('token', 'token', 'BaseToken');
  const hook = fixtureTarget('hook', 'hook', 'BaseHook');
  hook.salt = minedHookSalt(factory, router, hook.initCodeHash as Hex);
  hook.hookPermissionMask = baseHookMask;
  const auxiliaries = options.auxiliaries ?? (options.profileVersion === '3.4.0' ? ['BaseNote'] : []);
  return [
    token,
    hook,
    ...(primitive ? [] : [fixtureTarget('initializer', 'initializer', 'BaseInitializer')]),
    ...auxiliaries.map((name, i) => fixtureTarget(`aux.${i}`, 'auxiliary', name)),
  ];
}

/**
 * A valid, sealed base-layer (V3) create request over the real test graph (test/fixtures/base-layer): real init code
 * hashes of the pinned solc-js build, the hook's salt mined for its mask under the devnet's graph factory and
 * router, strict metadata with a real PNG, native funding unless given.
 */
export function baseLayerRequest(options: BaseLayerRequestOptions = {}): CustomLaunchCreateRequestV3 {
  const factory = options.graphFactory ?? baseDevnetAddresses.graphFactory;
  const router = options.launchRouter ?? baseDevnetAddresses.launchRouter;
  const launchWallet = options.launchWallet ?? defaultBaseLaunchWallet;
  const tokenSupply = options.tokenSupply ?? '1000000000000000000000000';
  const version = options.profileVersion ?? '3.3.0';
  const request = {
    schemaVersion: 'platform.custom-launch-create-request.v3',
    chainId: '1',
    caip2: 'eip155:1',
    profile: { schemaVersion: 'platform.direct-native-hook-graph-profile.v3', version, revision: 3 },
    launchWallet,
    nonce: options.nonce ?? '1',
    graph: { kind: options.kind ?? 'direct', targets: fixtureTargets(options, factory, router, tokenSupply) },
    compilation: { compilerVersion: pinnedCompilerVersion(), units: [baseLayerUnit] },
    projectMetadata: {
      name: 'Base Launch Token',
      symbol: 'BLT',
      description: 'A base-layer test launch with a real graph.',
      image: baseLayerImage(tinyPng, 'image/png'),
      website: 'https://example.com',
      xProfile: 'https://x.com/example',
    },
    projectMetadataHash: '',
    liquidity: { lpFee: 3000, tickSpacing: 60, sqrtPriceX96: (2n ** 96n).toString(), tokenSupply },
    funding: options.funding ?? { mode: 'native', valueWei: '1000000000000000000' },
    applicantRates: { mode: 'additive', buyRateHundredthsBip: 0, sellRateHundredthsBip: 0, recipient: launchWallet },
    feeAdapter: options.feeAdapter ?? null,
    launchIntentHash: '',
  } as CustomLaunchCreateRequestV3;
  return sealBaseLayerRequest(request);
}

/**
 * The rule and review context of the base-layer devnet as a test server would configure it: 3.4.0 inactive, dUSD as
 * the funding token, the pinned compiler, no retired rule, no fee certification.
 */
export function baseLayerTestContext(): BaseLayerPreflightContext {
  return {
    profile340Active: false,
    fundingTokens: [baseDevnetAddresses.fundingToken],
    compilerVersion: pinnedCompilerVersion(),
    retiredRules: [],
    canonicalPoolManager: baseDevnetAddresses.poolManager,
    deployment: { launchRouter: baseDevnetAddresses.launchRouter, graphFactory: baseDevnetAddresses.graphFactory },
    feeCertifications: [],
  };
}

/** The exact bytes of a request as a client sends them. */
export function baseLayerRequestBytes(request: CustomLaunchCreateRequestV3): Buffer {
  return Buffer.from(JSON.stringify(request), 'utf8');
}
