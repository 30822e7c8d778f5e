import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'conformance/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Each worker process runs file after file without reloading the modules they share: every file already starts
    // its own servers, SQLite files and devnets, and shared modules keep only caches of pure results, while loading
    // them again for each of 85 files cost more than a minute of CPU.
    isolate: false,
    // At least three files at a time. Vitest's default, one fewer than the cores, runs every file after the other on
    // a 2-core machine, while most files spend most of their time waiting on the server, CLI and anvil processes
    // they start.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/quiet-logs.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The type tests are checked with what they import (tsconfig.test-d.json), not the whole project again: `make test`
    // type-checks the whole project (`make typecheck`) before this suite, and a second full tsc cost about 35 s of CPU.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.test-d.json' },
    reporters: ['default', ['json', { outputFile: 'build/vitest-report.json' }]],
  },
});
