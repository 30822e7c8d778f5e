import { type Chain, defineChain } from 'viem';

/** Chain 4663 for viem clients, at the given JSON-RPC URL (the devnet's, or a configured provider's). */
export function chain4663(rpcUrl: string): Chain {
  return defineChain({
    id: 4663,
    name: 'chain 4663',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** The base layer, chain 1, for viem clients at the given JSON-RPC URL (the base devnet's, or a configured provider's). */
export function chain1(rpcUrl: string): Chain {
  return defineChain({
    id: 1,
    name: 'chain 1',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
