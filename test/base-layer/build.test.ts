import { concat, type Hex, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { buildBaseGraph } from '../../src/domain/base-layer/build.ts';
import {
  type BaseLayerRequestOptions,
  baseHookMask,
  baseLayerCreationCode,
  baseLayerRequest,
  baseLayerUnit,
  sealBaseLayerRequest,
} from '../support/base-layer-request.ts';

type Request = CustomLaunchCreateRequestV3;
type Target = Request['graph']['targets'][number];

/** A request with one change, sealed again so only the build can object. */
function changed(edit: (request: Request) => void, options?: BaseLayerRequestOptions): Request {
  const request = structuredClone(baseLayerRequest(options));
  edit(request);
  return sealBaseLayerRequest(request);
}

const target = (request: Request, i: number) => request.graph.targets[i] as Target;

describe('buildBaseGraph', () => {
  it('rebuilds every target of a direct graph: init code, its hash, runtime code and the hook mask', async () => {
    const request = baseLayerRequest();
    const build = await buildBaseGraph(request);
    if (!build.ok) throw new Error(build.message);
    expect(build.targets.map((t) => [t.targetId, t.role])).toEqual([
      ['token', 'token'],
      ['hook', 'hook'],
      ['initializer', 'initializer'],
    ]);
    for (const [i, built] of build.targets.entries()) {
      expect(built.initCodeHash).toBe(target(request, i).initCodeHash);
      expect(keccak256(built.initCode)).toBe(built.initCodeHash);
      expect(built.runtimeCode).toMatch(/^0x(?:[0-9a-f]{2})+$/);
    }
    expect(build.targets[0]?.initCode).toBe(baseLayerCreationCode('BaseToken'));
    expect(build.targets[1]?.hookPermissionMask).toBe(baseHookMask);
    expect(build.targets[0]).not.toHaveProperty('hookPermissionMask');
  });

  it('appends the constructorArgs to the creation code (router primitive)', async () => {
    const request = baseLayerRequest({ kind: 'router-primitive' });
    const build = await buildBaseGraph(request);
    if (!build.ok) throw new Error(build.message);
    const token = target(request, 0);
    expect(token.constructorArgs.length).toBe(2 + 2 * 64);
    expect(build.targets[0]?.initCode).toBe(
      concat([baseLayerCreationCode('BasePrimitiveToken'), token.constructorArgs as Hex]),
    );
  });

  const rows: Array<[name: string, request: () => Request, want: { code: string; targetId: string | null } | null]> = [
    ['the valid request', () => baseLayerRequest(), null],
    [
      'a declared hash of other constructorArgs',
      () =>
        changed((r) => {
          target(r, 0).constructorArgs = '0x00';
        }),
      { code: 'V3_INIT_CODE_MISMATCH', targetId: 'token' },
    ],
    [
      'a declared hash of other code',
      () =>
        changed((r) => {
          target(r, 2).initCodeHash = keccak256('0x00');
        }),
      { code: 'V3_INIT_CODE_MISMATCH', targetId: 'initializer' },
    ],
    [
      'a unit that does not compile',
      () =>
        changed((r) => {
          const unit = structuredClone(baseLayerUnit);
          unit.standardJson.sources['Broken.sol'] = { content: 'pragma solidity ^0.8.26; contract Broken { x }' };
          r.compilation.units = [unit];
        }),
      { code: 'V3_BUILD_FAILED', targetId: null },
    ],
    [
      'an import outside the unit',
      () =>
        changed((r) => {
          const unit = structuredClone(baseLayerUnit);
          unit.standardJson.sources['Importer.sol'] = { content: 'pragma solidity ^0.8.26; import "Elsewhere.sol";' };
          r.compilation.units = [unit];
        }),
      { code: 'V3_BUILD_FAILED', targetId: null },
    ],
    [
      'a contract name the unit does not build',
      () =>
        changed((r) => {
          target(r, 2).contractName = 'BaseInitializer.sol:IBaseToken';
        }),
      { code: 'V3_BUILD_FAILED', targetId: 'initializer' },
    ],
    [
      'a contract that needs an unlinked library',
      () =>
        changed((r) => {
          target(r, 2).contractName = 'BaseLibraryUser.sol:BaseLibraryUser';
        }),
      { code: 'V3_BUILD_FAILED', targetId: 'initializer' },
    ],
  ];

  it('fails a unit that compiles longer than the timeout, and builds it within the timeout', async () => {
    const request = changed((r) => {
      const unit = structuredClone(baseLayerUnit);
      unit.standardJson.sources['Fresh.sol'] = { content: `pragma solidity ^0.8.26; contract Fresh${Date.now()} {}` };
      r.compilation.units = [unit];
    });
    expect(await buildBaseGraph(request, { unitTimeoutMs: 1 })).toMatchObject({
      ok: false,
      code: 'V3_BUILD_FAILED',
      message: expect.stringContaining('longer than 1 ms'),
    });
    expect(await buildBaseGraph(request, { unitTimeoutMs: 60_000 })).toMatchObject({ ok: true });
  });

  it.each(rows)('%s', async (_name, request, want) => {
    const build = await buildBaseGraph(request());
    if (want === null) expect(build.ok).toBe(true);
    else expect(build).toMatchObject({ ok: false, ...want });
  });
});
