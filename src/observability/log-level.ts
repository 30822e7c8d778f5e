/** The levels LOG_LEVEL accepts (docs/configuration.md, Logs), most verbose first; `silent` logs nothing. */
export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** The level LOG_LEVEL names (any case, trimmed); `info` when unset or unknown (the config's loader refuses unknown). */
export function levelOf(value: string | undefined): LogLevel {
  const level = (value ?? '').trim().toLowerCase();
  return (logLevels as readonly string[]).includes(level) ? (level as LogLevel) : 'info';
}
