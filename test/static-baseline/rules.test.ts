import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AbiFunction, toFunctionSelector } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { callbackFlags } from '../../src/core/hook-permissions.ts';
import { dispatchedSelectors, scanRuntime } from '../../src/domain/static-baseline/opcode-scanner.ts';
import {
  erc20CoreSelectors,
  hookCallbackSelectors,
  poolCustodySelectors,
} from '../../src/domain/static-baseline/role-binding.ts';
import {
  decidePoolManager,
  evaluateStaticBaseline,
  type StaticBaselineTarget,
  selectorDuties,
} from '../../src/domain/static-baseline/rules.ts';
import { type CompiledFixture, compileFixtures, fillImmutables } from './compile-fixtures.ts';

const canonicalPoolManager = '0x4444444444444444444444444444444444444444';
const otherManager = '0x5555555555555555555555555555555555555555';
const graphImplementation = '0x6666666666666666666666666666666666666666';
const config = { canonicalPoolManager };

let withCbor: Record<string, CompiledFixture>;
let withoutCbor: Record<string, CompiledFixture>;
let viaIr: Record<string, CompiledFixture> | undefined;

beforeAll(() => {
  withCbor = compileFixtures({ appendCBOR: true });
  withoutCbor = compileFixtures({ appendCBOR: false });
});

type Build = Record<string, CompiledFixture>;
type Given = (build: Build) => StaticBaselineTarget[];

const fixture = (build: Build, name: string): CompiledFixture => {
  const compiled = build[name];
  if (!compiled) throw new Error(`fixture ${name} was not compiled`);
  return compiled;
};
const target = (
  targetId: string,
  role: StaticBaselineTarget['role'],
  runtimeBytecode: string,
): StaticBaselineTarget => ({
  targetId,
  role,
  runtimeBytecode,
});
const runtime =
  (name: string, role: StaticBaselineTarget['role'] = 'auxiliary'): Given =>
  (build) => [target(name, role, fixture(build, name).runtime)];
const filled =
  (name: string, role: StaticBaselineTarget['role'], address: string): Given =>
  (build) => [target(name, role, fillImmutables(fixture(build, name), address))];

const cases: Array<[name: string, given: Given, want: string[]]> = [
  ['clean token: nothing', runtime('CleanToken', 'token'), []],
  [
    'controlled token: mint, pause and blacklist are evidence duties',
    runtime('ControlledToken', 'token'),
    ['MINT_CONTROL', 'PAUSE_CONTROL', 'PAUSE_CONTROL', 'TRANSFER_CONTROL'],
  ],
  [
    'clean hook with the canonical pool manager filled in: nothing',
    filled('CleanHook', 'hook', canonicalPoolManager),
    [],
  ],
  [
    'clean hook with a noncanonical pool manager filled in: hard block',
    filled('CleanHook', 'hook', otherManager),
    ['NONCANONICAL_POOL_MANAGER'],
  ],
  ['hook with an unfilled immutable: not static, a duty', runtime('CleanHook', 'hook'), ['POOL_MANAGER_NOT_STATIC']],
  ['unfilled immutable on a non-hook role: nothing', runtime('CleanHook', 'auxiliary'), []],
  [
    'hook with a literal noncanonical pool manager: hard block',
    runtime('NoncanonicalHook', 'hook'),
    ['NONCANONICAL_POOL_MANAGER'],
  ],
  ['the getter rule is role-agnostic', runtime('NoncanonicalHook', 'auxiliary'), ['NONCANONICAL_POOL_MANAGER']],
  ['reachable selfdestruct: hard block', runtime('Destructible'), ['RUNTIME_SELFDESTRUCT']],
  ['factory embedding a selfdestructing child: hard block', runtime('Factory'), ['RUNTIME_SELFDESTRUCT']],
  ['the child itself: hard block', runtime('Child'), ['RUNTIME_SELFDESTRUCT']],
  ['Yul CALLCODE forwarder: hard block', runtime('CallcodeForwarder'), ['RUNTIME_CALLCODE']],
  ['0xff / 0xf2 / 0xf4 bytes32 constants: nothing', runtime('ConstantTrap'), []],
  [
    'minimal proxy to an external implementation: delegatecall and dependency duties',
    filled('MinimalProxy', 'auxiliary', otherManager),
    ['EXTERNAL_DEPENDENCY', 'PROXY_OR_DELEGATECALL'],
  ],
  [
    'minimal proxy to a graph target: delegatecall duty only',
    (build) => [
      { ...target('MinimalProxy', 'auxiliary', fillImmutables(fixture(build, 'MinimalProxy'), graphImplementation)) },
      { ...target('Implementation', 'auxiliary', '0x00'), address: graphImplementation },
    ],
    ['PROXY_OR_DELEGATECALL'],
  ],
];

const codesOf = (targets: StaticBaselineTarget[], canonical = canonicalPoolManager) =>
  evaluateStaticBaseline(targets, { canonicalPoolManager: canonical }).findings.map((f) => f.code);

describe('evaluateStaticBaseline over solc fixtures', () => {
  it.each(cases)('with CBOR trailer: %s', (_name, given, want) => {
    expect(codesOf(given(withCbor))).toEqual(want);
  });

  it.each(cases)('without CBOR trailer: %s', (_name, given, want) => {
    expect(codesOf(given(withoutCbor))).toEqual(want);
  });

  it('the noncanonical rule is absent when the literal is the canonical pool manager', () => {
    const given = runtime('NoncanonicalHook', 'hook')(withCbor);
    expect(codesOf(given, '0x1111111111111111111111111111111111111111')).toEqual([]);
  });

  it('reports the factory finding inside embedded creation code', () => {
    const [finding] = evaluateStaticBaseline(runtime('Factory')(withCbor), config).findings;
    expect(finding?.severity).toBe('hard_block');
    expect(finding?.detail).toMatch(
      /^SELFDESTRUCT \(0xff\) reachable at offset \d+ \(embedded creation code at \d+\)$/,
    );
  });

  it('classifies severities from the finding-code table', () => {
    const findings = evaluateStaticBaseline(
      [...runtime('CallcodeForwarder')(withCbor), ...filled('MinimalProxy', 'auxiliary', otherManager)(withCbor)],
      config,
    ).findings;
    expect(findings.map((f) => [f.targetId, f.code, f.severity])).toEqual([
      ['CallcodeForwarder', 'RUNTIME_CALLCODE', 'hard_block'],
      ['MinimalProxy', 'EXTERNAL_DEPENDENCY', 'evidence_duty'],
      ['MinimalProxy', 'PROXY_OR_DELEGATECALL', 'evidence_duty'],
    ]);
  });

  it('sorts findings by targetId, code and detail whatever the input order', () => {
    const a = runtime('Destructible')(withCbor);
    const b = runtime('ControlledToken', 'token')(withCbor);
    const forward = evaluateStaticBaseline([...a, ...b], config).findings;
    const backward = evaluateStaticBaseline([...b, ...a], config).findings;
    expect(backward).toEqual(forward);
    expect(forward.map((f) => f.targetId)).toEqual([
      'ControlledToken',
      'ControlledToken',
      'ControlledToken',
      'ControlledToken',
      'Destructible',
    ]);
  });

  it('decides the pool manager from the getter, not from any literal', () => {
    const code = Buffer.from(fillImmutables(fixture(withCbor, 'CleanHook'), otherManager).slice(2), 'hex');
    expect(decidePoolManager(code, scanRuntime(code))).toMatchObject({ status: 'literal', address: otherManager });
    const token = Buffer.from(fixture(withCbor, 'CleanToken').runtime.slice(2), 'hex');
    expect(decidePoolManager(token, scanRuntime(token)).status).toBe('undecided');
  });

  it.each([
    ['0x-less hex', 'f2'],
    ['odd length', '0xf'],
    ['non-hex', '0xzz'],
    ['non-hex after a valid pair', '0x5bzz'],
    ['odd length after valid pairs', '0x5b5b5'],
    ['0x-less hex of four digits', 'f2f2'],
    ['an upper-case prefix', '0X5b'],
  ])('rejects runtime bytecode that is %s', (_name, runtimeBytecode) => {
    expect(() => evaluateStaticBaseline([target('t', 'token', runtimeBytecode)], config)).toThrow(TypeError);
  });
});

describe('CBOR trailer handling on solc output', () => {
  it('strips the trailer of a CBOR build and keeps its keys', () => {
    const scan = scanRuntime(Buffer.from(fixture(withCbor, 'CleanToken').runtime.slice(2), 'hex'));
    expect(scan.metadata?.keys).toEqual(['ipfs', 'solc']);
  });

  it('finds no trailer in an appendCBOR: false build or a Yul build', () => {
    for (const name of ['CleanToken', 'CallcodeForwarder']) {
      expect(scanRuntime(Buffer.from(fixture(withoutCbor, name).runtime.slice(2), 'hex')).metadata).toBeNull();
    }
  });

  it.each([
    ['one more', 1],
    ['one less', -1],
  ])('does not strip a trailer whose length byte lies (%s)', (_name, delta) => {
    const code = Buffer.from(fixture(withCbor, 'CleanToken').runtime.slice(2), 'hex');
    code[code.length - 1] = (code[code.length - 1] ?? 0) + delta;
    expect(scanRuntime(code).metadata).toBeNull();
  });
});

describe('selectorDuties', () => {
  it('holds only selectors a PUSH4 can carry (nonzero first byte)', () => {
    for (const duty of selectorDuties) expect(duty.selector, duty.signature).toMatch(/^0x(?!00)[0-9a-f]{8}$/);
  });
});

/** The devnet's canonical pool manager: the hook fixtures return it from their POOL_MANAGER constant. */
const devnetManager = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const hookWith =
  (name: string, mask: number, role: StaticBaselineTarget['role'] = 'hook'): Given =>
  (build) => [{ ...target(name, role, fixture(build, name).runtime), hookPermissionMask: mask }];

// Mask bits (v4-core Hooks.sol): beforeSwap 0x80, afterSwap 0x40, beforeSwapReturnDelta 0x08, afterSwapReturnDelta 0x04.
const roleAndPoolCases: Array<[name: string, given: Given, want: string[]]> = [
  ['ERC-20 token on the token role: nothing', runtime('CleanToken', 'token'), []],
  [
    'code without the ERC-20 core on the token role: hard block',
    runtime('ConstantTrap', 'token'),
    ['TOKEN_ROLE_BINDING_INVALID'],
  ],
  [
    'a hook on the token role: no ERC-20 core and a hook dispatcher, two hard blocks',
    runtime('HalfSwapHook', 'token'),
    ['TOKEN_ROLE_BINDING_INVALID', 'TOKEN_ROLE_BINDING_INVALID'],
  ],
  [
    'a proxy on the token role: its logic lives elsewhere, only the proxy duties',
    filled('MinimalProxy', 'token', otherManager),
    ['EXTERNAL_DEPENDENCY', 'PROXY_OR_DELEGATECALL'],
  ],
  [
    'a shared token and hook on the token role: hard block',
    runtime('SharedTokenHook', 'token'),
    ['TOKEN_ROLE_BINDING_INVALID'],
  ],
  [
    'a shared token and hook on the hook role: hard block',
    hookWith('SharedTokenHook', 0x80),
    ['HOOK_ROLE_BINDING_INVALID', 'POOL_MANAGER_NOT_STATIC'],
  ],
  ['a shared token and hook on an auxiliary role: nothing', runtime('SharedTokenHook', 'auxiliary'), []],
  ['a guarded swap hook on the hook role: nothing', hookWith('HalfSwapHook', 0x80), ['POOL_MANAGER_NOT_STATIC']],
  [
    'the whole ERC-20 core on the hook role: hard block',
    hookWith('CleanToken', 0),
    ['HOOK_ROLE_BINDING_INVALID', 'POOL_MANAGER_NOT_STATIC'],
  ],
  [
    'a hook without the ERC-20 core on the hook role: no role finding',
    hookWith('UnguardedSwapHook', 0xc0),
    ['POOL_MANAGER_NOT_STATIC'],
  ],
  [
    'a hook taking from the pool manager with afterSwapReturnDelta: custody and return-delta duties',
    hookWith('CustodyHook', 0x44),
    ['LIQUIDITY_CUSTODY', 'POOL_MANAGER_NOT_STATIC', 'RETURN_DELTA_ACCOUNTING'],
  ],
  [
    'the same hook without a returns-delta bit: custody only',
    hookWith('CustodyHook', 0x40),
    ['LIQUIDITY_CUSTODY', 'POOL_MANAGER_NOT_STATIC'],
  ],
  ['custody is role-agnostic', runtime('CustodyHook', 'auxiliary'), ['LIQUIDITY_CUSTODY']],
  ['a factory of a custody hook: custody from its embedded code', runtime('CustodyFactory'), ['LIQUIDITY_CUSTODY']],
  ['a factory of a selfdestructing child: no custody', runtime('Factory'), ['RUNTIME_SELFDESTRUCT']],
  [
    'beforeSwapReturnDelta with beforeSwap in the code: return-delta duty',
    hookWith('HalfSwapHook', 0x88),
    ['POOL_MANAGER_NOT_STATIC', 'RETURN_DELTA_ACCOUNTING'],
  ],
  [
    'afterSwapReturnDelta without afterSwap in the code: no return-delta duty',
    hookWith('HalfSwapHook', 0xc4),
    ['POOL_MANAGER_NOT_STATIC'],
  ],
  [
    'no returns-delta bit and no pool-manager call: nothing',
    hookWith('HalfSwapHook', 0xc0),
    ['POOL_MANAGER_NOT_STATIC'],
  ],
];

describe('role-bound rules and pool duties over solc fixtures', () => {
  it.each(roleAndPoolCases)('with CBOR trailer: %s', (_name, given, want) => {
    expect(codesOf(given(withCbor), devnetManager)).toEqual(want);
  });

  it.each(roleAndPoolCases)('without CBOR trailer: %s', (_name, given, want) => {
    expect(codesOf(given(withoutCbor), devnetManager)).toEqual(want);
  });

  it.each(roleAndPoolCases)('via IR: %s', (_name, given, want) => {
    viaIr ??= compileFixtures({ appendCBOR: true, viaIR: true });
    expect(codesOf(given(viaIr), devnetManager)).toEqual(want);
  });

  it('classifies the role-bound rules as hard blocks and the pool duties as evidence duties', () => {
    const findings = evaluateStaticBaseline(
      [...runtime('SharedTokenHook', 'token')(withCbor), ...hookWith('CustodyHook', 0x44)(withCbor)],
      { canonicalPoolManager: devnetManager },
    ).findings;
    expect(findings.map((f) => [f.targetId, f.code, f.severity])).toEqual([
      ['CustodyHook', 'LIQUIDITY_CUSTODY', 'evidence_duty'],
      ['CustodyHook', 'POOL_MANAGER_NOT_STATIC', 'evidence_duty'],
      ['CustodyHook', 'RETURN_DELTA_ACCOUNTING', 'evidence_duty'],
      ['SharedTokenHook', 'TOKEN_ROLE_BINDING_INVALID', 'hard_block'],
    ]);
    expect(findings[0]?.detail).toContain('take(address,address,uint256) 0x0b0d9c09');
    expect(findings[3]?.detail).toContain('beforeSwap 0x575e24b4');
  });

  it.each([['custom-launch-create-request.v4.json'], ['custom-launch-create-request.v4--profile-4.0.0.json']])(
    'the devnet example %s carries no role-bound or pool finding',
    (file) => {
      const request = JSON.parse(readFileSync(new URL(`../../spec/examples/${file}`, import.meta.url), 'utf8'));
      const targets = request.graphBundle.targets.map((t: any) => ({
        targetId: t.targetId,
        role: t.role,
        runtimeBytecode: t.runtimeBytecode,
        hookPermissionMask: t.hookPermissions?.mask,
      }));
      expect(codesOf(targets, devnetManager)).toEqual(['POOL_MANAGER_NOT_STATIC', 'EXTERNAL_DEPENDENCY']);
    },
  );
});

describe('dispatchedSelectors', () => {
  it('holds what the dispatcher branches on, not an outgoing call selector', () => {
    const code = Buffer.from(fixture(withCbor, 'CustodyHook').runtime.slice(2), 'hex');
    const scan = scanRuntime(code);
    const take = poolCustodySelectors.find((s) => s.name === 'take')?.selector;
    const afterSwap = hookCallbackSelectors.find((s) => s.name === 'afterSwap')?.selector;
    expect(scan.selectors.map((s) => s.selector)).toContain(take);
    expect(dispatchedSelectors(code, scan)).toContain(afterSwap);
    expect(dispatchedSelectors(code, scan)).not.toContain(take);
  });
});

describe('the selector tables of the role-bound rules and pool duties', () => {
  const require = createRequire(import.meta.url);
  const functions = (artifact: string) =>
    (require(`@uniswap/v4-core/out/${artifact}`) as { abi: AbiFunction[] }).abi.filter((f) => f.type === 'function');

  it('names each v4 hook callback by its IHooks selector, one per callback permission', () => {
    const hooks = functions('IHooks.sol/IHooks.json');
    expect(hookCallbackSelectors.map((s) => s.name)).toEqual([...callbackFlags]);
    for (const s of hookCallbackSelectors) {
      expect(s.selector, s.name).toBe(toFunctionSelector(hooks.find((f) => f.name === s.name) as AbiFunction));
    }
  });

  it('takes each custody selector from IPoolManager', () => {
    const manager = functions('IPoolManager.sol/IPoolManager.json').map((f) => toFunctionSelector(f));
    for (const s of poolCustodySelectors) expect(manager, s.signature).toContain(s.selector);
  });

  it('holds only selectors a PUSH4 carries (nonzero first byte)', () => {
    for (const s of [...erc20CoreSelectors, ...hookCallbackSelectors, ...poolCustodySelectors]) {
      expect(s.selector, s.signature).toMatch(/^0x(?!00)[0-9a-f]{8}$/);
    }
  });
});
