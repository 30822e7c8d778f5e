import type { Remote } from './commands/remote.ts';
import type { CliEnvironment } from './environment.ts';
import { CliExit } from './exit-codes.ts';
import type { Output } from './output.ts';

/** A flag a command reads: a string value, or a switch. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
}

/** What a command's run sees: its positionals, every parsed flag, and the service it talks to. */
export interface CommandInput {
  /** The positionals after the command name. */
  args: string[];
  /** Every flag given, by name (all commands' flags parse, so a stray one is seen here). */
  values: Record<string, string | boolean | undefined>;
  /** Flags given that are neither global nor the command's own. */
  foreign: string[];
  env: NodeJS.ProcessEnv;
  cliEnv: () => CliEnvironment;
  out: Output;
  timeoutMs: number;
  /** The launch client's settings: environment, key reader, timeout and output. */
  remote: () => Remote;
  /** The one positional the command takes, else a usage error naming `what`. */
  one: (what: string) => string;
}

/** One entry of the command table: `--help` prints `usage`; `run` does the work. */
export interface CliCommand {
  name: string;
  /** The command's own flags (the global ones, `--json --help --version --timeout-ms`, are not listed). */
  flags: Record<string, FlagSpec>;
  /** Its lines in `--help`, each ending with a newline. */
  usage: string;
  /** Per-request timeout when --timeout-ms is not given; 30000 unless named. */
  defaultTimeoutMs?: number;
  run: (input: CommandInput) => Promise<void> | void;
}

/** A group of commands in `--help`: a heading line, the commands' usage, then notes. */
export interface CommandGroup {
  heading: string;
  commands: CliCommand[];
  notes?: string;
}

/** A duration flag in seconds as milliseconds: `fallback` seconds when absent, a usage error unless positive. */
export function positiveSeconds(value: string | boolean | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  if (typeof value !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(value) || Number(value) <= 0) {
    throw new CliExit('usage', `--${name} must be a positive number of seconds, got "${String(value)}"`);
  }
  return Math.round(Number(value) * 1000);
}

/** A string flag's value (a string flag never parses as a boolean). */
export function stringFlag(values: CommandInput['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
