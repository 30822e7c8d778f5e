/*
 * The process's one structured logger (pino): one JSON line per event on standard output, `level` as its label
 * (`info`, `warn`, `error`), `time` in ISO 8601, the process id. LOG_LEVEL sets the level (docs/configuration.md,
 * Logs). Every string field goes through the key redaction, so a message that quotes a failure never carries a key.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactKeys } from '../core/key-redaction.ts';
import { type LogLevel, levelOf } from './log-level.ts';

/**
 * `value` with every string redacted (src/core/key-redaction.ts), to 4 levels deep. Copied only where a string
 * changed: a line without a key (nearly every request line) is passed on as it came.
 */
function redacted(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactKeys(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [k, v] of Object.entries(value)) {
    const r = redacted(v, depth + 1);
    if (r === v) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...value };
    (copy as Record<string, unknown>)[k] = r;
  }
  return copy ?? value;
}

/**
 * Where the lines go: standard output, written asynchronously (a reader that stops reading never blocks the event
 * loop; pino flushes what is pending when the process exits). A test replaces it with `captureLogs`.
 */
let sink: DestinationStream = pino.destination({ dest: 1, sync: false });
const forwarding: DestinationStream = { write: (line: string) => sink.write(line) };

/** The root logger; `logger.child({ launchId })` gives a worker's logger for one launch. */
export const logger: Logger = pino(
  {
    level: levelOf(process.env.LOG_LEVEL),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redacted(object) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const [first, ...rest] = args as unknown[];
        const msg = typeof first === 'string' ? redacted(first) : first;
        method.apply(this, [msg, ...rest.map((r) => redacted(r))] as Parameters<typeof method>);
      },
    },
  },
  forwarding,
);

/**
 * Sends the log to standard error, written synchronously (the admin CLI: its standard output is the JSON its callers
 * parse, and it exits as soon as its command is done).
 */
export function logToStandardError(): void {
  sink = pino.destination({ dest: 2, sync: true });
}

/**
 * Collects every line the logger writes at `level` or above until `restore()` (tests): the lines as written, one
 * string each, parsed by `entries()`.
 */
export function captureLogs(level: LogLevel = 'info'): {
  lines: string[];
  entries: () => Array<Record<string, unknown>>;
  restore: () => void;
} {
  const previous = { sink, level: logger.level };
  const lines: string[] = [];
  sink = { write: (line: string) => lines.push(line.trimEnd()) };
  logger.level = level;
  return {
    lines,
    entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    restore: () => {
      sink = previous.sink;
      logger.level = previous.level;
    },
  };
}
