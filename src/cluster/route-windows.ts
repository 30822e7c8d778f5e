/*
 * The route budgets' fixed windows of a cluster (WORKERS > 1, src/server/cluster.ts), kept by the primary so every
 * worker counts against the same window: a worker sends each count over the cluster's IPC channel and waits for the
 * verdict (src/http/rate-limit.ts RouteBudgets). The counts a worker asks for in one turn of its event loop travel as
 * one message, and come back as one.
 */
import cluster, { type Worker } from 'node:cluster';
import { ApiError } from '../errors/api-error.ts';

/** What a count waiting on a primary that is gone answers: the retryable 503 (the worker is stopping too). */
const primaryGone = () =>
  new ApiError('UNAVAILABLE', { message: 'The server is restarting; retry after Retry-After.' });

/** One count a worker asks for: [id, key, limit, windowMs]. */
type Ask = [number, string, number, number];
/** The primary's verdict: [id, 0 when counted, else the seconds left in the full window]. */
type Verdict = [number, number];

interface AskMessage {
  routeWindows: Ask[];
}
interface VerdictMessage {
  routeWindows: Verdict[];
}

function isMessage<T>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && Array.isArray((message as AskMessage).routeWindows);
}

/** A worker's side: asks the primary to count, batching the asks of one event-loop turn into one message. */
class PrimaryWindows {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: number) => void; reject: (e: Error) => void }>();
  private queue: Ask[] = [];

  constructor() {
    process.on('message', (message: unknown) => {
      if (!isMessage<VerdictMessage>(message)) return;
      for (const [id, retryAfter] of message.routeWindows) {
        this.pending.get(id)?.resolve(retryAfter);
        this.pending.delete(id);
      }
    });
    process.on('disconnect', () => {
      for (const p of this.pending.values()) p.reject(primaryGone());
      this.pending.clear();
    });
  }

  /** Counts one request of `key`; resolves 0 when counted, else the seconds left in its full window. */
  take(key: string, limit: number, windowMs: number): Promise<number> {
    const id = this.nextId++;
    if (this.queue.length === 0) setImmediate(() => this.flush());
    this.queue.push([id, key, limit, windowMs]);
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private flush(): void {
    const asks = this.queue;
    this.queue = [];
    if (!process.connected || !process.send) {
      for (const [id] of asks) this.pending.get(id)?.reject(primaryGone());
      for (const [id] of asks) this.pending.delete(id);
      return;
    }
    process.send({ routeWindows: asks } satisfies AskMessage);
  }
}

let shared: PrimaryWindows | undefined;

/** In a cluster worker, the channel to the primary's windows (one per process); null in any other process. */
export function primaryWindows(): { take(key: string, limit: number, windowMs: number): Promise<number> } | null {
  if (!cluster.isWorker) return null;
  shared ??= new PrimaryWindows();
  return shared;
}

/**
 * The primary's side for one worker: answers each batch of counts with `count` (0 when counted, else the seconds left
 * in the full window), in the order asked.
 */
export function answerRouteWindows(
  worker: Worker,
  count: (key: string, limit: number, windowMs: number) => number,
): void {
  worker.on('message', (message: unknown) => {
    if (!isMessage<AskMessage>(message)) return;
    const verdicts: Verdict[] = message.routeWindows.map(([id, key, limit, windowMs]) => [
      id,
      count(key, limit, windowMs),
    ]);
    if (worker.isConnected()) worker.send({ routeWindows: verdicts } satisfies VerdictMessage);
  });
}
