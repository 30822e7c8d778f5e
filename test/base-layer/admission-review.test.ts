import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { predictBaseLaunch } from '../../src/core/base-graph.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import { type BaseLayerReviewContext, reviewBaseLayerLaunch } from '../../src/domain/base-layer/admission-review.ts';
import { buildBaseGraph } from '../../src/domain/base-layer/build.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import {
  type BaseLayerRequestOptions,
  baseDevnetAddresses,
  baseHookMask,
  baseLayerRequest,
  sealBaseLayerRequest,
} from '../support/base-layer-request.ts';

const context: BaseLayerReviewContext = {
  retiredRules: [],
  canonicalPoolManager: baseDevnetAddresses.poolManager,
  deployment: { launchRouter: baseDevnetAddresses.launchRouter, graphFactory: baseDevnetAddresses.graphFactory },
  feeCertifications: [],
};

async function review(
  request: CustomLaunchCreateRequestV3,
  changes: Partial<BaseLayerReviewContext> = {},
): Promise<ReturnType<typeof reviewBaseLayerLaunch>> {
  const build = await buildBaseGraph(request);
  if (!build.ok) throw new Error(build.message);
  return reviewBaseLayerLaunch(request, build, { ...context, ...changes });
}

const adapter = '0x1111111111111111111111111111111111111111';
const withAdapter = (options: BaseLayerRequestOptions = {}) => baseLayerRequest({ ...options, feeAdapter: adapter });

describe('reviewBaseLayerLaunch', () => {
  it('finds no hard block in the clean graph and predicts token, hook and pool id', async () => {
    const request = baseLayerRequest();
    const result = await review(request);
    expect(result.hardBlocks).toEqual([]);
    expect(result.needsEvidence).toEqual([]);
    expect(result.warnings).toEqual(result.findingCodes);
    expect(result.predicted).toEqual(
      predictBaseLaunch(request, baseDevnetAddresses.graphFactory, baseDevnetAddresses.launchRouter),
    );
    expect(addressHookBits(result.predicted.hook)).toBe(baseHookMask);
  });

  it('blocks a graph whose runtime code reaches SELFDESTRUCT', async () => {
    const result = await review(baseLayerRequest({ auxiliaries: ['BaseDestructible'] }));
    expect(result.hardBlocks).toEqual(['RUNTIME_SELFDESTRUCT']);
    expect(result.findingCodes).toContain('RUNTIME_SELFDESTRUCT');
  });

  it('has no current hard block once that rule is retired, and still reports the finding', async () => {
    const result = await review(baseLayerRequest({ auxiliaries: ['BaseDestructible'] }), {
      retiredRules: ['RUNTIME_SELFDESTRUCT'],
    });
    expect(result.hardBlocks).toEqual([]);
    expect(result.findingCodes).toContain('RUNTIME_SELFDESTRUCT');
  });

  it('blocks a hook whose predicted address does not carry its mask, even with the code retired', async () => {
    const request = structuredClone(baseLayerRequest());
    const hook = request.graph.targets[1] as { salt: string };
    hook.salt = `0x${'ab'.repeat(32)}`;
    const sealed = sealBaseLayerRequest(request);
    const mismatched = addressHookBits(
      predictBaseLaunch(sealed, baseDevnetAddresses.graphFactory, baseDevnetAddresses.launchRouter).hook,
    );
    expect(mismatched).not.toBe(baseHookMask);
    const result = await review(sealed, { retiredRules: ['V3_HOOK_ADDRESS_MISMATCH'] });
    expect(result.hardBlocks).toEqual(['V3_HOOK_ADDRESS_MISMATCH']);
  });

  const rows: Array<
    [
      name: string,
      request: () => CustomLaunchCreateRequestV3,
      certifications: BaseLayerReviewContext['feeCertifications'],
      want: { certified: boolean; warning: boolean },
    ]
  > = [
    ['no adapter, no certification', () => baseLayerRequest(), [], { certified: false, warning: false }],
    [
      'no adapter, the profile certified',
      () => baseLayerRequest(),
      [{ adapter: null, profileVersion: '3.3.0' }],
      { certified: true, warning: false },
    ],
    [
      'no adapter, another profile certified',
      () => baseLayerRequest(),
      [{ adapter: null, profileVersion: '3.2.0' }],
      { certified: false, warning: false },
    ],
    [
      'no adapter, only an adapter certified',
      () => baseLayerRequest(),
      [{ adapter, profileVersion: '3.3.0' }],
      { certified: false, warning: false },
    ],
    [
      'a named adapter certified (other case)',
      () => withAdapter(),
      [{ adapter: adapter.toUpperCase().replace('0X', '0x'), profileVersion: '3.3.0' }],
      { certified: true, warning: false },
    ],
    [
      'a named adapter, only the profile certified',
      () => withAdapter(),
      [{ adapter: null, profileVersion: '3.3.0' }],
      { certified: false, warning: true },
    ],
    [
      'a named adapter certified for another profile',
      () => withAdapter(),
      [{ adapter, profileVersion: '3.4.0' }],
      { certified: false, warning: true },
    ],
  ];

  it.each(rows)('fee certification: %s', async (_name, request, certifications, want) => {
    const given = request();
    const result = await review(given, { feeCertifications: certifications });
    expect(result.feeCertification).toEqual({
      certified: want.certified,
      platformShareHundredthsBip: want.certified ? 1000 : 0,
      adapter: given.feeAdapter,
      stampedPoolKeyHash: result.predicted.poolId,
    });
    expect(
      schemaProblems('custom-launch-resource.v3.schema.json#/$defs/FeeCertification', result.feeCertification),
    ).toEqual([]);
    expect(result.warnings.includes('FEE_CERTIFICATION_NOT_FOUND')).toBe(want.warning);
    expect(result.findingCodes.includes('FEE_CERTIFICATION_NOT_FOUND')).toBe(want.warning);
    expect(result.predicted.poolId as Hex).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
