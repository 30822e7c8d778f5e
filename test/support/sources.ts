import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { manifestFiles } from '../../src/client/launches/sources.ts';
import { call } from './http.ts';

/** The example project every spec example request was packed from. */
export const exampleProject = fileURLToPath(new URL('../../examples/example-launch', import.meta.url));

/**
 * Delivers the files of a request's sourceBundleManifest with putCustomLaunchSourceFileV4, read from the project
 * folder the way the CLI's `custom-launch sources` reads them (spec/openapi/paths/v4-custom-launch-source-file.yaml):
 * the permit waits for them. `only` keeps the files whose paths it accepts; each delivery must store the file (201),
 * or find it held already (200) when `again` is set. Answers the last receipt.
 */
export async function deliverExampleSources(
  origin: string,
  key: string,
  launchId: string,
  request: CustomLaunchCreateRequestV4 | string,
  options: { projectDir?: string; only?: (path: string) => boolean; again?: boolean } = {},
): Promise<{ filesReceived: number; filesExpected: number } | null> {
  const parsed = (typeof request === 'string' ? JSON.parse(request) : request) as CustomLaunchCreateRequestV4;
  let receipt: { filesReceived: number; filesExpected: number } | null = null;
  for (const file of manifestFiles(options.projectDir ?? exampleProject, parsed)) {
    if (options.only && !file.paths.some(options.only)) continue;
    const r = await call(`${origin}/v4/chains/4663/custom-launches/${launchId}/source-files/${file.sha256}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
      body: file.bytes,
    });
    expect(r.status, r.text).toBe(options.again ? 200 : 201);
    receipt = r.json;
  }
  return receipt;
}
