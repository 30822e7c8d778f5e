import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Copies of an example project folder for a test file's cases, each in its own folder of a temporary root that is
 * removed after the file's tests. The returned function makes one copy; `edit` may change the copy's manifest (as an
 * object, written back as JSON) and write files into the copy.
 */
export function exampleProjectCopies(
  exampleDir: string,
  manifestFile: string,
): (edit?: (manifest: any, dir: string) => void) => string {
  const exampleManifest = JSON.parse(readFileSync(join(exampleDir, manifestFile), 'utf8'));
  let root = '';
  let serial = 0;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'project-copies-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });
  return (edit = () => {}) => {
    const dir = join(root, `project-${++serial}`);
    cpSync(exampleDir, dir, { recursive: true });
    const manifest = structuredClone(exampleManifest);
    edit(manifest, dir);
    writeFileSync(join(dir, manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
    return dir;
  };
}
