import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundle } from './bundle.ts';
import { cliBundle } from './cli.ts';

/**
 * Once per vitest run (and again before each watch-mode rerun): bundles the CLI to `cliBundle`, which the CLI tests
 * start instead of the package bin (test/support/cli.ts), and empties the run's solc output cache beside it
 * (test/support/solc-cache.cjs), so every run compiles each input once for real.
 */
export default async function setup(project: TestProject): Promise<void> {
  const prepare = async () => {
    rmSync(join(dirname(cliBundle), 'solc-cache'), { recursive: true, force: true });
    mkdirSync(dirname(cliBundle), { recursive: true });
    await bundle('src/cli/bin.ts', cliBundle);
  };
  await prepare();
  project.onTestsRerun(prepare);
}
