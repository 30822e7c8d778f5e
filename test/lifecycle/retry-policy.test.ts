import {
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  parseAbi,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { ProviderDisagreement } from '../../src/chain/chain-failure.ts';
import { loadConfig } from '../../src/config.ts';
import { findingCodes } from '../../src/domain/launches/finding-codes.ts';
import {
  backoffDelayMs,
  classifyStepFailure,
  QuoteUnavailable,
  type StepFailure,
} from '../../src/domain/lifecycle/retry-policy.ts';

const url = 'http://127.0.0.1:1';
const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: { method: 'eth_call' }, error: { code, message }, url });
const refused = () =>
  new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });

describe('classifyStepFailure: transient vs definitive (LifecycleQueue in custom-launch-resource.v4.schema.json)', () => {
  const table: Array<[string, unknown, StepFailure]> = [
    [
      'an EVM revert (viem ExecutionRevertedError)',
      new ExecutionRevertedError({ cause: rpcError(3, 'execution reverted') }),
      { kind: 'definitive', code: 'ROUTER_SIMULATION_REVERTED' },
    ],
    [
      'a revert wrapped by a caller',
      new Error('call failed', { cause: new ExecutionRevertedError() }),
      { kind: 'definitive', code: 'ROUTER_SIMULATION_REVERTED' },
    ],
    [
      'a contract function revert',
      new ContractFunctionRevertedError({ abi: parseAbi(['function f()']), functionName: 'f' }),
      { kind: 'definitive', code: 'ROUTER_SIMULATION_REVERTED' },
    ],
    [
      'JSON-RPC code 3 on its own',
      rpcError(3, 'execution reverted'),
      { kind: 'definitive', code: 'ROUTER_SIMULATION_REVERTED' },
    ],
    [
      'a refused connection (viem HttpRequestError)',
      new HttpRequestError({ url, cause: refused() }),
      { kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' },
    ],
    [
      'a refused connection without viem',
      new Error('outer', { cause: refused() }),
      { kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' },
    ],
    [
      'a provider timeout',
      new TimeoutError({ body: { method: 'eth_getBlockByNumber' }, url }),
      { kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' },
    ],
    [
      'a provider error other than a revert (rate limit)',
      rpcError(-32005, 'limit exceeded'),
      { kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' },
    ],
    [
      'the two providers disagreeing',
      new ProviderDisagreement('providers disagree on the hash of finalized block 7'),
      { kind: 'transient', code: 'CHAIN_PROVIDERS_DISAGREE' },
    ],
    [
      'no fresh native/USD quote',
      new QuoteUnavailable('no fresh native/USD quote'),
      { kind: 'transient', code: 'INITIAL_BUY_QUOTE_UNAVAILABLE' },
    ],
    [
      'anything unexplained (an unreadable stored request)',
      new SyntaxError('Unexpected token'),
      { kind: 'transient', code: 'LIFECYCLE_STEP_FAILED' },
    ],
    ['a thrown non-error', 'boom', { kind: 'transient', code: 'LIFECYCLE_STEP_FAILED' }],
  ];
  it.each(table)('%s', (_name, given, want) => {
    expect(classifyStepFailure(given)).toEqual(want);
  });

  it('names only codes of the finding table', () => {
    for (const [, , want] of table) expect(findingCodes[want.code]).toBeDefined();
  });
});

describe('backoffDelayMs: capped exponential with jitter', () => {
  const policy = { baseMs: 1_000, maxMs: 60_000 };
  it.each([
    ['the first retry waits the base', 1, 0, 1_000],
    ['it doubles per attempt', 2, 0, 2_000],
    ['the last step below the cap', 6, 0, 32_000],
    ['the cap holds one step later', 7, 0, 60_000],
    ['and a thousand attempts later', 1_000, 0, 60_000],
    ['jitter takes off at most a fifth', 7, 0.999_999, 48_000],
    ['half the jitter', 3, 0.5, 3_600],
  ])('%s', (_name, attempt, random, want) => {
    expect(backoffDelayMs(attempt, policy, () => random)).toBe(want);
  });
});

describe('configuration: the validation deadline replaced the attempt bound (docs/configuration.md)', () => {
  it('defaults to a 24-hour deadline and a 60 s backoff cap', () => {
    expect(loadConfig({}).lifecycle).toMatchObject({
      validationDeadlineMs: 86_400_000,
      backoffBaseMs: 1_000,
      backoffMaxMs: 60_000,
    });
  });

  it.each([
    ['LIFECYCLE_VALIDATION_DEADLINE_MS', '1', 'validationDeadlineMs', 1],
    ['LIFECYCLE_BACKOFF_MS', '1', 'backoffBaseMs', 1],
    ['LIFECYCLE_BACKOFF_MAX_MS', '1', 'backoffMaxMs', 1],
  ] as const)('accepts %s=%s', (name, value, field, want) => {
    expect(loadConfig({ [name]: value }).lifecycle[field]).toBe(want);
  });

  it.each(['LIFECYCLE_VALIDATION_DEADLINE_MS', 'LIFECYCLE_BACKOFF_MS', 'LIFECYCLE_BACKOFF_MAX_MS'])(
    'refuses %s=0',
    (name) => {
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name} must be at least 1`);
    },
  );

  it('refuses to start with LIFECYCLE_MAX_ATTEMPTS rather than ignore it', () => {
    expect(() => loadConfig({ LIFECYCLE_MAX_ATTEMPTS: '5' })).toThrow(/replaced.*LIFECYCLE_VALIDATION_DEADLINE_MS/);
  });
});
