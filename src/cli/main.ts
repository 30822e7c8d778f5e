import { parseArgs } from 'node:util';
import { JournalError } from '../client/core/journal-file.ts';
import { LocalCheckError } from '../client/core/local-check-error.ts';
import { DiscoveryStop } from '../client/launches/discovery.ts';
import type { CliCommand, CommandInput } from './command.ts';
import { apiKeyFromEnvironment, cliEnvironment } from './environment.ts';
import { CliExit, type ExitName, exitCodes } from './exit-codes.ts';
import { createOutput, type Output } from './output.ts';
import { allFlags, clientRelease, commands, globalFlags, helpText } from './table.ts';

export { clientRelease, helpText };

const keyFlags = /^--?(api-?key|key|token|secret|bearer)(=|$)/i;

/** Runs one command line; returns the exit code. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out = createOutput(argv.includes('--json'));
  try {
    if (argv.some((a) => keyFlags.test(a))) {
      throw new CliExit(
        'usage',
        'the API key is read only from PLATFORM_API_KEY (or PLATFORM_MODULES_API_KEY for modules), never from a command-line flag',
      );
    }
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: allFlags(),
    });
    const [name, ...rest] = positionals;
    if (values.version) {
      out.line(clientRelease);
      out.result({ clientRelease });
      return 0;
    }
    if (values.help || name === undefined || name === 'help') {
      process.stdout.write(helpText());
      return name === undefined && !values.help ? exitCodes.usage.code : 0;
    }
    const command = commands.get(name);
    const timeoutMs = timeoutOf(values['timeout-ms'], command);
    refuseSubkeyFlags(values, name);
    if (!command) throw new CliExit('usage', `unknown command "${name}"; see --help`);
    await command.run(commandInput(command, rest, values, env, out, timeoutMs));
    return 0;
  } catch (err) {
    const [exit, message] = classify(err);
    out.endProgress();
    out.note(`custom-launch: ${message}`);
    if (out.json) out.result({ error: { exit: exitCodes[exit].code, kind: exit, message } });
    return exitCodes[exit].code;
  }
}

/** --timeout-ms, or the command's default (the module client's 20 s, else 30 s); a usage error unless 1 to 120000. */
function timeoutOf(value: string | boolean | undefined, command: CliCommand | undefined): number {
  const raw = typeof value === 'string' ? value : String(command?.defaultTimeoutMs ?? 30_000);
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 120_000) {
    throw new CliExit('usage', `--timeout-ms must be an integer from 1 to 120000, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * The flags only some command groups take (the subkey write flags; the pack, journal and funding flags of the lane
 * groups v3 and multi-role) belong to them alone; any other command refuses them by name.
 */
function refuseSubkeyFlags(values: CommandInput['values'], name: string): void {
  const owners: Array<[readonly string[], string]> = [
    [['subkeys'], 'subkeys issue and rotate'],
    [['v3', 'multi-role'], 'the v3 and multi-role commands'],
  ];
  for (const [group, what] of owners) {
    const others = [...commands.values()].filter((c) => !group.includes(c.name));
    const shared = new Set(others.flatMap((c) => Object.keys(c.flags)));
    const own = group.flatMap((owner) => Object.keys(commands.get(owner)?.flags ?? {})).filter((f) => !shared.has(f));
    const stray = [...new Set(own)].filter((f) => values[f] !== undefined);
    if (!group.includes(name) && stray.length > 0) {
      throw new CliExit('usage', `${stray.map((f) => `--${f}`).join(', ')} belong to ${what}`);
    }
  }
}

function commandInput(
  command: CliCommand,
  args: string[],
  values: CommandInput['values'],
  env: NodeJS.ProcessEnv,
  out: Output,
  timeoutMs: number,
): CommandInput {
  const own = new Set([...Object.keys(globalFlags), ...Object.keys(command.flags)]);
  return {
    args,
    values,
    foreign: Object.keys(values).filter((flag) => !own.has(flag)),
    env,
    cliEnv: () => cliEnvironment(env),
    out,
    timeoutMs,
    remote: () => ({ env: cliEnvironment(env), apiKey: () => apiKeyFromEnvironment(env), timeoutMs, out }),
    one: (what) => {
      if (args.length !== 1 || args[0] === undefined) {
        throw new CliExit('usage', `${command.name} takes one ${what}; see --help`);
      }
      return args[0];
    },
  };
}

function classify(err: unknown): [ExitName, string] {
  if (err instanceof CliExit) return [err.exit, err.message];
  if (err instanceof LocalCheckError) return ['localCheck', `${err.code}: ${err.message}`];
  if (err instanceof DiscoveryStop) return ['discoveryStop', err.message];
  if (err instanceof JournalError) return ['usage', err.message];
  // parseArgs' own errors (unknown option, missing value) and misuse the client library refuses.
  const code = (err as { code?: string }).code;
  if (code?.startsWith('ERR_PARSE_ARGS') || err instanceof TypeError) return ['usage', (err as Error).message];
  return ['internal', (err as Error)?.stack ?? String(err)];
}
