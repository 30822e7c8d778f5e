import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import type { Principal } from '../../src/auth/keys.ts';
import { baseLaunchIntentHashOf } from '../../src/core/base-graph.ts';
import {
  type BaseLayerRuleContext,
  baseLayerRequestLimits,
  checkBaseLayerRequestRules,
} from '../../src/domain/base-layer/request-rules.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import {
  type BaseLayerRequestOptions,
  baseDevnetAddresses,
  baseLayerImage,
  baseLayerRequest,
  baseLayerRequestBytes,
  baseLayerUnit,
  defaultBaseLaunchWallet,
  sealBaseLayerRequest,
  tinyPng,
} from '../support/base-layer-request.ts';

type Request = CustomLaunchCreateRequestV3;
type Unit = Request['compilation']['units'][number];

const walletKey = (wallet: string): Principal => ({
  keyId: 'key-wallet',
  kind: 'wallet',
  wallet,
  scopes: ['custom-launch:create'],
  chains: ['1'],
  lineageId: 'lineage-wallet',
  partnerId: null,
  budgets: null,
  expiresAt: null,
});
const partnerRoot: Principal = { ...walletKey(defaultBaseLaunchWallet), kind: 'partner-root', wallet: null };

const context: BaseLayerRuleContext = {
  profile340Active: false,
  fundingTokens: [baseDevnetAddresses.fundingToken],
  compilerVersion: pinnedCompilerVersion(),
};

/** What a row changes: request options, an edit of the built request (sealed again unless `seal` is false), and more. */
interface Given {
  options?: BaseLayerRequestOptions;
  edit?: (request: Request) => void;
  /** false: keep both hashes as built; 'intent': bind only launchIntentHash again. */
  seal?: false | 'intent';
  principal?: Principal;
  bytes?: (request: Request) => Buffer;
  context?: Partial<BaseLayerRuleContext>;
  /** The row breaks a bound the schema states too (the server asserts it again); otherwise the request is schema-valid. */
  schemaInvalid?: true;
}

/** null: the rules pass. Otherwise the error code and, for INVALID_REQUEST, the location of the one issue. */
type Want =
  | null
  | { code: 'WALLET_MISMATCH' | 'PROFILE_NOT_ACTIVE' | 'PAYLOAD_TOO_LARGE' }
  | { code: 'INVALID_REQUEST'; location: string | string[] };

const base = baseLayerRequest();
const clone = (options?: BaseLayerRequestOptions): Request =>
  structuredClone(options ? baseLayerRequest(options) : base);

const metadata = (r: Request) => r.projectMetadata as NonNullable<Request['projectMetadata']>;
const image = (r: Request) => metadata(r).image as NonNullable<NonNullable<Request['projectMetadata']>['image']>;

/** A unit holding one source of exactly `bytes` bytes of standard JSON (UTF-8 of JSON.stringify). */
function unitOfBytes(unitId: string, bytes: number): Unit {
  const unit = (content: string): Unit => ({
    unitId,
    standardJson: { ...baseLayerUnit.standardJson, sources: { 'Pad.sol': { content } } },
  });
  const overhead = Buffer.byteLength(JSON.stringify(unit('').standardJson));
  return unit('x'.repeat(bytes - overhead));
}

/** A unit of `count` one-line sources. */
function unitOfSources(unitId: string, count: number): Unit {
  const sources = Object.fromEntries(Array.from({ length: count }, (_, i) => [`S${i}.sol`, { content: '//' }]));
  return { unitId, standardJson: { ...baseLayerUnit.standardJson, sources } };
}

const pad = (request: Request, total: number) => {
  const json = baseLayerRequestBytes(request);
  return Buffer.concat([json, Buffer.alloc(total - json.length, 0x20)]);
};

const limits = baseLayerRequestLimits;
const jpeg = readFileSync(new URL('../fixtures/images/baseline-420.jpg', import.meta.url));
const webp = readFileSync(new URL('../fixtures/images/lossy.webp', import.meta.url));
const otherCompiler = '0.8.26+commit.8a97fa7a';

const rows: Array<[name: string, given: Given, want: Want]> = [
  ['the valid base request', {}, null],
  [
    'a wallet key of the launch wallet (other case)',
    { principal: walletKey(defaultBaseLaunchWallet.toUpperCase().replace('0X', '0x')) },
    null,
  ],
  [
    'a wallet key of another wallet',
    { principal: walletKey(baseDevnetAddresses.poolManager) },
    { code: 'WALLET_MISMATCH' },
  ],
  ['a partner root key', { principal: partnerRoot }, null],
  ['profile 3.4.0 while inactive', { options: { profileVersion: '3.4.0' } }, { code: 'PROFILE_NOT_ACTIVE' }],
  ['profile 3.4.0 once active', { options: { profileVersion: '3.4.0' }, context: { profile340Active: true } }, null],
  ['a request of exactly 8,388,608 bytes', { bytes: (r) => pad(r, limits.requestBytes) }, null],
  ['a request of 8,388,609 bytes', { bytes: (r) => pad(r, limits.requestBytes + 1) }, { code: 'PAYLOAD_TOO_LARGE' }],
  [
    'a description of 20 UTF-8 bytes',
    {
      edit: (r) => {
        metadata(r).description = 'abcdefghij0123456789';
      },
    },
    null,
  ],
  [
    'a description of 19 UTF-8 bytes (10 code points)',
    {
      edit: (r) => {
        metadata(r).description = `${'é'.repeat(9)}a`;
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/description' },
  ],
  [
    'a description of 4,096 UTF-8 bytes',
    {
      edit: (r) => {
        metadata(r).description = 'é'.repeat(2048);
      },
    },
    null,
  ],
  [
    'a description of 4,097 UTF-8 bytes (2,049 code points)',
    {
      edit: (r) => {
        metadata(r).description = `${'é'.repeat(2048)}a`;
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/description' },
  ],
  [
    'a description with 8 letters or digits',
    {
      edit: (r) => {
        metadata(r).description = 'a-b-c-d-e-f-g-h-------';
      },
    },
    null,
  ],
  [
    'a description with 7 letters or digits',
    {
      edit: (r) => {
        metadata(r).description = 'a-b-c-d-e-f-g---------';
      },
      schemaInvalid: true,
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/description' },
  ],
  [
    'a short description under 3.2.0 (not strict)',
    {
      options: { profileVersion: '3.2.0' },
      edit: (r) => {
        metadata(r).description = 'short';
      },
    },
    null,
  ],
  [
    'a description of 4,097 UTF-8 bytes under 3.2.0',
    {
      options: { profileVersion: '3.2.0' },
      edit: (r) => {
        metadata(r).description = `${'é'.repeat(2048)}a`;
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/description' },
  ],
  [
    'profile 3.1.0 (revision 2) without metadata',
    {
      edit: (r) => {
        r.profile = { ...r.profile, version: '3.1.0', revision: 2 };
        delete r.projectMetadata;
        delete r.projectMetadataHash;
      },
    },
    null,
  ],
  [
    'a projectMetadataHash that does not bind',
    {
      edit: (r) => {
        metadata(r).name = 'Changed';
      },
      seal: 'intent',
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadataHash' },
  ],
  [
    'a launchIntentHash that does not bind',
    {
      edit: (r) => {
        r.nonce = '2';
      },
      seal: false,
    },
    { code: 'INVALID_REQUEST', location: '/launchIntentHash' },
  ],
  [
    'an image sha256 that does not match',
    {
      edit: (r) => {
        image(r).sha256 = `sha256:${'0'.repeat(64)}`;
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/sha256' },
  ],
  [
    'an image byteLength one more than the bytes',
    {
      edit: (r) => {
        image(r).byteLength = tinyPng.length + 1;
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/byteLength' },
  ],
  [
    'a real JPEG declared as JPEG',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(jpeg, 'image/jpeg');
      },
    },
    null,
  ],
  [
    'a real WebP declared as WebP',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(webp, 'image/webp');
      },
    },
    null,
  ],
  [
    'bytes that only start like a JPEG',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(Buffer.concat([jpeg.subarray(0, 3), Buffer.alloc(40)]), 'image/jpeg');
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/contentBase64' },
  ],
  [
    'PNG bytes declared as JPEG',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(tinyPng, 'image/jpeg');
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/contentBase64' },
  ],
  [
    'a PNG cut before its IEND chunk',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(tinyPng.subarray(0, tinyPng.length - 12), 'image/png');
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/contentBase64' },
  ],
  [
    'bytes that only start like a PNG',
    {
      edit: (r) => {
        metadata(r).image = baseLayerImage(Buffer.concat([tinyPng.subarray(0, 8), Buffer.alloc(24)]), 'image/png');
      },
    },
    { code: 'INVALID_REQUEST', location: '/projectMetadata/image/contentBase64' },
  ],
  [
    'two targets with one targetId',
    {
      edit: (r) => {
        (r.graph.targets[2] as { targetId: string }).targetId = 'token';
      },
    },
    { code: 'INVALID_REQUEST', location: '/graph/targets/2/targetId' },
  ],
  [
    'two units with one unitId',
    { edit: (r) => void r.compilation.units.push(structuredClone(baseLayerUnit)) },
    { code: 'INVALID_REQUEST', location: '/compilation/units/1/unitId' },
  ],
  [
    'a target naming no unit',
    {
      edit: (r) => {
        (r.graph.targets[0] as { compilationUnitId: string }).compilationUnitId = 'other';
      },
    },
    { code: 'INVALID_REQUEST', location: '/graph/targets/0/compilationUnitId' },
  ],
  [
    'a target naming a source its unit lacks',
    {
      edit: (r) => {
        (r.graph.targets[0] as { contractName: string }).contractName = 'Missing.sol:BaseToken';
      },
    },
    { code: 'INVALID_REQUEST', location: '/graph/targets/0/contractName' },
  ],
  [
    'a unit of exactly 5,242,880 bytes',
    {
      edit: (r) => {
        r.compilation.units = [unitOfBytes('graph', limits.standardJsonBytes)];
        r.graph.targets.forEach((t) => {
          (t as { contractName: string }).contractName = 'Pad.sol:X';
        });
      },
    },
    null,
  ],
  [
    'a unit of 5,242,881 bytes',
    {
      edit: (r) => {
        r.compilation.units = [unitOfBytes('graph', limits.standardJsonBytes + 1)];
        r.graph.targets.forEach((t) => {
          (t as { contractName: string }).contractName = 'Pad.sol:X';
        });
      },
    },
    { code: 'INVALID_REQUEST', location: ['/compilation/units/0/standardJson', '/compilation/units'] },
  ],
  [
    'units of 5,242,880 bytes together',
    {
      edit: (r) => {
        const first = Buffer.byteLength(JSON.stringify(baseLayerUnit.standardJson));
        r.compilation.units.push(unitOfBytes('pad', limits.standardJsonBytes - first));
      },
    },
    null,
  ],
  [
    'units of 5,242,881 bytes together',
    {
      edit: (r) => {
        const first = Buffer.byteLength(JSON.stringify(baseLayerUnit.standardJson));
        r.compilation.units.push(unitOfBytes('pad', limits.standardJsonBytes - first + 1));
      },
    },
    { code: 'INVALID_REQUEST', location: '/compilation/units' },
  ],
  [
    '2,048 inline sources across units',
    {
      edit: (r) => {
        const first = Object.keys(baseLayerUnit.standardJson.sources).length;
        r.compilation.units.push(unitOfSources('pad', limits.inlineSources - first));
      },
    },
    null,
  ],
  [
    '2,049 inline sources across units',
    {
      edit: (r) => {
        const first = Object.keys(baseLayerUnit.standardJson.sources).length;
        r.compilation.units.push(unitOfSources('pad', limits.inlineSources - first + 1));
      },
    },
    { code: 'INVALID_REQUEST', location: '/compilation/units' },
  ],
  [
    'revision 3 naming another compiler',
    {
      edit: (r) => {
        r.compilation.compilerVersion = otherCompiler;
      },
    },
    { code: 'INVALID_REQUEST', location: '/compilation/compilerVersion' },
  ],
  [
    'revision 2 naming the pinned compiler',
    {
      options: { profileVersion: '3.2.0' },
      edit: (r) => {
        r.profile.revision = 2;
      },
    },
    null,
  ],
  [
    'revision 2 naming another compiler',
    {
      options: { profileVersion: '3.2.0' },
      edit: (r) => {
        r.profile.revision = 2;
        r.compilation.compilerVersion = otherCompiler;
      },
    },
    { code: 'INVALID_REQUEST', location: '/compilation/compilerVersion' },
  ],
  [
    'an accepted EIP-3009 funding token (other case)',
    {
      options: {
        funding: {
          mode: 'eip3009',
          valueWei: '1',
          token: baseDevnetAddresses.fundingToken.toUpperCase().replace('0X', '0x'),
          amount: '1000000',
          recipient: defaultBaseLaunchWallet,
        },
      },
    },
    null,
  ],
  [
    'an EIP-3009 funding token the deployment does not accept',
    {
      options: {
        funding: {
          mode: 'eip3009',
          valueWei: '1',
          token: baseDevnetAddresses.poolManager,
          amount: '1000000',
          recipient: defaultBaseLaunchWallet,
        },
      },
    },
    { code: 'INVALID_REQUEST', location: '/funding/token' },
  ],
  [
    'an additive buy rate of 100,000',
    {
      edit: (r) => {
        r.applicantRates.buyRateHundredthsBip = 100_000;
      },
    },
    null,
  ],
  [
    'an additive buy rate of 100,001',
    {
      edit: (r) => {
        r.applicantRates.buyRateHundredthsBip = 100_001;
      },
      schemaInvalid: true,
    },
    { code: 'INVALID_REQUEST', location: '/applicantRates/buyRateHundredthsBip' },
  ],
  [
    'an inclusive sell rate of 100,000',
    {
      edit: (r) => {
        r.applicantRates.mode = 'inclusive';
        r.applicantRates.sellRateHundredthsBip = 100_000;
      },
    },
    null,
  ],
  [
    'an inclusive sell rate of 100,001',
    {
      edit: (r) => {
        r.applicantRates.mode = 'inclusive';
        r.applicantRates.sellRateHundredthsBip = 100_001;
      },
      schemaInvalid: true,
    },
    { code: 'INVALID_REQUEST', location: '/applicantRates/sellRateHundredthsBip' },
  ],
  ['a direct graph of 16 targets', { options: { auxiliaries: Array(13).fill('BaseNote') } }, null],
  [
    'a direct graph of 17 targets',
    { options: { auxiliaries: Array(14).fill('BaseNote') }, schemaInvalid: true },
    { code: 'INVALID_REQUEST', location: '/graph/targets' },
  ],
  [
    'a direct graph with two initializers',
    {
      options: { auxiliaries: ['BaseInitializer'] },
      edit: (r) => {
        (r.graph.targets[3] as { role: string }).role = 'initializer';
      },
      schemaInvalid: true,
    },
    { code: 'INVALID_REQUEST', location: '/graph/targets' },
  ],
  [
    'a direct graph of 2 targets (no initializer)',
    { edit: (r) => void r.graph.targets.pop(), schemaInvalid: true },
    { code: 'INVALID_REQUEST', location: ['/graph/targets', '/graph/targets'] },
  ],
  ['a router-primitive graph of 2 targets', { options: { kind: 'router-primitive' } }, null],
  [
    'a router-primitive graph with an initializer',
    {
      options: { kind: 'router-primitive', auxiliaries: ['BaseInitializer'] },
      edit: (r) => {
        (r.graph.targets[2] as { role: string }).role = 'initializer';
      },
      schemaInvalid: true,
    },
    { code: 'INVALID_REQUEST', location: '/graph/targets' },
  ],
  [
    'profile 3.4.0 with 4 targets',
    { options: { profileVersion: '3.4.0', auxiliaries: ['BaseNote'] }, context: { profile340Active: true } },
    null,
  ],
  [
    'profile 3.4.0 with 3 targets',
    { options: { profileVersion: '3.4.0', auxiliaries: [] }, context: { profile340Active: true }, schemaInvalid: true },
    { code: 'INVALID_REQUEST', location: '/graph/targets' },
  ],
];

describe('checkBaseLayerRequestRules', () => {
  it('builds a schema-valid base request', () => {
    expect(schemaProblems('custom-launch-create-request.v3.schema.json', base)).toEqual([]);
  });

  it.each(rows)('%s', (_name, given, want) => {
    const request = clone(given.options);
    given.edit?.(request);
    const checked =
      given.seal === false
        ? request
        : given.seal === 'intent'
          ? { ...request, launchIntentHash: baseLaunchIntentHashOf(request) }
          : sealBaseLayerRequest(request);
    const problems = schemaProblems('custom-launch-create-request.v3.schema.json', checked);
    if (given.schemaInvalid) expect(problems).not.toEqual([]);
    else expect(problems).toEqual([]);
    const bytes = given.bytes?.(checked) ?? baseLayerRequestBytes(checked);
    const run = () =>
      checkBaseLayerRequestRules(given.principal ?? walletKey(defaultBaseLaunchWallet), checked, bytes, {
        ...context,
        ...given.context,
      });
    if (want === null) {
      expect(run).not.toThrow();
      return;
    }
    let thrown: unknown;
    try {
      run();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.code).toBe(want.code);
    if (want.code === 'INVALID_REQUEST') {
      expect(error.issues?.map((i) => i.location)).toEqual([want.location].flat());
    }
  });
});
