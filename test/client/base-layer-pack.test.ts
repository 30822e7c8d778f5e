import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAbiParameters, type Hex, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCapabilitiesV3 } from '../../generated/types/service.ts';
import { packV3Example, v3ExampleFresh, v3ExampleProject } from '../../scripts/examples/v3-example.ts';
import { type BaseLayerPackOptions, packBaseLayerLaunch } from '../../src/client/base-layer/pack.ts';
import { LocalCheckError } from '../../src/client/core/local-check-error.ts';
import {
  baseLaunchIntentHashOf,
  baseProjectMetadataHashOf,
  predictBaseGraphTarget,
} from '../../src/core/base-graph.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import { compileStandardJson, pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { exampleProjectCopies } from '../support/project-copies.ts';

// The V3 pack (spec/schemas/launch-project-manifest-v3.v1.schema.json into
// spec/schemas/custom-launch-create-request.v3.schema.json): examples/v3-launch becomes a request locally, bound to
// the base devnet's contracts (its committed fixture), or a LocalCheckError says why not. Each case edits its own copy
// of the example project.

const fixture = JSON.parse(readFileSync(new URL('../fixtures/base-deployment.json', import.meta.url), 'utf8'));
const deployment = {
  launchRouter: fixture.contracts.launchRouter.address,
  graphFactory: fixture.contracts.graphFactory.address,
  poolManager: fixture.contracts.poolManager.address,
  permitAuthority: fixture.contracts.permitAuthority.address,
};
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
// beforeSwap | afterSwap, the example hook's permissions.
const exampleMask = 0x00c0;
const slow = 120_000;

/** A copy of the example project; `edit` may change its launch-v3.json (as an object) and write files into it. */
const project = exampleProjectCopies(v3ExampleProject, 'launch-v3.json');

const pack = (dir: string, options: Partial<BaseLayerPackOptions> = {}) =>
  packBaseLayerLaunch(dir, { lane: { deployment }, launchWallet: wallet, fresh: v3ExampleFresh, ...options });

/** The LocalCheckError `run` throws; anything else (or nothing) fails the test. */
function refusal(run: () => unknown): LocalCheckError {
  try {
    run();
  } catch (err) {
    if (err instanceof LocalCheckError) return err;
    throw err;
  }
  throw new Error('expected a LocalCheckError, but nothing was thrown');
}

/** The capabilities a service on the base devnet answers, as far as the pack reads them. */
function capabilities(edit: (c: any) => void = () => {}): CustomLaunchCapabilitiesV3 {
  const c: any = {
    compilerVersion: pinnedCompilerVersion(),
    fundingTokens: [{ address: fixture.contracts.fundingToken.address, name: 'Devnet USD', version: '2' }],
    deployment,
  };
  edit(c);
  return c as CustomLaunchCapabilitiesV3;
}

describe('packBaseLayerLaunch', () => {
  it(
    'packs the spec example byte for byte from the example project and the base devnet fixture',
    () => {
      const packed = packV3Example(fixture);
      const example = readFileSync(
        new URL('../../spec/examples/custom-launch-create-request.v3.json', import.meta.url),
      );
      expect(packed.bytes.equals(example)).toBe(true);
    },
    slow,
  );

  it(
    'is deterministic for the same fresh values and draws new salts and a new nonce for others',
    () => {
      const dir = project();
      const a = pack(dir);
      const b = pack(dir);
      expect(a.bytes.equals(b.bytes)).toBe(true);
      const c = pack(dir, { fresh: (label) => v3ExampleFresh(`other ${label}`) });
      expect(c.request.nonce).not.toBe(a.request.nonce);
      expect(c.hook.salt).not.toBe(a.hook.salt);
      expect(c.predicted.hook).not.toBe(a.predicted.hook);
      expect(pack(dir, { nonce: '42' }).request.nonce).toBe('42');
    },
    slow,
  );

  it(
    'puts the hook at an address whose low 14 bits are its mask, for the lane factory and router',
    () => {
      const { request, predicted, hook } = pack(project());
      const target = request.graph.targets.find((t) => t.role === 'hook');
      expect(target?.hookPermissionMask).toBe(exampleMask);
      expect(hook.mask).toBe(exampleMask);
      expect(addressHookBits(predicted.hook)).toBe(exampleMask);
      expect(
        predictBaseGraphTarget(
          deployment.graphFactory,
          deployment.launchRouter,
          target?.salt as Hex,
          target?.initCodeHash as Hex,
        ),
      ).toBe(predicted.hook);
    },
    slow,
  );

  it(
    'binds projectMetadataHash, launchIntentHash and each init code hash to what the request carries',
    () => {
      const { request, predicted } = pack(project());
      expect(request.projectMetadataHash).toBe(baseProjectMetadataHashOf(request));
      expect(request.launchIntentHash).toBe(baseLaunchIntentHashOf(request));
      expect(request.launchWallet).toBe(wallet);
      // The service's view: rebuild the inline unit alone and hash creation code followed by constructorArgs.
      const unit = request.compilation.units[0];
      expect(request.compilation.compilerVersion).toBe(pinnedCompilerVersion());
      const build = compileStandardJson(unit?.standardJson as never);
      for (const target of request.graph.targets) {
        const [source, name] = target.contractName.split(':') as [string, string];
        const creation = build.contracts[source]?.[name]?.bytecode as string;
        expect(target.initCodeHash, target.targetId).toBe(
          keccak256(`${creation}${target.constructorArgs.slice(2)}` as Hex),
        );
      }
      // The token's one minter is the initializer's predicted address; the initializer's one caller the router.
      const byId = Object.fromEntries(request.graph.targets.map((t) => [t.targetId, t]));
      const initializer = predictBaseGraphTarget(
        deployment.graphFactory,
        deployment.launchRouter,
        byId.initializer?.salt as Hex,
        byId.initializer?.initCodeHash as Hex,
      );
      const [, , minter] = decodeAbiParameters(
        [{ type: 'string' }, { type: 'string' }, { type: 'address' }],
        byId.token?.constructorArgs as Hex,
      );
      expect(minter.toLowerCase()).toBe(initializer);
      const [router] = decodeAbiParameters([{ type: 'address' }], byId.initializer?.constructorArgs as Hex);
      expect(router.toLowerCase()).toBe(deployment.launchRouter);
      expect(predicted.token).toBe(
        predictBaseGraphTarget(
          deployment.graphFactory,
          deployment.launchRouter,
          byId.token?.salt as Hex,
          byId.token?.initCodeHash as Hex,
        ),
      );
      // Every source is inline: the unit compiles with nothing else.
      expect(Object.keys(unit?.standardJson.sources ?? {})).toEqual([
        'contracts/HarborHook.sol',
        'contracts/HarborInitializer.sol',
        'contracts/HarborToken.sol',
      ]);
    },
    slow,
  );

  it.each([
    ['without a hook', (m: any) => (m.targets = m.targets.filter((t: any) => t.role !== 'hook')), /exactly 1 hook/],
    ['without a token', (m: any) => (m.targets = m.targets.filter((t: any) => t.role !== 'token')), /exactly 1 token/],
    [
      'a direct graph without an initializer',
      (m: any) => {
        m.targets = m.targets.filter((t: any) => t.role !== 'initializer');
        m.targets[0].constructorArgs[2] = { type: 'address', value: wallet };
      },
      /exactly 1 initializer/,
    ],
    [
      'a router primitive with an initializer',
      (m: any) => (m.graphKind = 'router-primitive'),
      /exactly 0 initializers/,
    ],
    [
      'a constructor argument naming no target',
      (m: any) => (m.targets[0].constructorArgs[2] = { type: 'address', target: 'treasury' }),
      /no target of the graph/,
    ],
  ])('refuses a project %s before anything is compiled', (_name, edit, message) => {
    const error = refusal(() => pack(project(edit)));
    expect(error.code).toBe('PROJECT_MANIFEST_INVALID');
    expect(error.message).toMatch(message);
  });

  it(
    'refuses constructor arguments that refer to each other in a cycle',
    () => {
      const dir = project((m) => {
        m.targets[2].constructorArgs = [{ type: 'address', target: 'token' }];
      });
      const error = refusal(() => pack(dir));
      expect(error.code).toBe('PROJECT_MANIFEST_INVALID');
      expect(error.message).toMatch(/cycle/);
    },
    slow,
  );

  // A literal constructor argument is checked against its ABI type on both sides of each bound.
  it.each([
    ['uint8 255', 'uint8', '255', 'ok'],
    ['uint8 256', 'uint8', '256', 'refused'],
    ['uint256 0', 'uint256', '0', 'ok'],
    ['uint256 -1', 'uint256', '-1', 'refused'],
    ['int8 -128', 'int8', '-128', 'ok'],
    ['int8 -129', 'int8', '-129', 'refused'],
    ['int8 127', 'int8', '127', 'ok'],
    ['int8 128', 'int8', '128', 'refused'],
    ['bool true', 'bool', 'true', 'ok'],
    ['bool yes', 'bool', 'yes', 'refused'],
    ['address', 'address', wallet, 'ok'],
    ['address too short', 'address', '0x1234', 'refused'],
    ['bytes32 of 32 bytes', 'bytes32', `0x${'11'.repeat(32)}`, 'ok'],
    ['bytes32 of 33 bytes', 'bytes32', `0x${'11'.repeat(33)}`, 'refused'],
  ])(
    '%s: a literal %s argument "%s" is %s',
    (_name, type, value, want) => {
      // An auxiliary contract that takes one argument of the type, beside the example graph.
      const dir = project((m, d) => {
        writeFileSync(
          join(d, 'contracts/HarborVault.sol'),
          `// SPDX-License-Identifier: Apache-2.0\npragma solidity ^0.8.26;\n\ncontract HarborVault { ${type} public immutable v; constructor(${type} v_) { v = v_; } }\n`,
        );
        m.targets.push({
          targetId: 'vault',
          role: 'auxiliary',
          source: 'contracts/HarborVault.sol',
          contractName: 'HarborVault',
          constructorArgs: [{ type, value }],
        });
      });
      if (want === 'ok') {
        const vault = pack(dir).request.graph.targets.find((t) => t.targetId === 'vault');
        expect(vault?.constructorArgs).toMatch(/^0x[0-9a-f]{64}$/);
      } else {
        const error = refusal(() => pack(dir));
        expect(error.code).toBe('PROJECT_MANIFEST_INVALID');
        expect(error.message).toContain('vault');
      }
    },
    slow,
  );

  it.each([
    ['a service without a base-layer deployment', (c: any) => (c.deployment = null), /no base-layer deployment/],
    [
      'another pinned compiler',
      (c: any) => (c.compilerVersion = '0.8.20+commit.a1b79de6'),
      /builds with solc 0\.8\.20/,
    ],
    ['a funding token the service does not accept', (c: any) => (c.fundingTokens = []), /not one this service accepts/],
  ])('refuses the capabilities of %s before compiling', (_name, edit, message) => {
    const error = refusal(() => pack(project(), { lane: { capabilities: capabilities(edit) } }));
    expect(error.code).toBe('CAPABILITIES_MISMATCH');
    expect(error.message).toMatch(message);
  });

  it(
    'packs against the capabilities of a service that accepts the funding token',
    () => {
      const fromCapabilities = pack(project(), { lane: { capabilities: capabilities() } });
      expect(fromCapabilities.bytes.equals(packV3Example(fixture).bytes)).toBe(true);
    },
    slow,
  );

  it(
    'refuses a request its schema refuses (a 3.4.0 graph of three targets)',
    () => {
      const error = refusal(() => pack(project((m) => (m.profileVersion = '3.4.0'))));
      expect(error.code).toBe('REQUEST_INVALID');
    },
    slow,
  );

  it(
    'refuses sources that do not compile',
    () => {
      const dir = project((_m, d) => writeFileSync(join(d, 'contracts/HarborHook.sol'), 'contract HarborHook {'));
      expect(refusal(() => pack(dir)).code).toBe('SOURCE_COMPILE_FAILED');
    },
    slow,
  );
});
