import { ApiError } from '../errors/api-error.ts';

/**
 * Per-route request budgets: a fixed one-minute window per (operation, caller). The caller is the credential for
 * authenticated routes and the client address for public ones. Project design: the reference names per-route
 * budgets without numbers (launch-transport.md Limits); the number is configuration.
 */
export class RouteBudgets {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request; throws 429 RATE_LIMITED with the seconds left in the window when over budget. */
  take(operationId: string, caller: string): void {
    const now = this.now();
    const key = `${operationId}\u0000${caller}`;
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      if (this.windows.size > 100_000) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.perMinute) {
      throw new ApiError('RATE_LIMITED', {
        retryAfterSeconds: Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)),
      });
    }
    w.count++;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= 60_000) this.windows.delete(k);
  }
}
