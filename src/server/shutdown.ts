/*
 * Draining a listener on SIGTERM (docs/operator.md, Stopping): it stops accepting connections, every request it has
 * already read gets its complete answer (with `Connection: close`, so a keep-alive client reconnects elsewhere rather
 * than sending the next request to a server on its way out), idle keep-alive sockets are closed at once, and whatever
 * is still open when the grace has passed is closed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How a drain ended: every connection closed by itself (`drained`), or `forced` after the grace, with how many. */
export type DrainResult = { kind: 'drained' } | { kind: 'forced'; connections: number };

/**
 * Drains `server` within `graceMs`: resolves once every connection has closed, or after the grace with the connections
 * it had to close. Node's `server.close()` stops listening and closes the idle keep-alive sockets; a request in flight
 * keeps its socket until its answer is sent.
 */
export function drainServer(server: Server, graceMs: number): Promise<DrainResult> {
  const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  // Before the app's own listener, so even an answer sent synchronously carries it.
  server.prependListener('request', closeAfterAnswer);
  return new Promise<DrainResult>((resolve) => {
    let settled = false;
    // An answer whose headers went out before the drain began leaves its keep-alive socket idle when it ends: such
    // sockets are closed as they turn idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      clearInterval(sweep);
      server.getConnections((_err, count) => {
        server.closeAllConnections();
        resolve({ kind: 'forced', connections: count ?? 0 });
      });
    }, graceMs);
    timer.unref();
    server.close(() => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(sweep);
      resolve({ kind: 'drained' });
    });
    server.closeIdleConnections();
  });
}

/** Resolves with `value` once `work` settles, or with `timedOut` after `ms`, whichever comes first. */
export function within<T>(work: Promise<T>, ms: number, timedOut: T): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = setTimeout(() => resolve(timedOut), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(timedOut);
      },
    );
  });
}
