import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { reviewerPolicy } from '../../src/domain/modules/review.ts';
import { workerSourceCommit } from '../../src/domain/modules/review-capabilities.ts';
import { openDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { moduleAuthor, moduleSubmission } from '../support/modules.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';

/**
 * The review pipeline in the real server process: `npm start` runs the review worker, so review capabilities
 * report ready (database, reviewer policy and worker authority together) and a submission is planned and built
 * without anyone ticking by hand.
 */
const reviewer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let dir: string;
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-review-process-'));
  const databasePath = join(dir, 'api.sqlite');
  const db = openDatabase(databasePath);
  key = mintWalletKey(db, {
    wallet: moduleAuthor,
    scopes: ['modules:submit', 'modules:read'],
    chains: ['4663'],
  }).apiKey;
  db.close();
  server = await startServerProcess({
    DATABASE_PATH: databasePath,
    MODULES_REVIEWER_WALLETS: reviewer,
    MODULES_REVIEW_POLL_MS: '100',
    VALIDATE_RESPONSES: 'true',
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the review worker of the server process', () => {
  it('review capabilities report ready: database, reviewer policy and worker authority with its source commit', async () => {
    const r = await call(`${server.url}/v1/modules/review-capabilities`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      schemaVersion: 'platform.modules.review-capabilities.v1',
      reviewAvailable: true,
      statusReadAvailable: true,
      reviewerPolicyDigest: reviewerPolicy([reviewer]).digest,
      workerSourceCommit: workerSourceCommit(),
      workerAuthorityReady: true,
      databaseReady: true,
      approved: false,
      available: false,
    });
    expect(r.json.workerSourceCommit).toMatch(/^[0-9a-f]{40}$/);
    // The context reports the same readiness: review available, status read available.
    const context = await call(`${server.url}/v1/modules/context`, { headers: auth(key) });
    expect(context.json.review).toMatchObject({ available: true, statusReadAvailable: true });
  });

  it('plans and builds a submission on its own', async () => {
    const submitted = await call(`${server.url}/v1/modules/submissions`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'review-process-0001' }),
      body: JSON.stringify(moduleSubmission()),
    });
    expect(submitted.status, submitted.text).toBe(201);
    const id = submitted.json.submissionId as string;
    const deadline = Date.now() + 30_000;
    let state = '';
    while (Date.now() < deadline) {
      const r = await call(`${server.url}/v1/modules/submissions/${id}/review`, { headers: auth(key) });
      state = r.json.review.state;
      if (state === 'built' || state === 'build_failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('built');
  }, 60_000);
});
