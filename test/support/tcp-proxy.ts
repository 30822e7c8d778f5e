import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP relay between the server and a JSON-RPC provider (test-only), to take a provider away and give it
 * back while the server runs: `cut` resets every open connection and refuses new ones, as an unreachable provider
 * would; `restore` forwards again, to `target` when given (another node: a provider that disagrees).
 */
export interface TcpProxy {
  url: string;
  cut(): void;
  restore(target?: string): void;
  close(): Promise<void>;
}

function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  let to = hostPort(target);
  let down = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(to.port, to.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the TCP proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => {
      down = true;
      for (const s of open) s.resetAndDestroy();
    },
    restore: (next) => {
      if (next) to = hostPort(next);
      // Connections kept alive to the old target must not carry on to it.
      for (const s of open) s.destroy();
      down = false;
    },
    close: async () => {
      down = true;
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
