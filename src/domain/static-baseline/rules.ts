import { toFunctionSelector } from 'viem';
import type { StaticBaselineFindingV2 } from '../../../generated/types/service.ts';
import { HexMemo } from '../../core/hex-bytes.ts';
import { type FindingCode, findingCodes } from '../launches/finding-codes.ts';
import {
  decodeAt,
  dispatchedSelectors,
  type OpcodeHit,
  opcodes,
  type ScanResult,
  scanRuntime,
  validJumpDestinations,
} from './opcode-scanner.ts';
import { poolDutyFindings, roleBindingFindings } from './role-binding.ts';
import type { StaticBaselineRuleCode } from './rule-codes.ts';

/** A finding code from the one table in `finding-codes.ts`. */
export type { FindingCode };

/** One graph target as the static baseline sees it. */
export interface StaticBaselineTarget {
  targetId: string;
  role: 'token' | 'hook' | 'initializer' | 'auxiliary';
  /** `0x` + an even number of hex digits: the runtime code the target will have on chain. */
  runtimeBytecode: string;
  /** The target's chain address when known; a literal equal to it is not an external dependency. */
  address?: string;
  /** The hook's Uniswap v4 permission mask (the hook target only); the return-delta duty reads it. */
  hookPermissionMask?: number;
}

/** Configuration the rules need: the chain's canonical Uniswap v4 pool manager. */
export interface StaticBaselineConfig {
  canonicalPoolManager: string;
}

/** `poolManager()`: the getter through which a Uniswap v4 hook names the pool manager it trusts. */
export const poolManagerSelector = '0xdc4c90d3';

/**
 * Selectors whose presence in a reachable PUSH4 binds an evidence duty. Presence is an over-approximation (the
 * value may be an outgoing call's selector or plain data) and never a block; absence proves nothing either,
 * because a selector whose first byte is zero is pushed by a shorter PUSH and the optimizer may rebuild one from
 * a shifted constant. Evidence duties are never categorical blocks (custom-launch-preflight.v2.schema.json).
 */
export const selectorDuties: ReadonlyArray<{ code: StaticBaselineRuleCode; signature: string; selector: string }> = (
  [
    ['MINT_CONTROL', 'mint(address,uint256)'],
    ['MINT_CONTROL', 'mint(uint256)'],
    ['MINT_CONTROL', 'mintTo(address,uint256)'],
    ['PAUSE_CONTROL', 'pause()'],
    ['PAUSE_CONTROL', 'unpause()'],
    ['PAUSE_CONTROL', 'setPaused(bool)'],
    ['TRANSFER_CONTROL', 'blacklist(address)'],
    ['TRANSFER_CONTROL', 'addToBlacklist(address)'],
    ['TRANSFER_CONTROL', 'setBlacklist(address,bool)'],
    ['TRANSFER_CONTROL', 'enableTrading()'],
    ['TRANSFER_CONTROL', 'setTradingEnabled(bool)'],
    ['TRANSFER_CONTROL', 'setMaxTxAmount(uint256)'],
    ['TRANSFER_CONTROL', 'setMaxWalletSize(uint256)'],
    ['TAX_CONTROL', 'setFee(uint256)'],
    ['TAX_CONTROL', 'setFees(uint256,uint256)'],
    ['TAX_CONTROL', 'setBuyTax(uint256)'],
    ['TAX_CONTROL', 'setSellTax(uint256)'],
    ['PROXY_OR_DELEGATECALL', 'upgradeTo(address)'],
    ['PROXY_OR_DELEGATECALL', 'upgradeToAndCall(address,bytes)'],
  ] as const
).map(([code, signature]) => ({ code, signature, selector: toFunctionSelector(signature) }));

/**
 * How the pool manager was decided from the `poolManager()` getter: a single constant address, or undecided.
 * Only exported for tests and diagnostics.
 */
export type PoolManagerDecision =
  | { status: 'literal'; address: string; offset: number }
  | { status: 'undecided'; reason: string };

const maxOffsetsInDetail = 8;

/**
 * Evaluates the static baseline rules over the graph targets' runtime code: the objective hard-block rules and the
 * evidence duties of `staticBaseline` in spec/schemas/custom-launch-preflight.v2.schema.json.
 *
 * Hard blocks: a reachable CALLCODE (`RUNTIME_CALLCODE`); a reachable SELFDESTRUCT, including one inside embedded
 * creation code (`RUNTIME_SELFDESTRUCT`); a `poolManager()` getter that returns a single constant address other
 * than the canonical pool manager (`NONCANONICAL_POOL_MANAGER`, see `decidePoolManager`); the two role-bound rules
 * (`TOKEN_ROLE_BINDING_INVALID`, `HOOK_ROLE_BINDING_INVALID`, see `roleBindingFindings`).
 *
 * Evidence duties, never blocks: a reachable DELEGATECALL or an upgrade selector (`PROXY_OR_DELEGATECALL`);
 * mint, pause, transfer-control and tax selectors (`selectorDuties`); address literals that are neither the
 * canonical pool manager nor a graph target (`EXTERNAL_DEPENDENCY`); a hook whose pool manager the getter rule
 * cannot decide statically (`POOL_MANAGER_NOT_STATIC`); PoolManager custody selectors and enabled returns-delta
 * callbacks (`LIQUIDITY_CUSTODY`, `RETURN_DELTA_ACCOUNTING`, see `poolDutyFindings`).
 *
 * @param targets The graph targets with their runtime code.
 * @param config The canonical pool manager of the chain.
 * @param hex The request's decodes (the request rules decoded the same code already).
 * @returns Findings sorted by targetId, code, then detail (UTF-16 code units).
 * @throws {TypeError} When a runtime bytecode is not `0x`-prefixed even-length hex.
 */
export function evaluateStaticBaseline(
  targets: StaticBaselineTarget[],
  config: StaticBaselineConfig,
  hex: HexMemo = new HexMemo(),
): { findings: StaticBaselineFindingV2[] } {
  const canonical = config.canonicalPoolManager.toLowerCase();
  const graphAddresses = new Set(targets.flatMap((t) => (t.address ? [t.address.toLowerCase()] : [])));
  const findings: StaticBaselineFindingV2[] = [];
  for (const target of targets) {
    const code = hex.bytes(target.runtimeBytecode);
    if (!code) {
      throw new TypeError(`evaluateStaticBaseline: runtimeBytecode of ${target.targetId} is not 0x-prefixed hex`);
    }
    const scan = scanRuntime(code);
    const add = (code: StaticBaselineRuleCode, detail: string) =>
      findings.push({ code, severity: findingCodes[code].classification, targetId: target.targetId, detail });

    if (scan.callcode.length > 0)
      add('RUNTIME_CALLCODE', `CALLCODE (0xf2) reachable at ${describeHits(scan.callcode)}`);
    if (scan.selfdestruct.length > 0) {
      add('RUNTIME_SELFDESTRUCT', `SELFDESTRUCT (0xff) reachable at ${describeHits(scan.selfdestruct)}`);
    }
    if (scan.delegatecall.length > 0) {
      add('PROXY_OR_DELEGATECALL', `DELEGATECALL (0xf4) reachable at ${describeHits(scan.delegatecall)}`);
    }

    const decision = decidePoolManager(code, scan);
    let reportedManager: string | null = null;
    if (decision.status === 'literal' && decision.address !== canonical) {
      reportedManager = decision.address;
      add(
        'NONCANONICAL_POOL_MANAGER',
        `poolManager() returns the constant ${decision.address} (literal at offset ${decision.offset}), not the canonical pool manager`,
      );
    } else if (decision.status === 'undecided' && target.role === 'hook') {
      add('POOL_MANAGER_NOT_STATIC', `pool manager not decided statically: ${decision.reason}`);
    }

    const literals = new Map<string, OpcodeHit[]>();
    for (const literal of scan.addressLiterals) {
      if (literal.address === canonical || literal.address === reportedManager) continue;
      if (graphAddresses.has(literal.address)) continue;
      literals.set(literal.address, [...(literals.get(literal.address) ?? []), literal]);
    }
    for (const [address, hits] of literals) {
      add('EXTERNAL_DEPENDENCY', `address literal ${address} pushed at ${describeHits(hits)}`);
    }

    for (const duty of selectorDuties) {
      const hits = scan.selectors.filter((s) => s.selector === duty.selector);
      if (hits.length > 0) {
        add(duty.code, `selector ${duty.selector} ${duty.signature} pushed at ${describeHits(hits)}`);
      }
    }

    const roleInput = {
      role: target.role,
      hookPermissionMask: target.hookPermissionMask,
      scan,
      dispatched: dispatchedSelectors(code, scan),
    };
    for (const finding of [...roleBindingFindings(roleInput), ...poolDutyFindings(roleInput)]) {
      add(finding.code, finding.detail);
    }
  }
  return { findings: sortFindings(findings) };
}

/**
 * Sorts findings by targetId (null first), code, then detail, comparing UTF-16 code units.
 *
 * @param findings Findings in any order; not modified.
 * @returns A new sorted array.
 */
export function sortFindings(findings: readonly StaticBaselineFindingV2[]): StaticBaselineFindingV2[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...findings].sort(
    (a, b) =>
      compare(a.targetId ?? '', b.targetId ?? '') ||
      (a.targetId === null ? 0 : 1) - (b.targetId === null ? 0 : 1) ||
      compare(a.code, b.code) ||
      compare(a.detail, b.detail),
  );
}

/**
 * Decides the pool manager from the code of the `poolManager()` getter, and only from solc's shapes:
 *
 * 1. The top-level dispatcher compares the selector and branches: `PUSH4 0xdc4c90d3 EQ PUSHn dest JUMPI`, where
 *    dest is a valid JUMPDEST.
 * 2. The getter's entry block, from dest up to its first JUMP, uses only stack and arithmetic opcodes (no
 *    storage, memory, calldata, environment or calls). A non-payable check `CALLVALUE DUP1 ISZERO PUSHn ok JUMPI`
 *    whose fall-through reverts is followed to `ok`.
 * 3. That block pushes exactly one address-shaped constant (PUSH20, or PUSH32 with the top 12 bytes zero).
 *
 * Then the getter's value is computed from constants alone and the only address among them is the one returned.
 * Anything else (a storage or immutable-from-constructor read resolved only on chain, an unfilled immutable, a
 * getter that is not solc-shaped, no getter at all) is undecided and left to the dynamic checks. A contrived
 * getter that arithmetically turns a noncanonical constant into the canonical address would be over-blocked;
 * writing the canonical address as the literal avoids that.
 *
 * @param code Runtime bytecode.
 * @param scan Its scan result.
 */
export function decidePoolManager(code: Uint8Array, scan: ScanResult): PoolManagerDecision {
  const dispatch = scan.selectors.find((s) => s.embeddedStart === null && s.selector === poolManagerSelector);
  if (!dispatch) return { status: 'undecided', reason: 'no reachable poolManager() selector in the dispatcher' };
  const eq = decodeAt(code, dispatch.offset + 5);
  const push = decodeAt(code, eq.next);
  const jumpi = decodeAt(code, push.next);
  const destinations = validJumpDestinations(code);
  const entry = readUint(push.immediate);
  if (eq.opcode !== 0x14 || push.immediate.length === 0 || jumpi.opcode !== opcodes.JUMPI || !destinations.has(entry)) {
    return { status: 'undecided', reason: 'poolManager() dispatch is not a PUSH4 EQ PUSH JUMPI branch' };
  }
  const found = new Map<string, number>();
  let pc = entry;
  for (let steps = 0; steps < 64; steps++) {
    const instruction = decodeAt(code, pc);
    const { opcode } = instruction;
    if (opcode === opcodes.JUMP) {
      const [only, ...others] = [...found];
      if (!only || others.length > 0) {
        return { status: 'undecided', reason: `poolManager() getter pushes ${found.size} address constants` };
      }
      return { status: 'literal', address: only[0], offset: only[1] };
    }
    if (opcode === 0x34) {
      const ok = followNonPayableCheck(code, pc, destinations);
      if (ok === null) break;
      pc = ok;
      continue;
    }
    if (opcode === opcodes.PUSH20 && instruction.immediate.every((b) => b === 0xff)) {
      // solc's unoptimized address mask, not a value.
    } else if (opcode === opcodes.PUSH20 || opcode === opcodes.PUSH32) {
      const address = addressOf(instruction.immediate);
      if (address === null) {
        return { status: 'undecided', reason: 'poolManager() getter pushes a zero or non-address constant' };
      }
      if (!found.has(address)) found.set(address, pc);
    } else if (!isPureStackOpcode(opcode)) {
      break;
    }
    pc = instruction.next;
  }
  return { status: 'undecided', reason: 'poolManager() getter is not a constant-only block' };
}

function followNonPayableCheck(code: Uint8Array, pc: number, destinations: Set<number>): number | null {
  const callvalue = decodeAt(code, pc);
  const dup = decodeAt(code, callvalue.next);
  const iszero = decodeAt(code, dup.next);
  const push = decodeAt(code, iszero.next);
  const jumpi = decodeAt(code, push.next);
  if (dup.opcode !== 0x80 || iszero.opcode !== 0x15 || push.immediate.length === 0 || jumpi.opcode !== 0x57) {
    return null;
  }
  // The fall-through must revert at once: PUSH0|PUSH1 0, DUP1 (or a second PUSH), REVERT.
  let at = jumpi.next;
  for (let i = 0; i < 3; i++) {
    const step = decodeAt(code, at);
    if (step.opcode === opcodes.REVERT) {
      const ok = readUint(push.immediate);
      return destinations.has(ok) ? ok : null;
    }
    if (!revertPrelude.has(step.opcode)) return null;
    at = step.next;
  }
  return null;
}

const revertPrelude = new Set<number>([opcodes.PUSH0, opcodes.PUSH1, 0x80]);

function isPureStackOpcode(opcode: number): boolean {
  return (
    (opcode >= 0x01 && opcode <= 0x0b) ||
    (opcode >= 0x10 && opcode <= 0x1d) ||
    opcode === 0x50 ||
    opcode === opcodes.JUMPDEST ||
    (opcode >= opcodes.PUSH0 && opcode <= opcodes.PUSH32) ||
    (opcode >= 0x80 && opcode <= 0x9f)
  );
}

function addressOf(immediate: Uint8Array): string | null {
  const low = immediate.length === 20 ? immediate : immediate.subarray(12);
  if (immediate.length === 32 && immediate.subarray(0, 12).some((b) => b !== 0)) return null;
  if (low.length !== 20 || low.every((b) => b === 0)) return null;
  return `0x${Buffer.from(low).toString('hex')}`;
}

function readUint(bytes: Uint8Array): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}

function describeHits(hits: readonly OpcodeHit[]): string {
  const shown = hits
    .slice(0, maxOffsetsInDetail)
    .map((h) =>
      h.embeddedStart === null
        ? `offset ${h.offset}`
        : `offset ${h.offset} (embedded creation code at ${h.embeddedStart})`,
    );
  const more = hits.length > maxOffsetsInDetail ? ` and ${hits.length - maxOffsetsInDetail} more` : '';
  return `${shown.join(', ')}${more}`;
}
