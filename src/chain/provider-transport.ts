import { HttpRequestError, type HttpTransport, type HttpTransportConfig, http, TimeoutError } from 'viem';
import { countRpcError, countRpcRequest, type RpcErrorKind } from '../observability/metrics.ts';

/** Which provider a transport reads: the chain id and the provider's position in its URL list (`0`, `1`). */
export interface ProviderPosition {
  chain: string;
  position: number;
}

function kindOf(err: unknown): RpcErrorKind {
  if (err instanceof TimeoutError) return 'timeout';
  if (err instanceof HttpRequestError) return 'http';
  return 'rpc';
}

/**
 * viem's HTTP transport to one chain provider, counting each JSON-RPC request and each failed one
 * (custom_launch_chain_rpc_requests_total, custom_launch_chain_rpc_errors_total, docs/configuration.md Metrics). The
 * provider is labelled by its chain and position only: its URL may carry the provider's API key in its path or query.
 * A request viem retries (`retryCount`) counts once, as does its failure.
 */
export function providerTransport(url: string, at: ProviderPosition, config: HttpTransportConfig = {}): HttpTransport {
  const inner = http(url, config);
  const labels = { chain: at.chain, provider: String(at.position) };
  return ((params) => {
    const transport = inner(params);
    const request = transport.request;
    const counted: typeof request = async (args, options) => {
      countRpcRequest(labels);
      try {
        return await request(args, options);
      } catch (err) {
        countRpcError(labels, kindOf(err));
        throw err;
      }
    };
    return { ...transport, request: counted };
  }) as HttpTransport;
}
