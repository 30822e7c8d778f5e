import { connect } from 'node:net';
import type { Reply } from './http.ts';

/** A reply read off a raw socket, and how long the server took to close the connection. */
export interface RawReply extends Reply {
  /** Milliseconds from the connection to its close. */
  elapsedMs: number;
}

/**
 * Sends `parts` on a raw TCP socket to the origin of `url` (waiting `pauseMs` between two parts) and reads everything
 * until the server closes: for what fetch cannot send (oversized or malformed heads, a request that stalls).
 */
export function rawHttp(url: string, parts: Array<string | Buffer>, pauseMs = 0): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    // A server that closes while the client still sends may reset the connection; what it answered first counts.
    socket.on('error', (err) => (chunks.length > 0 ? undefined : reject(err)));
    socket.on('close', () => resolve(parseRaw(Buffer.concat(chunks).toString('utf8'), Date.now() - started)));
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
        if (!socket.destroyed) socket.write(part);
      }
    });
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

function parseRaw(text: string, elapsedMs: number): RawReply {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Headers();
  for (const line of lines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
  let json: unknown;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text: body, json, elapsedMs };
}
