import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TestProject } from 'vitest/node';
import { adminBundle } from './admin.ts';
import { bundle } from './bundle.ts';
import { cliBundle, solcCache } from './cli.ts';
import { serverBundle } from './process.ts';

/**
 * Once per vitest run (and again before each watch-mode rerun): bundles the CLI, the operator command and the server,
 * which the tests start instead of loading src/ through tsx in every process (test/support/cli.ts,
 * test/support/admin.ts, test/support/process.ts), and
 * empties the run's solc output cache. Every process of the run (the test workers, and the processes they start,
 * inherit NODE_OPTIONS) preloads `solcCache`, so each distinct compilation is done once per run
 * (test/support/solc-cache.cjs).
 */
export default async function setup(project: TestProject): Promise<void> {
  const prepare = async () => {
    rmSync(`${dirname(cliBundle)}/solc-cache`, { recursive: true, force: true });
    mkdirSync(dirname(cliBundle), { recursive: true });
    await Promise.all([
      bundle('src/cli/bin.ts', cliBundle, 'inline'),
      bundle('src/admin/cli.ts', adminBundle, 'inline'),
      bundle('src/main.ts', serverBundle, 'inline'),
    ]);
  };
  await prepare();
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require "${solcCache}"`.trim();
  project.onTestsRerun(prepare);
}
