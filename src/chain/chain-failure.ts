import {
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  RpcRequestError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';

/**
 * The two providers answered, but not the same thing, or not what the bound chain deployment says (another chain,
 * other code at a bound contract, another hash for the same finalized block). A fact about the providers at one
 * moment, never about the launch request.
 */
export class ProviderDisagreement extends Error {
  override readonly name = 'ProviderDisagreement';
}

/** JSON-RPC error code of an EVM execution revert (EIP-1474 as nodes use it for eth_call and eth_estimateGas). */
const executionRevertedCode = 3;

/** Node socket errors of a provider that cannot be reached. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

function* causes(err: unknown): Generator<unknown> {
  let e: unknown = err;
  for (let depth = 0; e && depth < 16; depth++) {
    yield e;
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
}

/**
 * True when the node executed the call and the EVM reverted (viem's ExecutionRevertedError or
 * ContractFunctionRevertedError, or JSON-RPC code 3, anywhere in the cause chain): the call's own outcome, which
 * asking again does not change.
 */
export function isExecutionRevert(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof ExecutionRevertedError || e instanceof ContractFunctionRevertedError) return true;
    if (e instanceof RpcRequestError && e.code === executionRevertedCode) return true;
  }
  return false;
}

/**
 * True when a provider did not answer the request: an HTTP or WebSocket failure, a timeout, a refused or reset
 * connection, or a JSON-RPC error other than a revert (the provider's own trouble, such as a rate limit).
 */
export function isProviderUnreachable(err: unknown): boolean {
  if (isExecutionRevert(err)) return false;
  for (const e of causes(err)) {
    if (e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError) return true;
    if (e instanceof RpcRequestError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && socketCodes.has(code)) return true;
  }
  return false;
}

/**
 * The one answer both providers gave (compared as JSON, bigints as decimals), or ProviderDisagreement naming `what`
 * they differ on: one provider's word is never taken for the chain's.
 */
export function sameOnBoth<T>(what: string, answers: readonly T[]): T {
  const key = (v: T) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  const [first] = answers;
  if (answers.some((a) => key(a) !== key(first as T))) throw new ProviderDisagreement(`providers disagree on ${what}`);
  return first as T;
}

/**
 * A rejection handler that turns a provider's "not found" (an error of class `notFound`) into the answer null and
 * throws anything else: a provider that has no such block or transaction answered; one that failed did not.
 */
export const noneOn =
  (notFound: abstract new (...args: never[]) => Error) =>
  (err: unknown): null => {
    if (err instanceof notFound) return null;
    throw err;
  };
