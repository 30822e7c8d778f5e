import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { helpText } from '../../src/cli/main.ts';
import { runCli } from '../support/cli.ts';

const cliDoc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

describe('the CLI documents its exit codes', () => {
  const table = Object.values(exitCodes);

  it('has one code per meaning, 0 to 7', () => {
    expect(table.map((e) => e.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('--help lists every exit code with its meaning', () => {
    for (const { code, meaning } of table) expect(helpText()).toContain(`  ${code}  ${meaning}`);
  });

  it('--help lists the multi-role group with each of its commands', () => {
    for (const sub of ['pack', 'preflight', 'submit', 'status', 'wait', 'handoff']) {
      expect(helpText()).toContain(`custom-launch multi-role ${sub} `);
    }
  });

  it('docs/cli.md lists the same table, and nothing else under it', () => {
    const rows = [...cliDoc.matchAll(/^\| ([0-9]) \| (.+) \|$/gm)].map((m) => ({ code: Number(m[1]), meaning: m[2] }));
    expect(rows).toEqual(table.map(({ code, meaning }) => ({ code, meaning })));
  });

  it.each([
    ['--help', ['--help'], 0],
    ['no command', [], exitCodes.usage.code],
    ['an unknown command', ['launch'], exitCodes.usage.code],
    ['an unknown option', ['status', '--verbose'], exitCodes.usage.code],
    ['a timeout past 120000 ms', ['coverage', '--timeout-ms', '120001'], exitCodes.usage.code],
    ['a timeout of 0 ms', ['coverage', '--timeout-ms', '0'], exitCodes.usage.code],
    [
      '--until something else',
      ['wait', '00000000-0000-4000-8000-000000000000', '--until', 'submitted'],
      exitCodes.usage.code,
    ],
    ['pack without --out', ['pack', 'examples/example-launch'], exitCodes.usage.code],
    ['submit without --journal', ['submit', 'request.json'], exitCodes.usage.code],
    ['multi-role with no subcommand', ['multi-role'], exitCodes.usage.code],
    ['multi-role submit without --journal', ['multi-role', 'submit', 'request.json'], exitCodes.usage.code],
    [
      'multi-role wait --until a status off the way to finality',
      ['multi-role', 'wait', '00000000-0000-4000-8000-000000000000', '--until', 'needs_evidence'],
      exitCodes.usage.code,
    ],
    [
      'a flag of another multi-role command',
      ['multi-role', 'status', '00000000-0000-4000-8000-000000000000', '--journal', 'j.json'],
      exitCodes.usage.code,
    ],
    [
      'a lane pack flag on a V4 command',
      ['status', '00000000-0000-4000-8000-000000000000', '--launch-wallet', '0x00'],
      exitCodes.usage.code,
    ],
  ])('exits as documented for %s', async (_name, args, code) => {
    const run = await runCli(args, {});
    expect(run.code, run.stderr).toBe(code);
    if (args[0] === '--help' || args.length === 0) expect(run.stdout).toContain('Exit codes:');
  });

  it('stops quietly when its reader closes the pipe early (`custom-launch pack … | head -1`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'custom-launch-pipe-'));
    try {
      const deployment = join(dir, 'chain-deployment.json');
      const example = JSON.parse(
        readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
      );
      writeFileSync(deployment, JSON.stringify(example.chainDeployment));
      // pack writes its summary line by line: the reader leaves after the first chunk, the later lines meet a closed
      // pipe.
      const child = spawn(
        process.execPath,
        [
          'bin/custom-launch.mjs',
          'pack',
          'examples/example-launch',
          '--out',
          join(dir, 'r.json'),
          '--chain-deployment',
          deployment,
        ],
        { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(stderr).not.toContain('EPIPE');
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
