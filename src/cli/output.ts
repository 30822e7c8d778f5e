/** Where a command writes: results to stdout (one JSON object with --json), progress and messages to stderr. */
export interface Output {
  json: boolean;
  /** Whether stdout is a terminal (only then may a command write terminal escapes such as an inline image). */
  stdoutIsTTY: boolean;
  /** A human line on stdout (skipped with --json). */
  line(text: string): void;
  /** Text for a terminal, written to stdout as it is (skipped with --json). */
  raw(text: string): void;
  /** The machine result (only with --json): one JSON object on stdout. */
  result(value: unknown): void;
  /** A progress or status message on stderr. */
  note(text: string): void;
  /** A progress line that replaces itself on a terminal and is throttled to changes elsewhere. */
  progress(key: string, text: string): void;
  /** Ends a self-replacing progress line. */
  endProgress(): void;
}

/** Elapsed time as m:ss. */
export function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The CLI's Output over the process streams (or the given ones). */
export function createOutput(json: boolean, stdout = process.stdout, stderr = process.stderr): Output {
  const tty = Boolean(stderr.isTTY);
  let lastKey: string | undefined;
  let lastAt = 0;
  let open = false;
  return {
    json,
    stdoutIsTTY: Boolean(stdout.isTTY),
    line: (text) => {
      if (!json) stdout.write(`${text}\n`);
    },
    raw: (text) => {
      if (!json) stdout.write(text);
    },
    result: (value) => {
      if (json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    note: (text) => {
      if (open) {
        stderr.write('\n');
        open = false;
      }
      stderr.write(`${text}\n`);
    },
    progress: (key, text) => {
      if (tty) {
        stderr.write(`\r\x1b[K${text}`);
        open = true;
        return;
      }
      // Without a terminal: a line when the state changes, else one every 10 s so a log shows it is alive.
      const now = Date.now();
      if (key !== lastKey || now - lastAt >= 10_000) {
        stderr.write(`${text}\n`);
        lastKey = key;
        lastAt = now;
      }
    },
    endProgress: () => {
      if (open) stderr.write('\n');
      open = false;
    },
  };
}
