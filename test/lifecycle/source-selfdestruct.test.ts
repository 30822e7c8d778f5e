import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Order } from '../../src/core/canonical-json.ts';
import { LifecycleWorker } from '../../src/domain/lifecycle/worker.ts';
import { solidityAstsIsolated } from '../../src/solidity/compile-contracts.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import { freshV4Bytes, startServer, type TestServer, v4FrozenExample } from '../support/server.ts';

/**
 * The source SELFDESTRUCT hard block at the permit stage (project design in
 * spec/openapi/paths/v4-custom-launch-source-file.yaml): the worker analyses the delivered sources with solc.
 */
let nowMs = Date.parse('2026-11-23T00:00:00.000Z');
const now = () => nowMs;
let s: TestServer;
let key: string;
let n = 0;

const lifecycle = testLifecycle;
const worker = () =>
  new LifecycleWorker({
    db: s.db,
    lifecycle,
    admission: { canonicalPoolManager: s.config.canonicalPoolManager },
    now,
    workerId: 'w-source-selfdestruct',
    sourceAsts: solidityAstsIsolated,
  });
const drain = async (w: LifecycleWorker) => {
  while (await w.tick()) {
    /* next */
  }
};

const projectFile = (path: string) => readFileSync(new URL(`../../examples/example-launch/${path}`, import.meta.url));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const destroyer = Buffer.from(
  '// SPDX-License-Identifier: Apache-2.0\npragma solidity ^0.8.26;\n\n/// Not a comment that counts: selfdestruct(payable(msg.sender)).\ncontract Destroyer {\n    function retire() external {\n        selfdestruct(payable(msg.sender));\n    }\n}\n',
);

/** The frozen example (no external reference) with its three project files plus `extra` in the manifest. */
function requestWith(extra: Record<string, Buffer>): { body: string; files: Map<string, Buffer> } {
  const files = new Map<string, Buffer>();
  // A new intent each time (a fresh nonce): the server holds one launch per intent.
  const body = freshV4Bytes(v4FrozenExample, (request) => {
    request.externalContracts = [];
    for (const f of request.sourceBundleManifest.files) files.set(f.path, projectFile(f.path));
    for (const [path, bytes] of Object.entries(extra)) files.set(path, bytes);
    request.sourceBundleManifest.files = [...files.keys()].sort(utf8Order).map((path) => ({
      path,
      sha256: sha256(files.get(path) as Buffer),
      byteLength: (files.get(path) as Buffer).length,
    }));
  });
  return { body, files };
}

async function create(body: string): Promise<string> {
  const r = await call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `source-selfdestruct-${++n}`.padEnd(16, '0') }),
    body,
  });
  expect(r.status, r.text).toBe(202);
  return r.json.launchId as string;
}

async function deliver(launchId: string, files: Map<string, Buffer>, only?: string[]): Promise<void> {
  for (const [path, bytes] of files) {
    if (only && !only.includes(path)) continue;
    const r = await call(`${s.url}/v4/chains/4663/custom-launches/${launchId}/source-files/${sha256(bytes)}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
      body: bytes,
    });
    expect(r.status, r.text).toBe(201);
  }
}

const read = async (launchId: string) =>
  (await call(`${s.url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) })).json;

beforeAll(async () => {
  s = await startServer({ lifecycle: { ...lifecycle } }, now);
  key = s.key();
});
afterAll(() => s.close());

describe('source SELFDESTRUCT at the permit stage', () => {
  it('blocks a launch whose delivered sources call selfdestruct: action_required, no permit', async () => {
    const { body, files } = requestWith({ 'contracts/Destroyer.sol': destroyer });
    const launchId = await create(body);
    await deliver(launchId, files);
    await drain(worker());
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.walletTransaction).toBeNull();
    expect(launch.findings).toContainEqual({
      code: 'SOURCE_SELFDESTRUCT',
      severity: 'blocking',
      targetId: null,
      message: 'selfdestruct(...) is called in the source at contracts/Destroyer.sol:7:9.',
    });
    expect(launch.remediation).toMatchObject({ findingCodes: ['SOURCE_SELFDESTRUCT'], newRequestRequired: true });
  });

  it('leaves the example sources (no selfdestruct call) waiting for the chain gates', async () => {
    const { body, files } = requestWith({});
    const launchId = await create(body);
    await deliver(launchId, files);
    await drain(worker());
    const launch = await read(launchId);
    expect(launch.status).toBe('validating');
    expect(launch.findings.map((f: { code: string }) => f.code)).not.toContain('SOURCE_SELFDESTRUCT');
    expect(launch.lifecycleQueue).toMatchObject({ state: 'idle', lastErrorCode: 'CHAIN_NOT_CONFIGURED' });
  });

  it('does not decide the rule while a manifest file is missing; the completing delivery brings the step back', async () => {
    const { body, files } = requestWith({ 'contracts/Destroyer.sol': destroyer });
    const launchId = await create(body);
    await deliver(
      launchId,
      files,
      [...files.keys()].filter((p) => p !== 'contracts/Destroyer.sol'),
    );
    await drain(worker());
    expect(await read(launchId)).toMatchObject({
      status: 'validating',
      lifecycleQueue: { state: 'idle', lastErrorCode: 'CHAIN_NOT_CONFIGURED' },
    });
    const createdAt = Date.parse((await read(launchId)).createdAt);
    nowMs += 1_000;
    await deliver(launchId, files, ['contracts/Destroyer.sol']);
    // The second it waited idle is the controller's: the validation deadline moves on by it.
    expect((await read(launchId)).lifecycleQueue).toMatchObject({
      state: 'scheduled',
      nextAttemptAt: new Date(nowMs).toISOString(),
      deadlineAt: new Date(createdAt + lifecycle.validationDeadlineMs + 1_000).toISOString(),
    });
    await drain(worker());
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.remediation.findingCodes).toEqual(['SOURCE_SELFDESTRUCT']);
  });

  it('does not reopen a launch past its permit stage when its last file arrives', async () => {
    const { body, files } = requestWith({ 'contracts/Destroyer.sol': destroyer });
    const launchId = await create(body);
    await deliver(launchId, files, ['contracts/Destroyer.sol']);
    await drain(worker());
    // As the chain gates would have done: the permit was issued before the sources were complete.
    s.db.prepare("UPDATE launches SET status = 'authorized' WHERE launch_id = ?").run(launchId);
    await deliver(
      launchId,
      files,
      [...files.keys()].filter((p) => p !== 'contracts/Destroyer.sol'),
    );
    const job = s.db.prepare('SELECT state FROM lifecycle_jobs WHERE launch_id = ?').get(launchId) as { state: string };
    expect(job.state).toBe('idle');
  });
});
