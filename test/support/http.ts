import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Small HTTP helpers over real fetch. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Sends one request and reads the whole reply. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const res = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Headers for an authenticated JSON call. */
export function auth(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...extra };
}

/**
 * A loopback server of a test's own (`handler` answers; the default never does, a server that accepts and stays
 * silent), for what a proxy cannot send: gzip bytes, a cut connection, no answer at all.
 */
export async function listenLoopback(
  handler: Parameters<typeof createServer>[1] = () => {},
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Closes a server of listenLoopback, open connections included. */
export async function closeLoopback(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
