import { clientReleases } from '../core/client-releases.ts';
import type { CliCommand, CommandGroup, FlagSpec } from './command.ts';
import { coverage, handoff, preflight, reissue, sources, status, submit, wait } from './commands/launch.ts';
import { modulesGroup } from './commands/modules.ts';
import { multiRoleGroup } from './commands/multi-role.ts';
import { pack } from './commands/pack.ts';
import { subkeysGroup } from './commands/subkeys.ts';
import { v3Group } from './commands/v3.ts';
import { defaultOrigin } from './environment.ts';
import { exitCodes } from './exit-codes.ts';

/** The client release this CLI implements (4.1.1 keeps the 4.1.0 contract). */
export const clientRelease = clientReleases['4.1.0'];

/** The command table, in `--help` order. */
export const commandGroups: readonly CommandGroup[] = [
  { heading: 'Usage:', commands: [pack, preflight, submit, status, wait, handoff, reissue, sources, coverage] },
  v3Group,
  multiRoleGroup,
  modulesGroup,
  subkeysGroup,
];

/** Every command of the table by name. */
export const commands: ReadonlyMap<string, CliCommand> = new Map(
  commandGroups.flatMap((group) => group.commands.map((command) => [command.name, command] as const)),
);

/** The flags every command takes. */
export const globalFlags: Record<string, FlagSpec> = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  'timeout-ms': { type: 'string' },
};

/** The global flags and every command's own: the command line parses against all of them. */
export function allFlags(): Record<string, FlagSpec> {
  const all: Record<string, FlagSpec> = { ...globalFlags };
  for (const command of commands.values()) Object.assign(all, command.flags);
  return all;
}

const footer = `Support: every refusal ends with "support: requestId <id>, HTTP <status>, <UTC time>, <code>", all a support
request needs (never quote a key). A requestId (req_ and 32 hex digits) is no launchId: status, wait, handoff,
reissue and sources refuse one before sending anything.

Options: --json (one JSON object on stdout; messages stay on stderr), --timeout-ms <1..120000> per request
(default 30000; modules 20000), --help, --version.

Environment:
  PLATFORM_API_KEY        the API key; read only from here, never from a flag, a file or a prompt; never printed
  PLATFORM_MODULES_API_KEY  the key of the modules commands, instead of PLATFORM_API_KEY; when both are set
                          they must be equal (else MODULE_API_KEY_CONFLICT and nothing is sent)
  CUSTOM_LAUNCH_ORIGIN    the service origin, default ${defaultOrigin}; https, or http on localhost,
                          127.0.0.1 or [::1]; authenticated traffic goes only here and redirects are refused
  CUSTOM_LAUNCH_SITE_URL  the site serving the discovery manifest, default the service origin; read before
                          every preflight and submit, which stop unless it allows V4 writes on chain 4663
`;

/** The whole `--help` text, generated from the command table, exit codes included (docs/cli.md repeats them). */
export function helpText(): string {
  const groups = commandGroups.map(
    (group) => `${group.heading}\n${group.commands.map((c) => c.usage).join('')}${group.notes ?? ''}`,
  );
  const codes = Object.values(exitCodes)
    .map((e) => `  ${e.code}  ${e.meaning}`)
    .join('\n');
  return `custom-launch ${clientRelease}: the V4 launch client for chain 4663, the MultiRole V2 shared-lane
client for chain 4663 and the base-layer V3 client for chain 1. It never signs or broadcasts.

${groups.join('\n')}
${footer}
Exit codes:
${codes}
`;
}
