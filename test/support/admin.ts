import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What one operator command printed and how it exited. */
export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The operator command (src/admin/cli.ts) bundled with its dependencies into one plain ES module by the vitest global
 * setup (test/support/global-setup.ts) at the start of every run: the code `npm run admin` runs, started without
 * loading TypeScript through tsx. `runAdmin(…, 'npm')` still runs the README's command itself.
 */
export const adminBundle = `${projectRoot}build/test-run/admin.mjs`;

/**
 * Runs the operator command (src/admin/cli.ts) as its own process with `env` added (DATABASE_PATH, say): its bundle
 * (`adminBundle`), or `via: 'npm'` exactly as the README has an operator run it (`npm run --silent admin -- …`).
 */
export function runAdmin(args: string[], env: Record<string, string>, via: 'node' | 'npm' = 'node'): Promise<AdminRun> {
  const [command, prefix] =
    via === 'npm' ? ['npm', ['run', '--silent', 'admin', '--']] : [process.execPath, [adminBundle]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
