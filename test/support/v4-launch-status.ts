import { expect } from 'vitest';
import { auth, call } from './http.ts';

/** A V4 launch as getCustomLaunchV4 answers it to `key` (asserting the 200). */
export async function readV4Launch(origin: string, key: string, launchId: string) {
  const r = await call(`${origin}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** Polls a V4 launch every 100 ms until it is in one of `statuses`; throws with the status it stayed in. */
export async function untilV4Status(
  origin: string,
  key: string,
  launchId: string,
  statuses: string[],
  timeoutMs = 30_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const launch = await readV4Launch(origin, key, launchId);
    if (statuses.includes(launch.status)) return launch;
    if (Date.now() > deadline) throw new Error(`launch is ${launch.status}, not ${statuses.join('|')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
