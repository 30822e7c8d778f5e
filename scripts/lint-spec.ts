/*
 * Lints both OpenAPI documents with Redocly recommended-strict (redocly.yaml). Fails on any error or warning.
 */
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['redocly', 'lint', '--format', 'stylish', 'service', 'developer'], {
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
process.exit(result.status ?? 1);
