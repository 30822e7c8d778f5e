import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Hex, keccak256, stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalCheckError } from '../../src/client/core/local-check-error.ts';
import { type PackResult, packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { readProjectManifest } from '../../src/client/launches/pack/project-manifest.ts';
import { addressHookBits } from '../../src/core/create2.ts';
import { bindRequestHashes, predictedHookAddress } from '../../src/core/request-hashes.ts';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';

// The client flow's "pack" (spec/schemas/launch-project-manifest.v1.schema.json): a project folder becomes a create
// request locally, or a LocalCheckError says why not, before anything is compiled or sent where possible. Every case
// works on its own copy of examples/example-launch so one case's edit cannot leak into another.

const exampleProject = fileURLToPath(new URL('../../examples/example-launch/', import.meta.url));
const chainDeployment = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
).chainDeployment;
const exampleManifest = JSON.parse(readFileSync(join(exampleProject, 'launch.json'), 'utf8'));
const validateRequest = loadSchemaRegistry().ajv.getSchema(
  `${schemaIdBase}custom-launch-create-request.v4.schema.json`,
);
// beforeSwap | afterSwap, the example hook's launch.json permissions.
const exampleMask = 0x00c0;
const slow = 60_000;

let root: string;
let serial = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pack-test-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A copy of the example project; `edit` may change its launch.json (as an object) and write files into it. */
function project(edit: (manifest: any, dir: string) => void = () => {}): string {
  const dir = join(root, `project-${++serial}`);
  cpSync(exampleProject, dir, { recursive: true });
  const manifest = structuredClone(exampleManifest);
  edit(manifest, dir);
  writeFileSync(join(dir, 'launch.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

const pack = (dir: string, options: Partial<Parameters<typeof packLaunchProject>[1]> = {}) =>
  packLaunchProject(dir, { chainDeployment, ...options });

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

function hookBitsOf(result: PackResult): number {
  const address = predictedHookAddress(result.request);
  expect(address).toMatch(/^0x[0-9a-f]{40}$/);
  return addressHookBits(address as Hex);
}

const saltOf = (result: PackResult, role: string) =>
  result.request.graphBundle.targets.find((t) => t.role === role)?.create2Salt;

// ---- image fixtures, byte by byte ----

const latin1 = (text: string): number[] => [...Buffer.from(text, 'latin1')];
const le16 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff];
const le32 = (n: number): number[] => [...le16(n & 0xffff), ...le16(n >>> 16)];

// JFIF SOI + APP0 header: the first four bytes are all a sniffer needs.
const jpeg = Buffer.from([
  0xff,
  0xd8,
  0xff,
  0xe0,
  0x00,
  0x10,
  ...latin1('JFIF'),
  0,
  1,
  1,
  0,
  0,
  1,
  0,
  1,
  0,
  0,
  0xff,
  0xd9,
]);
const webp = Buffer.from([...latin1('RIFF'), ...le32(12), ...latin1('WEBP'), ...latin1('VP8L'), ...le32(0)]);
// GIF89a, 1×1 screen, a 2-entry global colour table (black, white).
const gifHead = [...latin1('GIF89a'), ...le16(1), ...le16(1), 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff];
// One 1×1 frame of colour 0. LZW with minimum code size 2 codes clear (4), 0, end (5) in 3 bits each, LSB first:
// 100 000 101 -> 0x44 0x01. The same bytes as the well-known 43-byte white-pixel GIF.
const gifFrame = [0x2c, ...le16(0), ...le16(0), ...le16(1), ...le16(1), 0x00, 2, 2, 0x44, 0x01, 0];
const graphicControl = [0x21, 0xf9, 4, 0, 10, 0, 0, 0];
const netscapeLoop = [0x21, 0xff, 11, ...latin1('NETSCAPE2.0'), 3, 1, 0, 0, 0];
const singleFrameGif = Buffer.from([...gifHead, ...gifFrame, 0x3b]);
const twoFrameGif = Buffer.from([
  ...gifHead,
  ...netscapeLoop,
  ...graphicControl,
  ...gifFrame,
  ...graphicControl,
  ...gifFrame,
  0x3b,
]);

/** Writes `bytes` as `file` in the project and points metadata.imageFile at it. */
const withImage = (file: string, bytes: Uint8Array) =>
  project((m, dir) => {
    writeFileSync(join(dir, file), bytes);
    m.metadata.imageFile = file;
  });

// ---- the untouched example ----

describe('a pack of the untouched example', () => {
  let dir: string;
  let result: PackResult;
  beforeAll(() => {
    dir = project();
    result = pack(dir);
  }, slow);

  it('validates against custom-launch-create-request.v4.schema.json', () => {
    expect(validateRequest?.(result.request)).toBe(true);
    expect(validateRequest?.errors ?? []).toEqual([]);
  });

  it('binds the given chain deployment, the launch wallet and the permit lifetime of launch.json', () => {
    expect(result.request.chainDeployment).toEqual(chainDeployment);
    expect(result.request.launchWallet).toBe(exampleManifest.launchWallet);
    expect(result.request.permitWindow).toEqual({ lifetimeSeconds: 3600 });
    expect(result.request.profile).toBe('4.1.0');
    expect(result.request.projectMetadataImageArtifact.mediaType).toBe('image/png');
    expect(Buffer.from(result.request.projectMetadataImageArtifact.bytesBase64, 'base64')).toEqual(
      readFileSync(join(exampleProject, 'logo.png')),
    );
  });

  it('puts the hook at an address carrying its permission mask 0x00c0', () => {
    expect(hookBitsOf(result)).toBe(exampleMask);
    expect(result.hook).toEqual({ mask: exampleMask, create2Salt: saltOf(result, 'hook') });
    const hook = result.request.graphBundle.targets.find((t) => t.role === 'hook');
    expect(hook?.hookPermissions).toMatchObject({ mask: exampleMask, beforeSwap: true, afterSwap: true });
    const enabled = Object.entries(hook?.hookPermissions ?? {}).filter(([k, v]) => k !== 'mask' && v === true);
    expect(enabled.map(([k]) => k).sort()).toEqual(['afterSwap', 'beforeSwap']);
  });

  it('already binds every hash: binding again changes nothing', () => {
    expect(bindRequestHashes(result.request)).toEqual(result.request);
  });

  it('returns bytes that are the JSON text of the request', () => {
    expect(JSON.parse(result.bytes.toString('utf8'))).toEqual(result.request);
  });

  it(
    'draws a fresh nonce and fresh salts on a second pack of the same folder; both hooks carry the mask',
    () => {
      const again = pack(dir);
      expect(again.request.nonce).not.toBe(result.request.nonce);
      expect(saltOf(again, 'hook')).not.toBe(saltOf(result, 'hook'));
      expect(saltOf(again, 'token')).not.toBe(saltOf(result, 'token'));
      expect(saltOf(again, 'initializer')).not.toBe(saltOf(result, 'initializer'));
      expect(hookBitsOf(again)).toBe(exampleMask);
      expect(hookBitsOf(result)).toBe(exampleMask);
      expect(again.bytes.equals(result.bytes)).toBe(false);
    },
    slow,
  );

  it(
    'packs byte-identically twice with a fixed source of fresh values',
    () => {
      const fresh = (label: string): Hex => keccak256(stringToHex(label));
      const first = pack(dir, { fresh });
      const second = pack(dir, { fresh });
      expect(second.bytes.equals(first.bytes)).toBe(true);
      expect(hookBitsOf(first)).toBe(exampleMask);
      expect(validateRequest?.(first.request)).toBe(true);
    },
    slow,
  );
});

describe('readProjectManifest', () => {
  it('reads the example launch.json as it is', () => {
    expect(readProjectManifest(exampleProject)).toEqual(exampleManifest);
  });
});

// ---- refusals of the manifest (no compile; checked by readProjectManifest and by pack) ----

const without = (role: string) => (m: any) => {
  m.targets = m.targets.filter((t: any) => t.role !== role);
};

const manifestRefusals: Array<[string, () => string, LocalCheckError['code'], RegExp]> = [
  [
    'no launch.json',
    () => {
      const dir = project();
      rmSync(join(dir, 'launch.json'));
      return dir;
    },
    'PROJECT_MANIFEST_MISSING',
    /no launch\.json in /,
  ],
  [
    'a launch.json that is not JSON',
    () => {
      const dir = project();
      writeFileSync(join(dir, 'launch.json'), '{"schemaVersion": ');
      return dir;
    },
    'PROJECT_MANIFEST_INVALID',
    /is not JSON/,
  ],
  [
    'an unknown property',
    () => project((m) => (m.salt = '0x00')),
    'PROJECT_MANIFEST_INVALID',
    /must NOT have additional properties/,
  ],
  [
    'permitLifetimeSeconds 0',
    () => project((m) => (m.permitLifetimeSeconds = 0)),
    'PROJECT_MANIFEST_INVALID',
    /\/permitLifetimeSeconds must be >= 1/,
  ],
  [
    'permitLifetimeSeconds 3601',
    () => project((m) => (m.permitLifetimeSeconds = 3601)),
    'PROJECT_MANIFEST_INVALID',
    /\/permitLifetimeSeconds must be <= 3600/,
  ],
  [
    'two hooks',
    () =>
      project((m) =>
        m.targets.push({
          targetId: 'hook-two',
          role: 'hook',
          source: 'contracts/ExampleHook.sol',
          contractName: 'ExampleHook',
          hookPermissions: ['beforeSwap'],
        }),
      ),
    'PROJECT_MANIFEST_INVALID',
    /exactly one hook, found 2/,
  ],
  [
    'the initializer demoted to auxiliary',
    () => project((m) => (m.targets[2].role = 'auxiliary')),
    'PROJECT_MANIFEST_INVALID',
    /exactly one initializer, found 0/,
  ],
  // Two targets are under the schema's minItems, so the schema speaks first.
  ['no initializer target', () => project(without('initializer')), 'PROJECT_MANIFEST_INVALID', /\/targets/],
  [
    'a targetId used twice',
    () => project((m) => (m.targets[2].targetId = 'token')),
    'PROJECT_MANIFEST_INVALID',
    /targetId "token" is used twice/,
  ],
  [
    'an image path escaping the folder',
    () => project((m) => (m.metadata.imageFile = '../x.png')),
    'PROJECT_MANIFEST_INVALID',
    /\/metadata\/imageFile must match pattern/,
  ],
  [
    'an absolute image path',
    () => project((m) => (m.metadata.imageFile = '/etc/x.png')),
    'PROJECT_MANIFEST_INVALID',
    /\/metadata\/imageFile must match pattern/,
  ],
  [
    'a source path escaping the folder',
    () => project((m) => (m.targets[0].source = '../x.sol')),
    'PROJECT_MANIFEST_INVALID',
    /\/targets\/0\/source must match pattern/,
  ],
  [
    'a source path escaping through a subfolder',
    () => project((m) => (m.targets[0].source = 'contracts/../../x.sol')),
    'PROJECT_MANIFEST_INVALID',
    /\/targets\/0\/source must match pattern/,
  ],
  [
    'profile 4.0.0 with the funded funding object',
    () => project((m) => (m.profile = '4.0.0')),
    'PROJECT_MANIFEST_INVALID',
    /\/funding/,
  ],
  [
    'profile 4.1.0 with the exact-value funding object',
    () => project((m) => (m.funding = { walletTransactionValueWei: '0' })),
    'PROJECT_MANIFEST_INVALID',
    /\/funding/,
  ],
];

describe('manifest refusals', () => {
  it.each(manifestRefusals)('refuses %s', (_name, given, code, message) => {
    const dir = given();
    expect(refusal(() => readProjectManifest(dir))).toMatchObject({ code, message: expect.stringMatching(message) });
    expect(refusal(() => pack(dir))).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it('checks a manifest given as an option the same way', () => {
    const manifest = { ...structuredClone(exampleManifest), permitLifetimeSeconds: 0 };
    expect(refusal(() => pack(project(), { manifest }))).toMatchObject({
      code: 'PROJECT_MANIFEST_INVALID',
      message: expect.stringMatching(/^the given manifest does not match its schema/),
    });
  });
});

// ---- refusals made before compiling (image, chain deployment) ----

describe('image and chain-deployment refusals', () => {
  it.each([
    ['a JPEG', () => withImage('logo.jpg', jpeg), /logo\.jpg: IMAGE_JPEG_UNSUPPORTED/],
    ['a JPEG named .png', () => withImage('photo.png', jpeg), /IMAGE_JPEG_UNSUPPORTED/],
    ['a WebP', () => withImage('logo.webp', webp), /logo\.webp: IMAGE_WEBP_UNSUPPORTED/],
    ['an animated (two-frame) GIF', () => withImage('logo.gif', twoFrameGif), /logo\.gif: IMAGE_GIF_ANIMATED/],
    [
      'a PNG named .gif',
      () => withImage('logo.gif', readFileSync(join(exampleProject, 'logo.png'))),
      /IMAGE_TYPE_MISMATCH: the bytes are image\/png but the declared media type is image\/gif/,
    ],
    ['a GIF named .png', () => withImage('logo.png', singleFrameGif), /IMAGE_TYPE_MISMATCH/],
    ['a text file named .png', () => withImage('logo.png', Buffer.from('not an image')), /IMAGE_UNRECOGNIZED/],
  ])('refuses %s image', (_name, given, message) => {
    expect(refusal(() => pack(given()))).toMatchObject({
      code: 'IMAGE_REFUSED',
      message: expect.stringMatching(message),
    });
  });

  it('refuses an image file that does not exist', () => {
    const dir = project((m) => (m.metadata.imageFile = 'missing.png'));
    expect(refusal(() => pack(dir))).toMatchObject({
      code: 'PROJECT_FILE_UNREADABLE',
      message: expect.stringMatching(/cannot read missing\.png/),
    });
  });

  it.each([
    ['an unknown property', () => ({ ...structuredClone(chainDeployment), extra: true })],
    ['chain 1', () => ({ ...structuredClone(chainDeployment), chainId: '1' })],
    [
      'no contracts',
      () => {
        const { contracts: _contracts, ...rest } = structuredClone(chainDeployment);
        return rest;
      },
    ],
    ['null', () => null],
  ])('refuses a chain deployment with %s', (_name, given) => {
    expect(refusal(() => pack(project(), { chainDeployment: given() }))).toMatchObject({
      code: 'CHAIN_DEPLOYMENT_UNREADABLE',
      message: expect.stringMatching(/not a chainDeployment document/),
    });
  });
});

// ---- cases that compile ----

describe('packs that compile', () => {
  it(
    'accepts a single-frame GIF',
    () => {
      const result = pack(withImage('logo.gif', singleFrameGif));
      expect(result.request.projectMetadataImageArtifact).toMatchObject({
        mediaType: 'image/gif',
        byteLength: singleFrameGif.length,
        bytesBase64: singleFrameGif.toString('base64'),
      });
      expect(result.request.projectMetadata.image.mediaType).toBe('image/gif');
      expect(validateRequest?.(result.request)).toBe(true);
    },
    slow,
  );

  it.each([1, 3600])(
    'packs permitLifetimeSeconds %i',
    (seconds) => {
      const result = pack(project((m) => (m.permitLifetimeSeconds = seconds)));
      expect(result.request.permitWindow).toEqual({ lifetimeSeconds: seconds });
      expect(validateRequest?.(result.request)).toBe(true);
    },
    slow,
  );

  it(
    'packs profile 4.0.0 with the exact wallet value and no funding plan',
    () => {
      const result = pack(
        project((m) => {
          m.profile = '4.0.0';
          m.funding = { walletTransactionValueWei: '0' };
        }),
      );
      expect(result.request.profile).toBe('4.0.0');
      expect(result.request.funding).toEqual({
        model: 'exact-wallet-value',
        walletTransactionValueWei: '0',
        initialBuyWei: '0',
      });
      expect(result.request).not.toHaveProperty('fundingPlan');
      expect(JSON.parse(result.bytes.toString('utf8'))).not.toHaveProperty('fundingPlan');
      expect(validateRequest?.(result.request)).toBe(true);
      expect(bindRequestHashes(result.request)).toEqual(result.request);
      expect(hookBitsOf(result)).toBe(exampleMask);
    },
    slow,
  );

  const sourceEdit = (file: string, edit: (text: string) => string) =>
    project((_m, dir) => {
      const path = join(dir, file);
      writeFileSync(path, edit(readFileSync(path, 'utf8')));
    });
  const importing = (line: string) =>
    sourceEdit('contracts/ExampleToken.sol', (text) => text.replace(/pragma solidity [^;]+;/, (p) => `${p}\n${line}`));

  it.each([
    [
      'allocations one wei over walletTransactionValueWei',
      () => project((m) => (m.funding.walletTransactionValueWei = '9999999999999999')),
      'FUNDING_PLAN_UNBALANCED',
      /sum to 10000000000000000 wei, not walletTransactionValueWei 9999999999999999/,
    ],
    [
      'allocations one wei under walletTransactionValueWei',
      () => project((m) => (m.funding.walletTransactionValueWei = '10000000000000001')),
      'FUNDING_PLAN_UNBALANCED',
      /sum to 10000000000000000 wei, not walletTransactionValueWei 10000000000000001/,
    ],
    [
      'a Solidity syntax error',
      () => sourceEdit('contracts/ExampleToken.sol', (text) => `${text}\ncontract Broken {\n`),
      'SOURCE_COMPILE_FAILED',
      /do not compile:\n.*ParserError/,
    ],
    [
      'a contractName the file does not define',
      () => project((m) => (m.targets[0].contractName = 'NoSuchToken')),
      'SOURCE_COMPILE_FAILED',
      /contracts\/ExampleToken\.sol has no deployable contract NoSuchToken/,
    ],
    [
      'a source file that does not exist',
      () => project((m) => (m.targets[0].source = 'contracts/Missing.sol')),
      'PROJECT_FILE_UNREADABLE',
      /cannot read contracts\/Missing\.sol/,
    ],
    [
      'an absolute import outside the folder',
      () => importing(`import "${join(root, 'Outside.sol')}";`),
      'PROJECT_FILE_UNREADABLE',
      /Outside\.sol lies outside the project folder/,
    ],
  ])(
    'refuses %s',
    (_name, given, code, message) => {
      expect(refusal(() => pack(given()))).toMatchObject({ code, message: expect.stringMatching(message) });
    },
    slow,
  );

  it('refuses an image or a source that is a symbolic link to a file outside the project', () => {
    writeFileSync(join(root, 'outside.png'), readFileSync(join(exampleProject, 'logo.png')));
    const linkedImage = project((_m, dir) => {
      rmSync(join(dir, 'logo.png'));
      symlinkSync(join(root, 'outside.png'), join(dir, 'logo.png'));
    });
    expect(refusal(() => pack(linkedImage))).toMatchObject({ code: 'PROJECT_FILE_UNREADABLE' });
    writeFileSync(join(root, 'Outside.sol'), readFileSync(join(exampleProject, 'contracts/ExampleToken.sol')));
    const linkedSource = project((_m, dir) => {
      rmSync(join(dir, 'contracts/ExampleToken.sol'));
      symlinkSync(join(root, 'Outside.sol'), join(dir, 'contracts/ExampleToken.sol'));
    });
    expect(refusal(() => pack(linkedSource))).toMatchObject({ code: 'PROJECT_FILE_UNREADABLE' });
  });

  // An import under '@' resolves inside node_modules only: '@x/../../../../Outside.sol' must not reach a file outside.
  it(
    'refuses an @-import climbing out of node_modules as PROJECT_FILE_UNREADABLE',
    () => {
      const dir = join(root, 'nested', 'project');
      cpSync(exampleProject, dir, { recursive: true });
      writeFileSync(
        join(root, 'Outside.sol'),
        '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\nlibrary Outside {}\n',
      );
      const path = join(dir, 'contracts/ExampleToken.sol');
      const text = readFileSync(path, 'utf8');
      writeFileSync(
        path,
        text.replace(/pragma solidity [^;]+;/, (p) => `${p}\nimport "@x/../../../../Outside.sol";`),
      );
      expect(refusal(() => pack(dir))).toMatchObject({ code: 'PROJECT_FILE_UNREADABLE' });
    },
    slow,
  );
});
