import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV3, CustomLaunchPreflightV3 } from '../../generated/types/service.ts';
import type { Principal } from '../../src/auth/keys.ts';
import { digestOf } from '../../src/core/request-hashes.ts';
import { type BaseLayerPreflightContext, preflightBaseLayer } from '../../src/domain/base-layer/preflight.ts';
import type { ApiError } from '../../src/errors/api-error.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import {
  baseLayerRequest,
  baseLayerRequestBytes,
  baseLayerTestContext,
  defaultBaseLaunchWallet,
  sealBaseLayerRequest,
} from '../support/base-layer-request.ts';

const principal: Principal = {
  keyId: 'key-wallet',
  kind: 'wallet',
  wallet: defaultBaseLaunchWallet,
  scopes: ['custom-launch:create'],
  chains: ['1'],
  lineageId: 'lineage-wallet',
  partnerId: null,
  budgets: null,
  expiresAt: null,
};

const context: BaseLayerPreflightContext = baseLayerTestContext();

async function preflight(
  request: CustomLaunchCreateRequestV3,
  changes: Partial<BaseLayerPreflightContext> = {},
): Promise<CustomLaunchPreflightV3> {
  const result = await preflightBaseLayer(principal, request, baseLayerRequestBytes(request), {
    ...context,
    ...changes,
  });
  expect(schemaProblems('custom-launch-preflight.v3.schema.json', result)).toEqual([]);
  return result;
}

const mismatched = () => {
  const request = structuredClone(baseLayerRequest());
  (request.graph.targets[0] as { initCodeHash: string }).initCodeHash = keccak256('0x00');
  return sealBaseLayerRequest(request);
};

type Want = Pick<
  CustomLaunchPreflightV3,
  'disposition' | 'blockingFindingCodes' | 'warningFindingCodes' | 'needsEvidenceFindingCodes'
> & { deployable: boolean; certified: boolean };

const rows: Array<
  [name: string, request: () => CustomLaunchCreateRequestV3, changes: Partial<BaseLayerPreflightContext>, want: Want]
> = [
  [
    'a clean graph: deployable, simulation pending',
    () => baseLayerRequest(),
    {},
    {
      disposition: 'supported_with_warnings',
      blockingFindingCodes: [],
      warningFindingCodes: ['POOL_MANAGER_NOT_STATIC', 'TX_SIMULATION_PENDING'],
      needsEvidenceFindingCodes: [],
      deployable: true,
      certified: false,
    },
  ],
  [
    'a clean graph of a certified profile',
    () => baseLayerRequest(),
    { feeCertifications: [{ adapter: null, profileVersion: '3.3.0' }] },
    {
      disposition: 'supported_with_warnings',
      blockingFindingCodes: [],
      warningFindingCodes: ['POOL_MANAGER_NOT_STATIC', 'TX_SIMULATION_PENDING'],
      needsEvidenceFindingCodes: [],
      deployable: true,
      certified: true,
    },
  ],
  [
    'a runtime SELFDESTRUCT',
    () => baseLayerRequest({ auxiliaries: ['BaseDestructible'] }),
    {},
    {
      disposition: 'unsupported',
      blockingFindingCodes: ['RUNTIME_SELFDESTRUCT'],
      warningFindingCodes: ['POOL_MANAGER_NOT_STATIC'],
      needsEvidenceFindingCodes: [],
      deployable: false,
      certified: false,
    },
  ],
  [
    'a runtime SELFDESTRUCT whose rule is retired',
    () => baseLayerRequest({ auxiliaries: ['BaseDestructible'] }),
    { retiredRules: ['RUNTIME_SELFDESTRUCT'] },
    {
      disposition: 'supported_with_warnings',
      blockingFindingCodes: [],
      warningFindingCodes: ['POOL_MANAGER_NOT_STATIC', 'TX_SIMULATION_PENDING'],
      needsEvidenceFindingCodes: [],
      deployable: true,
      certified: false,
    },
  ],
  [
    'an init code hash the build does not give',
    mismatched,
    {},
    {
      disposition: 'unsupported',
      blockingFindingCodes: ['V3_INIT_CODE_MISMATCH'],
      warningFindingCodes: [],
      needsEvidenceFindingCodes: [],
      deployable: false,
      certified: false,
    },
  ],
  [
    'an uncertified adapter',
    () => baseLayerRequest({ feeAdapter: '0x2222222222222222222222222222222222222222' }),
    {},
    {
      disposition: 'supported_with_warnings',
      blockingFindingCodes: [],
      warningFindingCodes: ['FEE_CERTIFICATION_NOT_FOUND', 'POOL_MANAGER_NOT_STATIC', 'TX_SIMULATION_PENDING'],
      needsEvidenceFindingCodes: [],
      deployable: true,
      certified: false,
    },
  ],
];

describe('preflightBaseLayer', () => {
  it.each(rows)('%s', async (_name, request, changes, want) => {
    const given = request();
    const result = await preflight(given, changes);
    const { deployable, certified, ...codes } = want;
    expect(result).toMatchObject({
      ...codes,
      schemaVersion: 'platform.custom-launch-preflight.v3',
      chainId: '1',
      caip2: 'eip155:1',
      launchProfileVersion: '3.3.0',
      requestHash: digestOf(given),
      launchEligibility: { deployable, routable: deployable, featured: false },
      safetyClaim: false,
      feeBehaviorClaim: false,
    });
    expect(result.feeCertification.certified).toBe(certified);
  });

  it('throws the request rules before building (a broken hash is 400 INVALID_REQUEST)', async () => {
    const request = { ...baseLayerRequest(), nonce: '9' };
    await expect(preflightBaseLayer(principal, request, baseLayerRequestBytes(request), context)).rejects.toMatchObject(
      { code: 'INVALID_REQUEST' } satisfies Partial<ApiError>,
    );
  });
});
