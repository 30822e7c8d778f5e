import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy saw, as it arrived. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** What the proxy does with the next request a rule matches. */
export type Action =
  /** Answer without forwarding. */
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward to the server, let it answer in full, then never reply (the client's connection stays open). */
  | { kind: 'forward-and-hold'; onServerAnswer: (status: number, body: string) => void }
  /** Forward, then replace the JSON body the server answered. */
  | { kind: 'rewrite'; edit: (json: any) => any };

/**
 * A small loopback proxy between the CLI and the real server (test-only): it records every request byte for byte
 * and, for requests a queued rule matches, injects an answer or holds the server's answer back. Everything else is
 * forwarded unchanged.
 */
export interface LoopbackProxy {
  url: string;
  seen: Seen[];
  /** Queues an action for the next request whose method and path match. */
  plan(method: string, path: string | RegExp, action: Action): void;
  close(): Promise<void>;
}

const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startProxy(target: () => string): Promise<LoopbackProxy> {
  const seen: Seen[] = [];
  const rules: Array<{ method: string; path: string | RegExp; action: Action }> = [];
  const held: Array<() => void> = [];

  const forward = async (entry: Seen) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(entry.headers)) if (!hopByHop.has(k) && typeof v === 'string') headers[k] = v;
    const res = await fetch(new URL(entry.path, target()), {
      method: entry.method,
      headers,
      ...(entry.body.length > 0 ? { body: entry.body } : {}),
      redirect: 'manual',
    });
    const answerHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!hopByHop.has(k) && k !== 'content-encoding') answerHeaders[k] = v;
    });
    return { status: res.status, headers: answerHeaders, body: await res.text() };
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const entry: Seen = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      seen.push(entry);
      const index = rules.findIndex(
        (r) =>
          r.method === entry.method && (typeof r.path === 'string' ? r.path === entry.path : r.path.test(entry.path)),
      );
      const action = index >= 0 ? rules.splice(index, 1)[0]?.action : undefined;
      try {
        if (action?.kind === 'answer') {
          res.writeHead(action.status, { 'Content-Type': 'application/json', ...action.headers });
          res.end(action.body ?? '');
          return;
        }
        const answer = await forward(entry);
        if (action?.kind === 'forward-and-hold') {
          action.onServerAnswer(answer.status, answer.body);
          held.push(() => res.destroy());
          return;
        }
        let body = answer.body;
        if (action?.kind === 'rewrite') body = JSON.stringify(action.edit(JSON.parse(body)));
        res.writeHead(answer.status, answer.headers);
        res.end(body);
      } catch (err) {
        res.writeHead(599);
        res.end(String(err));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    plan: (method, path, action) => rules.push({ method, path, action }),
    close: async () => {
      for (const release of held) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
