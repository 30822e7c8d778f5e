import { checkOrigin } from '../client/core/origin.ts';
import { CliExit } from './exit-codes.ts';

/** The CLI's configuration: only from the environment, so nothing on a command line can redirect a key. */
export interface CliEnvironment {
  /** The service origin {base_url}: CUSTOM_LAUNCH_ORIGIN, default http://127.0.0.1:8787 (`make start`). */
  origin: string;
  /** The site origin {site_url} serving the discovery manifest: CUSTOM_LAUNCH_SITE_URL, default the origin. */
  siteUrl: string;
}

export const defaultOrigin = 'http://127.0.0.1:8787';

/** Reads and checks the origins (the origin rule of checkOrigin). */
export function cliEnvironment(env: NodeJS.ProcessEnv): CliEnvironment {
  try {
    const origin = checkOrigin(env.CUSTOM_LAUNCH_ORIGIN || defaultOrigin);
    const siteUrl = checkOrigin(env.CUSTOM_LAUNCH_SITE_URL || origin);
    return { origin, siteUrl };
  } catch (err) {
    throw new CliExit('usage', `CUSTOM_LAUNCH_ORIGIN / CUSTOM_LAUNCH_SITE_URL: ${(err as Error).message}`);
  }
}

/**
 * The API key, only from PLATFORM_API_KEY: never a flag, a body or a prompt.
 * The value is never printed; a message names only the variable.
 */
export function apiKeyFromEnvironment(env: NodeJS.ProcessEnv): string {
  const key = env.PLATFORM_API_KEY;
  if (!key) throw new CliExit('usage', 'set PLATFORM_API_KEY to the API key; it is read only from the environment');
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new CliExit('usage', 'PLATFORM_API_KEY must be a single token of printable characters');
  }
  return key;
}
