import { redactKeys } from '../../auth/keys.ts';
import { logger } from '../../observability/logger.ts';

/**
 * Runs `tick` until stopped, sleeping `pollMs` between ticks (or not, when `again` says the last tick found more
 * work). A failed tick is logged with the loop's name and the loop goes on. Returns the stop function, which
 * resolves once the running tick has finished.
 */
export function pollUntilStopped<T>(
  name: string,
  tick: () => Promise<T>,
  pollMs: number,
  again: (result: T | undefined) => boolean = () => false,
): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      const result = await tick().catch((err: unknown) => {
        logger.error({ detail: redactKeys(String(err)).slice(0, 500) }, `${name} failed`);
        return undefined;
      });
      // More work: the next tick still waits for the requests already arrived (a tick whose awaits all resolve at
      // once would otherwise drain a whole backlog before the server reads another request).
      if (again(result)) await new Promise((resolve) => setImmediate(resolve));
      else await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}
