import type { ModuleFailure } from './errors.ts';
import { clientFailure } from './errors.ts';

/** The variables the key is read from (never a flag, a file or a prompt). */
export const moduleKeyVariables = ['PLATFORM_API_KEY', 'PLATFORM_MODULES_API_KEY'] as const;

/** Where the key came from, or why there is none. The value is never part of a message. */
export type ModuleApiKey =
  | { kind: 'key'; apiKey: string; variable: (typeof moduleKeyVariables)[number] | 'both' }
  | { kind: 'missing' }
  | { kind: 'malformed'; variable: (typeof moduleKeyVariables)[number] }
  | { kind: 'conflict'; failure: ModuleFailure };

/**
 * Reads the module API key from the environment only (Authentication 1 and 2: never a flag, a file, an argument or
 * a prompt): PLATFORM_API_KEY or PLATFORM_MODULES_API_KEY; when both are set they must hold the same value, else
 * MODULE_API_KEY_CONFLICT and no request may be sent. An empty variable counts as unset.
 */
export function moduleApiKey(env: NodeJS.ProcessEnv): ModuleApiKey {
  const general = env.PLATFORM_API_KEY || undefined;
  const modules = env.PLATFORM_MODULES_API_KEY || undefined;
  if (general !== undefined && modules !== undefined && general !== modules) {
    return {
      kind: 'conflict',
      failure: clientFailure(
        'MODULE_API_KEY_CONFLICT',
        'PLATFORM_API_KEY and PLATFORM_MODULES_API_KEY are both set and hold different values; unset one of them. Nothing was sent',
      ),
    };
  }
  const apiKey = general ?? modules;
  if (apiKey === undefined) return { kind: 'missing' };
  const variable =
    general !== undefined && modules !== undefined ? 'both' : general ? 'PLATFORM_API_KEY' : 'PLATFORM_MODULES_API_KEY';
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    return { kind: 'malformed', variable: variable === 'both' ? 'PLATFORM_API_KEY' : variable };
  }
  return { kind: 'key', apiKey, variable };
}
