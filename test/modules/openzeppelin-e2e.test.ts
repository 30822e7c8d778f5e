import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateAnvilEvm } from '../../src/chain/local-evm.ts';
import { ModuleReviewWorker } from '../../src/domain/modules/review-worker.ts';
import { compileSolidity, compileSolidityIsolated } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { auth, call } from '../support/http.ts';
import { moduleSubmission, setFiles } from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * End to end: a real package that uses @openzeppelin/contracts (5.7.0 from npm) through the engine
 * alias `dependencies/scoped/openzeppelin/contracts/`, submitted over HTTP, built by the review worker with the
 * pinned solc, accepted by a reviewer through the operator command (a child process on the same SQLite file), and
 * exported. The build's runtime code is compared with an independent compile straight from node_modules.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const reviewer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const token = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice A module token the owner mints.
contract PlatformToken is ERC20, Ownable {
    constructor() ERC20("Platform Token", "PLT") Ownable(msg.sender) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
`;
const fromNodeModules = (path: string) => {
  const file = `${root}node_modules/${path}`;
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};

function runAdmin(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'src/admin/cli.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a package using @openzeppelin/contracts through the engine alias, from submit to export', () => {
  let s: TestServer;
  const reviewEvm = privateAnvilEvm();
  beforeAll(async () => {
    s = await startServer({ modulesReviewerWallets: [reviewer] });
  });
  afterAll(async () => {
    await s.close();
    await reviewEvm.stop();
  });

  it('submits, builds, is accepted by the operator command and exports the accepted build', async () => {
    // The OpenZeppelin files the token needs: every source unit an independent compile read from node_modules.
    const independent = compileSolidity({ 'src/PlatformToken.sol': token }, fromNodeModules);
    const dependencies = Object.keys(independent.sources).filter((p) => p.startsWith('@openzeppelin/contracts/'));
    expect(dependencies).toContain('@openzeppelin/contracts/token/ERC20/ERC20.sol');
    expect(dependencies.length).toBeGreaterThanOrEqual(5);

    const r = moduleSubmission();
    setFiles(r, [
      { path: 'src/PlatformToken.sol', content: token },
      ...dependencies.map((p) => ({
        path: p.replace('@openzeppelin/contracts/', 'dependencies/scoped/openzeppelin/contracts/'),
        content: independent.sources[p] as string,
      })),
      {
        path: 'README.md',
        content: '# platform-token\n\nAn owner-minted ERC-20 built on OpenZeppelin Contracts 5.7.0.\n',
      },
    ]);
    Object.assign(r.descriptor, {
      name: 'platform-token',
      version: '1.0.0',
      components: [
        {
          id: 'token',
          runtime: 'platform.module-engine-solidity@1',
          sourcePath: 'src/PlatformToken.sol',
          entrypoint: 'PlatformToken',
        },
      ],
      configuration: { codec: 'platform.abi-tuple@1', fields: [] },
      ports: { inputs: {}, outputs: {} },
      constraints: [],
      management: {
        summary: 'The owner mints.',
        reads: [{ component: 'token', entrypoint: 'totalSupply' }],
        actions: [
          {
            component: 'token',
            entrypoint: 'mint',
            role: 'owner',
            inputSchema: {
              parameters: [
                { name: 'to', type: 'address' },
                { name: 'amount', type: 'uint256' },
              ],
            },
          },
        ],
      },
      requiresHost: [],
    });
    delete r.descriptor.extensions;

    const key = s.key({ scopes: ['modules:submit', 'modules:read'] });
    const submitted = await call(`${s.url}/v1/modules/submissions`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'openzeppelin-e2e-0001' }),
      body: JSON.stringify(r),
    });
    expect(submitted.status, submitted.text).toBe(201);
    const id = submitted.json.submissionId as string;

    const worker = new ModuleReviewWorker({
      db: s.db,
      now: Date.now,
      workerId: 'openzeppelin-e2e',
      leaseMs: 60_000,
      compile: compileSolidityIsolated,
      evm: reviewEvm.evm,
    });
    while (await worker.tick());
    const built = await call(`${s.url}/v1/modules/submissions/${id}/review`, { headers: auth(key) });
    expect(built.json.review, JSON.stringify(built.json.review.lastError)).toMatchObject({
      state: 'built',
      nextAction: 'await_reviewer_decision',
      attempt: 1,
    });
    // The reviewed build is the code an independent compile of the same sources gives.
    const stored = JSON.parse(
      (s.db.prepare('SELECT build_json FROM module_reviews WHERE submission_id = ?').get(id) as { build_json: string })
        .build_json,
    );
    const expected = independent.contracts['src/PlatformToken.sol']?.PlatformToken?.deployedBytecode as string;
    expect(stored.artifact.components).toEqual([
      expect.objectContaining({
        id: 'token',
        sourceName: 'src/PlatformToken.sol',
        runtimeCodeHash: `0x${createHash('sha256')
          .update(Buffer.from(expected.slice(2), 'hex'))
          .digest('hex')}`,
      }),
    ]);

    // The reviewer decides through the operator command, against the revision read.
    const env = { DATABASE_PATH: s.config.databasePath, MODULES_REVIEWER_WALLETS: reviewer };
    const decided = await runAdmin(
      [
        'modules',
        'decide',
        id,
        '--outcome',
        'accept',
        '--reason',
        'OpenZeppelin ERC-20 and Ownable, unmodified; mint is owner-only.',
        '--reviewer',
        reviewer,
        '--expected-revision',
        String(built.json.review.revision),
      ],
      env,
    );
    expect(decided.code, decided.stderr).toBe(0);
    const decision = JSON.parse(decided.stdout);
    expect(decision).toMatchObject({ reviewRevision: built.json.review.revision + 1, command: { outcome: 'accept' } });

    const exported = await call(`${s.url}/v1/modules/submissions/${id}/review-export`, { headers: auth(key) });
    expect(exported.status, exported.text).toBe(200);
    expect(schemaProblems('module-review-export.v1.schema.json', exported.json)).toEqual([]);
    expect(exported.json).toMatchObject({
      submissionId: id,
      reviewRevision: decision.reviewRevision,
      buildAttempt: 1,
      reviewedBuild: { artifact: { artifactDigest: stored.artifact.digest } },
      review: decision,
      registryApproved: false,
      available: false,
    });
    // A stale revision is refused by the command, and nothing changes.
    const stale = await runAdmin(
      [
        'modules',
        'decide',
        id,
        '--outcome',
        'reject',
        '--reason',
        'late',
        '--reviewer',
        reviewer,
        '--expected-revision',
        '0',
      ],
      env,
    );
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain('accepted');
  }, 120_000);
});
