import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  decodeAbiParameters,
  type Hex,
  http,
  keccak256,
  zeroAddress,
} from 'viem';
import { describe, expect, it } from 'vitest';
import {
  multiRoleExampleCapabilities,
  multiRoleExampleFresh,
  multiRoleExampleProject,
  packMultiRoleExample,
} from '../../scripts/examples/multi-role-example.ts';
import { LocalCheckError } from '../../src/client/core/local-check-error.ts';
import { readMultiRoleManifest } from '../../src/client/multi-role/manifest.ts';
import {
  type MultiRolePackCapabilities,
  type MultiRolePackOptions,
  packMultiRoleProject,
} from '../../src/client/multi-role/pack.ts';
import { predictBaseGraphTarget } from '../../src/core/base-graph.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import {
  multiRoleEconomicsAbi,
  multiRoleLaunchIntentHashOf,
  multiRoleProjectMetadataHashOf,
  multiRoleRateModes,
  predictMultiRoleLaunch,
} from '../../src/core/multi-role-graph.ts';
import { startAnvil } from '../../src/devnet/anvil.ts';
import { compileStandardJson, pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { exampleProjectCopies } from '../support/project-copies.ts';

// The shared-lane pack (spec/schemas/multi-role-project-manifest.v1.schema.json into
// spec/schemas/multi-role-create-request.v2.schema.json): examples/multi-role-launch becomes a request locally, bound
// to the chain-4663 devnet's lane contracts (its committed fixture), or a LocalCheckError says why not. Each case
// edits its own copy of the example project.

const capabilities = multiRoleExampleCapabilities();
const deployment = capabilities.deployment as NonNullable<MultiRolePackCapabilities['deployment']>;
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
// beforeSwap | afterSwap, the example token_hook's permissions.
const exampleMask = 0x00c0;
const slow = 120_000;

/** A copy of the example project; `edit` may change its launch-multi-role.json (as an object) and write files. */
const project = exampleProjectCopies(multiRoleExampleProject, 'launch-multi-role.json');

const pack = (dir: string, options: Partial<MultiRolePackOptions> = {}) =>
  packMultiRoleProject(dir, { capabilities, launchWallet: wallet, fresh: multiRoleExampleFresh, ...options });

/** The LocalCheckError `run` rejects with; anything else (or a result) fails the test. */
async function refusal(run: () => Promise<unknown>): Promise<LocalCheckError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof LocalCheckError) return err;
    throw err;
  }
  throw new Error('expected a LocalCheckError, but the pack succeeded');
}

/** Capabilities read through a function that counts its calls: each call stands for the network request. */
function countedCapabilities(): { read: () => Promise<MultiRolePackCapabilities>; calls: () => number } {
  let calls = 0;
  return {
    read: async () => {
      calls += 1;
      return capabilities;
    },
    calls: () => calls,
  };
}

// A 43-byte single-frame GIF (one white pixel); its 15-byte image block sits between the 19-byte head and the trailer.
const singleFrameGif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=', 'base64');
const twoFrameGif = Buffer.concat([singleFrameGif.subarray(0, 34), singleFrameGif.subarray(19)]);
const images = new URL('../fixtures/images/', import.meta.url).pathname;

/** Writes `bytes` as `file` in a copy of the project and points metadata.imageFile at it. */
const withImage = (file: string, bytes: Uint8Array) =>
  project((m, d) => {
    writeFileSync(join(d, file), bytes);
    m.metadata.imageFile = file;
  });

describe('packMultiRoleProject', () => {
  it(
    'packs the spec example byte for byte from the example project and the devnet lane fixture',
    async () => {
      const packed = await packMultiRoleExample();
      const example = readFileSync(new URL('../../spec/examples/multi-role-create-request.v2.json', import.meta.url));
      expect(packed.bytes.equals(example)).toBe(true);
    },
    slow,
  );

  it(
    'is deterministic for the same fresh values and draws a new salt and nonce for others',
    async () => {
      const dir = project();
      const a = await pack(dir);
      const b = await pack(dir);
      expect(a.bytes.equals(b.bytes)).toBe(true);
      const c = await pack(dir, { fresh: (label) => multiRoleExampleFresh(`other ${label}`) });
      expect(c.request.nonce).not.toBe(a.request.nonce);
      expect(c.tokenHook.salt).not.toBe(a.tokenHook.salt);
      expect(c.predicted.tokenHook).not.toBe(a.predicted.tokenHook);
      expect((await pack(dir, { nonce: '42' })).request.nonce).toBe('42');
    },
    slow,
  );

  it(
    "mines the token_hook's salt so its CREATE2 address under the lane factory and router carries the mask",
    async () => {
      const { request, predicted, tokenHook } = await pack(project());
      const target = request.graph.targets.find((t) => t.role === 'token_hook');
      expect(target?.hookPermissionMask).toBe(exampleMask);
      expect(tokenHook).toEqual({ mask: exampleMask, salt: target?.salt });
      const address = predictBaseGraphTarget(
        deployment.graphFactory as Hex,
        deployment.launchRouter as Hex,
        target?.salt as Hex,
        target?.initCodeHash as Hex,
      );
      expect(addressHookBits(address)).toBe(exampleMask);
      expect(predicted).toEqual(
        predictMultiRoleLaunch(request, deployment.graphFactory as Hex, deployment.launchRouter as Hex),
      );
      expect(predicted.tokenHook).toBe(address);
    },
    slow,
  );

  it(
    'binds projectMetadataHash, launchIntentHash and each init code hash to what the request carries',
    async () => {
      const { request } = await pack(project());
      expect(request.projectMetadataHash).toBe(multiRoleProjectMetadataHashOf(request));
      expect(request.launchIntentHash).toBe(multiRoleLaunchIntentHashOf(request));
      expect(request.launchWallet).toBe(wallet);
      // The service's view: rebuild the inline source alone and hash creation code followed by constructorArgs.
      const { compilerVersion, ...standardJson } = request.source;
      expect(compilerVersion).toBe(pinnedCompilerVersion());
      const build = compileStandardJson(standardJson);
      for (const target of request.graph.targets) {
        const [source, name] = target.contractName.split(':') as [string, string];
        const creation = build.contracts[source]?.[name]?.bytecode as string;
        expect(target.initCodeHash, target.targetId).toBe(
          keccak256(`${creation}${target.constructorArgs.slice(2)}` as Hex),
        );
      }
      // The token_hook takes the pool manager and its one minter, the initializer's predicted address; the
      // initializer takes the router, its one caller.
      const byId = Object.fromEntries(request.graph.targets.map((t) => [t.targetId, t]));
      const initializer = predictBaseGraphTarget(
        deployment.graphFactory as Hex,
        deployment.launchRouter as Hex,
        byId.initializer?.salt as Hex,
        byId.initializer?.initCodeHash as Hex,
      );
      const [poolManager, minter] = decodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }],
        byId['token-hook']?.constructorArgs as Hex,
      );
      expect(poolManager.toLowerCase()).toBe(deployment.poolManager.toLowerCase());
      expect(minter.toLowerCase()).toBe(initializer);
      const [router] = decodeAbiParameters([{ type: 'address' }], byId.initializer?.constructorArgs as Hex);
      expect(router.toLowerCase()).toBe(deployment.launchRouter.toLowerCase());
      expect(Object.keys(request.source.sources)).toEqual([
        'contracts/TidewaterInitializer.sol',
        'contracts/TidewaterTokenHook.sol',
      ]);
      // Changing the metadata changes both hashes.
      const renamed = await pack(project((m) => (m.metadata.description = 'Another description.')));
      expect(renamed.request.projectMetadataHash).not.toBe(request.projectMetadataHash);
      expect(renamed.request.launchIntentHash).not.toBe(request.launchIntentHash);
    },
    slow,
  );

  it(
    "declares the economics the example token_hook's multiRoleEconomics() answers on a real anvil",
    async () => {
      const { request } = await pack(project());
      const target = request.graph.targets.find((t) => t.role === 'token_hook');
      const { contracts } = compileStandardJson((({ compilerVersion: _v, ...unit }) => unit)(request.source));
      const [source, name] = (target?.contractName ?? '').split(':') as [string, string];
      const initCode = `${contracts[source]?.[name]?.bytecode}${target?.constructorArgs.slice(2)}` as Hex;
      const anvil = await startAnvil();
      try {
        const transport = http(anvil.url);
        const publicClient = createPublicClient({ transport });
        const walletClient = createWalletClient({ transport, account: wallet });
        const hash = await walletClient.sendTransaction({ chain: null, data: initCode });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        const [totalSupply, rateMode, buy, sell, feeRecipient] = await publicClient.readContract({
          address: receipt.contractAddress ?? zeroAddress,
          abi: multiRoleEconomicsAbi,
          functionName: 'multiRoleEconomics',
        });
        expect({
          totalSupply: totalSupply.toString(),
          rateMode: multiRoleRateModes[rateMode],
          buyRateHundredthsBip: buy,
          sellRateHundredthsBip: sell,
          feeRecipient,
        }).toEqual(request.economics);
      } finally {
        await anvil.stop();
      }
    },
    slow,
  );

  it.each([
    ['a JPEG', 'logo.jpg', () => readFileSync(join(images, 'baseline-420.jpg')), /IMAGE_JPEG_UNSUPPORTED/],
    ['a WebP', 'logo.webp', () => readFileSync(join(images, 'lossy.webp')), /IMAGE_WEBP_UNSUPPORTED/],
    ['an animated (two-frame) GIF', 'logo.gif', () => twoFrameGif, /IMAGE_GIF_ANIMATED/],
  ])('refuses %s before the capabilities are read', async (_name, file, bytes, message) => {
    const caps = countedCapabilities();
    const error = await refusal(() => pack(withImage(file, bytes()), { capabilities: caps.read }));
    expect(error.code).toBe('IMAGE_REFUSED');
    expect(error.message).toMatch(message);
    expect(caps.calls()).toBe(0);
  });

  it.each([
    ['a PNG', 'logo.png', () => readFileSync(join(multiRoleExampleProject, 'logo.png')), 'image/png'],
    ['a single-frame GIF', 'logo.gif', () => singleFrameGif, 'image/gif'],
  ])(
    'packs %s, reading the capabilities once',
    async (_name, file, bytes, mediaType) => {
      const caps = countedCapabilities();
      const { request } = await pack(withImage(file, bytes()), { capabilities: caps.read });
      expect(request.projectMetadata.image.mediaType).toBe(mediaType);
      expect(request.projectMetadata.image.byteLength).toBe(bytes().length);
      expect(caps.calls()).toBe(1);
    },
    slow,
  );

  const tokenHookOf = (m: any) => m.targets.find((t: any) => t.role === 'token_hook');
  const secondOf = (role: string) => (m: any) =>
    m.targets.push({
      targetId: `another-${role.replace('_', '-')}`,
      role,
      source: 'contracts/TidewaterInitializer.sol',
      contractName: 'TidewaterInitializer',
      constructorArgs: [{ type: 'address', deployment: 'launchRouter' }],
      ...(role === 'token_hook' ? { hookPermissions: ['beforeSwap'] } : {}),
    });
  it.each([
    [
      'without a token_hook',
      (m: any) => {
        const target = tokenHookOf(m);
        target.role = 'auxiliary';
        delete target.hookPermissions;
      },
      /exactly 1 token_hook, found 0/,
    ],
    ['with two token_hooks', secondOf('token_hook'), /exactly 1 token_hook, found 2/],
    ['without an initializer', (m: any) => (m.targets[1].role = 'auxiliary'), /exactly 1 initializer, found 0/],
    ['with two initializers', secondOf('initializer'), /exactly 1 initializer, found 2/],
    ['with a token_hook without hookPermissions', (m: any) => delete tokenHookOf(m).hookPermissions, /hookPermissions/],
    [
      'with a token_hook that enables no callback',
      (m: any) => (tokenHookOf(m).hookPermissions = []),
      /enables no hook callback/,
    ],
    [
      'with hookPermissions on the initializer',
      (m: any) => (m.targets[1].hookPermissions = ['beforeSwap']),
      /does not match its schema/,
    ],
    ['with a fixed salt on the token_hook', (m: any) => (tokenHookOf(m).salt = `0x${'11'.repeat(32)}`), /schema/],
    [
      'with a constructor argument naming no target',
      (m: any) => (tokenHookOf(m).constructorArgs[1] = { type: 'address', target: 'treasury' }),
      /no target of the graph/,
    ],
    [
      'with a targetId used twice',
      (m: any) => (m.targets[1].targetId = 'token-hook'),
      /targetId "token-hook" is used twice/,
    ],
    [
      'whose tokenSupply exceeds totalSupply by one',
      (m: any) => (m.liquidity.tokenSupply = '1000000000000000000000000001'),
      /exceeds economics\.totalSupply/,
    ],
  ])('refuses a manifest %s before the capabilities are read', async (_name, edit, message) => {
    const caps = countedCapabilities();
    const error = await refusal(() => pack(project(edit), { capabilities: caps.read }));
    expect(error.code).toBe('PROJECT_MANIFEST_INVALID');
    expect(error.message).toMatch(message);
    expect(caps.calls()).toBe(0);
  });

  // valueWei equals liquidityWei plus reserveWei: one wei either side is refused.
  it.each([
    ['one wei short', '1009999999999999999', 'FUNDING_PLAN_UNBALANCED'],
    ['exact', '1010000000000000000', 'ok'],
    ['one wei over', '1010000000000000001', 'FUNDING_PLAN_UNBALANCED'],
  ])('a funding valueWei %s is %s', (_name, valueWei, want) => {
    const dir = project((m) => (m.funding.valueWei = valueWei));
    if (want === 'ok') expect(readMultiRoleManifest(dir).funding.valueWei).toBe(valueWei);
    else expect(() => readMultiRoleManifest(dir)).toThrow(expect.objectContaining({ code: want }));
  });

  // liquidity.tokenSupply is at most economics.totalSupply.
  it.each([
    ['below', '999999999999999999999999999', 'ok'],
    ['equal to', '1000000000000000000000000000', 'ok'],
    ['one above', '1000000000000000000000000001', 'PROJECT_MANIFEST_INVALID'],
  ])('a tokenSupply %s totalSupply is %s', (_name, tokenSupply, want) => {
    const dir = project((m) => (m.liquidity.tokenSupply = tokenSupply));
    if (want === 'ok') expect(readMultiRoleManifest(dir).liquidity.tokenSupply).toBe(tokenSupply);
    else expect(() => readMultiRoleManifest(dir)).toThrow(expect.objectContaining({ code: want }));
  });

  it('refuses a folder without launch-multi-role.json', async () => {
    const dir = project();
    rmSync(join(dir, 'launch-multi-role.json'));
    expect((await refusal(() => pack(dir))).code).toBe('PROJECT_MANIFEST_MISSING');
  });

  it.each([
    ['a service without the lane contracts', { deployment: null }, /bound no shared-lane contracts/],
    ['another pinned compiler', { compilerVersion: '0.8.20+commit.a1b79de6' }, /builds with solc 0\.8\.20/],
    [
      'a profile revision closed to new submissions',
      {
        profiles: [
          {
            schemaVersion: 'platform.multi-role-launch-profile.v2' as const,
            revision: 1,
            acceptsNewSubmissions: false,
          },
        ],
      },
      /revision 1 does not accept new submissions/,
    ],
    [
      'only another profile revision',
      {
        profiles: [
          { schemaVersion: 'platform.multi-role-launch-profile.v2' as const, revision: 2, acceptsNewSubmissions: true },
        ],
      },
      /revision 1 does not accept new submissions/,
    ],
  ])('refuses the capabilities of %s before compiling', async (_name, edit, message) => {
    const dir = project((_m, d) => writeFileSync(join(d, 'contracts/TidewaterTokenHook.sol'), 'contract Broken {'));
    const error = await refusal(() => pack(dir, { capabilities: { ...capabilities, ...edit } }));
    expect(error.code).toBe('CAPABILITIES_MISMATCH');
    expect(error.message).toMatch(message);
  });

  it(
    'refuses sources that do not compile',
    async () => {
      const dir = project((_m, d) => writeFileSync(join(d, 'contracts/TidewaterTokenHook.sol'), 'contract Broken {'));
      expect((await refusal(() => pack(dir))).code).toBe('SOURCE_COMPILE_FAILED');
    },
    slow,
  );
});
