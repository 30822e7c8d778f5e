import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ChainDeploymentV1 } from '../../../generated/types/service.ts';
import { LocalCheckError } from '../../client/core/local-check-error.ts';
import { packLaunchProject } from '../../client/launches/pack/pack.ts';
import { type CliCommand, stringFlag } from '../command.ts';
import { CliExit } from '../exit-codes.ts';
import type { Output } from '../output.ts';

/** Where `make devnet` and `make start` write the devnet's chain-deployment document. */
export const defaultChainDeploymentPath = 'var/devnet/chain-deployment.json';

/** `custom-launch pack <project> --out <file> [--chain-deployment <file>]`: builds a create request, offline. */
export function packCommand(args: { project: string; out: string; chainDeployment: string | undefined }, out: Output) {
  const deploymentPath = args.chainDeployment ?? defaultChainDeploymentPath;
  let chainDeployment: ChainDeploymentV1;
  try {
    chainDeployment = JSON.parse(readFileSync(deploymentPath, 'utf8')) as ChainDeploymentV1;
  } catch {
    throw new LocalCheckError(
      'CHAIN_DEPLOYMENT_UNREADABLE',
      `cannot read the chain deployment ${deploymentPath}: run \`make devnet\` or \`make start\` for the devnet's, or pass --chain-deployment <file>`,
    );
  }
  const packed = packLaunchProject(args.project, { chainDeployment });
  try {
    mkdirSync(dirname(resolve(args.out)), { recursive: true });
    writeFileSync(args.out, packed.bytes);
  } catch (err) {
    throw new CliExit('usage', `cannot write ${args.out}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const { request } = packed;
  const summary = {
    out: args.out,
    bytes: packed.bytes.length,
    profile: request.profile,
    launchWallet: request.launchWallet,
    launchIntentHash: request.launchIntentHash,
    nonce: request.nonce,
    hookPermissionMask: packed.hook.mask,
    hookCreate2Salt: packed.hook.create2Salt,
    router: request.chainDeployment.contracts.platformLaunchStampRouter.address,
  };
  out.result(summary);
  out.line(`packed ${args.project} into ${args.out} (${packed.bytes.length} bytes, profile ${request.profile})`);
  out.line(`  launch wallet       ${request.launchWallet}`);
  out.line(`  launchIntentHash    ${request.launchIntentHash}`);
  out.line(
    `  hook mask           0x${packed.hook.mask.toString(16).padStart(4, '0')} (salt ${packed.hook.create2Salt})`,
  );
  out.line(`  router              ${summary.router}`);
  out.line('next: custom-launch preflight, then custom-launch submit with a journal');
}

/** `custom-launch pack`: the command-table entry. */
export const pack: CliCommand = {
  name: 'pack',
  flags: { out: { type: 'string' }, 'chain-deployment': { type: 'string' } },
  usage: `  custom-launch pack <project-folder> --out <request.json> [--chain-deployment <file>]
      Build a fresh create request from a project folder (launch.json, Solidity sources, image), offline:
      compiles, computes every hash, mines the hook salt, draws a new nonce. The image must be a PNG or a
      single-frame GIF. Chain deployment default: var/devnet/chain-deployment.json (written by make start).
`,
  run: ({ values, one, out }) => {
    const outPath = stringFlag(values, 'out');
    if (!outPath) throw new CliExit('usage', 'pack needs --out <request.json>');
    packCommand(
      { project: one('project folder'), out: outPath, chainDeployment: stringFlag(values, 'chain-deployment') },
      out,
    );
  },
};
