import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A fault one provider position shows (test-only): what the JSON-RPC proxy does to the node's answers. */
export type RpcFault =
  /** Every answer as the node gives it. */
  | { kind: 'none' }
  /** Every connection reset: the provider is down. */
  | { kind: 'down' }
  /** The provider is `blocks` behind: its latest, safe and finalized are that much lower, newer blocks unknown. */
  | { kind: 'lag'; blocks: number }
  /** Another block hash at `height` (and every newer block with `andNewer`), in blocks, transactions, receipts and logs. */
  | { kind: 'hash'; height: number; andNewer?: boolean }
  /** Other runtime code at every address (eth_getCode). */
  | { kind: 'code' }
  /** The answer to `method` (at `height` when given: its block parameter) is held until the fault clears. */
  | { kind: 'hang'; method: string; height?: number };

/** A JSON-RPC proxy in front of one node: one provider position, with a fault the test sets and clears. */
export interface RpcProxy {
  url: string;
  /** Sets the fault for every request from now on (held answers of a previous `hang` are released first). */
  fault(fault: RpcFault): void;
  /** How many requests of `method` the proxy answered or held since the last fault change (or resetCounts). */
  count(method: string): number;
  /** Every method's count since the last fault change (or resetCounts), by method name. */
  counts(): Record<string, number>;
  /** Starts every count from zero again, the fault unchanged. */
  resetCounts(): void;
  close(): Promise<void>;
}

interface RpcRequest {
  id: unknown;
  jsonrpc: string;
  method: string;
  params?: unknown[];
}
type Json = any;

const hex = (n: number) => `0x${n.toString(16)}`;
const num = (value: unknown) => (typeof value === 'string' && value.startsWith('0x') ? Number(BigInt(value)) : null);
/** Which parameter of a method names a block (a tag or a number). */
const blockParam: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getCode: 1,
  eth_getBalance: 1,
  eth_getStorageAt: 2,
  eth_getTransactionCount: 1,
  eth_call: 1,
  eth_estimateGas: 1,
};

/** Another 32-byte hash, stable for the same input: its last nibble changed. */
const otherHash = (h: string) => `${h.slice(0, -1)}${h.endsWith('0') ? '1' : '0'}`;

/** Starts a proxy in front of `target` (a node's JSON-RPC URL) with no fault. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let current: RpcFault = { kind: 'none' };
  const counts = new Map<string, number>();
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  const upstream = async (requests: RpcRequest[]): Promise<Json[]> => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(requests),
    });
    return (await res.json()) as Json[];
  };
  const one = async (method: string, params: unknown[]) =>
    (await upstream([{ id: 1, jsonrpc: '2.0', method, params }]))[0]?.result;

  /** The lagging provider's view of one request: block tags lowered, newer blocks and their contents unknown. */
  const lagged = async (req: RpcRequest, blocks: number): Promise<Json> => {
    const head = (num(await one('eth_blockNumber', [])) ?? 0) - blocks;
    const params = [...(req.params ?? [])];
    const at = blockParam[req.method];
    if (req.method === 'eth_blockNumber') return { result: hex(Math.max(0, head)) };
    if (at !== undefined && at < params.length + 1) {
      const tag = params[at] ?? 'latest';
      let n = num(tag);
      if (tag === 'latest' || tag === 'pending') n = head;
      if (tag === 'safe' || tag === 'finalized')
        n = (num((await one('eth_getBlockByNumber', [tag, false]))?.number) ?? 0) - blocks;
      if (n !== null) {
        if (n > head) {
          return req.method === 'eth_getBlockByNumber'
            ? { result: null }
            : { error: { code: -32000, message: 'header not found' } };
        }
        params[at] = hex(Math.max(0, n));
      }
    }
    const [answer] = await upstream([{ ...req, params }]);
    const result = answer?.result;
    const newer = (o: Json) => o && typeof o === 'object' && (num(o.blockNumber ?? o.number) ?? 0) > head;
    if (Array.isArray(result)) return { ...answer, result: result.filter((item) => !newer(item)) };
    if (newer(result)) return { ...answer, result: null };
    return answer;
  };

  /** The node's answer with another hash for the lied-about blocks, wherever such a block is named. */
  const rehashed = (answer: Json, fault: { height: number; andNewer?: boolean }): Json => {
    const lied = (n: number | null) =>
      n !== null && (n === fault.height || (fault.andNewer === true && n > fault.height));
    const fix = (o: Json): Json => {
      if (!o || typeof o !== 'object') return o;
      if (Array.isArray(o)) return o.map(fix);
      const copy = { ...o };
      if (lied(num(copy.number)) && typeof copy.hash === 'string') copy.hash = otherHash(copy.hash);
      if (lied(num(copy.blockNumber)) && typeof copy.blockHash === 'string') copy.blockHash = otherHash(copy.blockHash);
      if (Array.isArray(copy.transactions)) copy.transactions = copy.transactions.map(fix);
      if (Array.isArray(copy.logs)) copy.logs = copy.logs.map(fix);
      return copy;
    };
    return { ...answer, result: fix(answer?.result) };
  };

  const answer = async (req: RpcRequest): Promise<Json | 'hold'> => {
    const fault = current;
    if (fault.kind === 'lag') return { jsonrpc: '2.0', id: req.id, ...(await lagged(req, fault.blocks)) };
    if (fault.kind === 'hang' && req.method === fault.method) {
      const at = blockParam[req.method];
      if (fault.height === undefined || (at !== undefined && num(req.params?.[at]) === fault.height)) return 'hold';
    }
    const [node] = await upstream([req]);
    if (fault.kind === 'hash') return rehashed(node, fault);
    if (fault.kind === 'code' && req.method === 'eth_getCode' && typeof node?.result === 'string') {
      const code = node.result as string;
      return { ...node, result: code === '0x' ? '0x00' : `${code.slice(0, -2)}${code.endsWith('00') ? '01' : '00'}` };
    }
    return node;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (current.kind === 'down') {
        req.socket.resetAndDestroy();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
        const requests = Array.isArray(body) ? body : [body];
        for (const r of requests) counts.set(r.method, (counts.get(r.method) ?? 0) + 1);
        const answers = await Promise.all(requests.map(answer));
        if (answers.includes('hold')) {
          held.add(res);
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
      } catch (err) {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(String(err));
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const release = () => {
    for (const res of held) res.destroy();
    held.clear();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fault: (fault) => {
      release();
      counts.clear();
      current = fault;
      // Connections kept alive must not carry answers of the previous fault.
      if (fault.kind === 'down') for (const s of sockets) s.resetAndDestroy();
    },
    count: (method) => counts.get(method) ?? 0,
    counts: () => Object.fromEntries(counts),
    resetCounts: () => counts.clear(),
    close: async () => {
      release();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
