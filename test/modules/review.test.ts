import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateAnvilEvm } from '../../src/chain/local-evm.ts';
import { decideReview, reviewerPolicy, sourceDigestOf } from '../../src/domain/modules/review.ts';
import { ModuleReviewWorker } from '../../src/domain/modules/review-worker.ts';
import { compileSolidityIsolated } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { auth, call } from '../support/http.ts';
import { filesOf, type ModuleSubmission, moduleSubmission, setFiles } from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * The durable review pipeline on a real server and SQLite file, with the real pinned solc
 * build in a worker thread: plan by runtime profile, build, the reviewer's decision, and every state's nextAction.
 */
const reviewer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let s: TestServer;
let key: string;
let worker: ModuleReviewWorker;
/** The review worker's local EVM for engine builds (a real anvil, started at the first one). */
const reviewEvm = privateAnvilEvm();
let seq = 0;

const submit = async (r: ModuleSubmission) => {
  const reply = await call(`${s.url}/v1/modules/submissions`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `review-test-${String(++seq).padStart(8, '0')}` }),
    body: JSON.stringify(r),
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.json.submissionId as string;
};
const review = async (submissionId: string) => {
  const reply = await call(`${s.url}/v1/modules/submissions/${submissionId}/review`, { headers: auth(key) });
  if (reply.status === 200) expect(schemaProblems('module-review-status.v1.schema.json', reply.json)).toEqual([]);
  return reply;
};
/** Ticks the worker until it finds no more work. */
const drain = async () => {
  for (let i = 0; i < 20 && (await worker.tick()); i++);
};
const decide = (submissionId: string, outcome: 'accept' | 'request_changes' | 'reject', revision: number) =>
  decideReview(s.db, {
    submissionId,
    outcome,
    reason: `${outcome} after reading the build`,
    reviewerWallet: reviewer,
    expectedReviewRevision: revision,
    policy: reviewerPolicy([reviewer]),
    now: Date.now(),
  });
/** The example with its Solidity replaced by `source` (the component's entrypoint stays FeeSplitter). */
const withSource = (source: string, extra: Array<{ path: string; content: string | Buffer }> = []) => {
  const r = moduleSubmission();
  const files = [...filesOf(r)].map(([path, content]) => ({
    path,
    content: path === 'src/FeeSplitter.sol' ? source : content,
  }));
  return setFiles(r, [...files, ...extra]);
};

beforeAll(async () => {
  s = await startServer({ modulesReviewerWallets: [reviewer] });
  key = s.key({ scopes: ['modules:submit', 'modules:read'] });
  worker = new ModuleReviewWorker({
    db: s.db,
    now: Date.now,
    workerId: 'review-test',
    leaseMs: 30_000,
    compile: compileSolidityIsolated,
    evm: reviewEvm.evm,
  });
});
afterAll(async () => {
  await s.close();
  await reviewEvm.stop();
});

describe('the module review pipeline', () => {
  it('plans the engine profile, builds with the aliases, and records an accepted decision', async () => {
    const id = await submit(moduleSubmission());
    const waiting = await review(id);
    expect(waiting.json.review).toMatchObject({
      state: 'awaiting_plan',
      nextAction: 'await_review_plan',
      revision: 0,
      attempt: 0,
      lastError: null,
      buildEvidenceRecorded: false,
      latestDecision: null,
    });
    expect(waiting.json).toMatchObject({
      sourceRevisionVerified: false,
      runtimeVerified: false,
      approved: false,
      available: false,
    });

    await drain();
    const built = (await review(id)).json;
    expect(built.review).toMatchObject({
      state: 'built',
      nextAction: 'await_reviewer_decision',
      attempt: 1,
      lastError: null,
      buildEvidenceRecorded: true,
    });
    const plan = JSON.parse(
      (s.db.prepare('SELECT plan_json FROM module_reviews WHERE submission_id = ?').get(id) as { plan_json: string })
        .plan_json,
    );
    expect(plan).toMatchObject({ profile: 'platform.module-engine-solidity@1', engineAliases: true });

    const decision = decide(id, 'accept', built.review.revision);
    expect(schemaProblems('module-review-decision.v1.schema.json', decision)).toEqual([]);
    expect(decision.reviewRevision).toBe(built.review.revision + 1);
    expect(decision.buildAttempt).toBe(1);
    const accepted = (await review(id)).json;
    expect(accepted.review).toMatchObject({
      state: 'accepted',
      nextAction: 'await_registry_admission',
      revision: built.review.revision + 1,
      latestDecision: {
        outcome: 'accept',
        reviewerWallet: reviewer.toLowerCase(),
        digest: decision.digest,
        buildArtifactDigest: decision.buildArtifactDigest,
        hostManifestDigest: decision.hostManifestDigest,
      },
    });
    expect(accepted).toMatchObject({
      approved: false,
      available: false,
      sourceRevisionVerified: false,
      runtimeVerified: false,
    });
    // The receipt is a historical record: unchanged by the review.
    const receipt = await call(`${s.url}/v1/modules/submissions/${id}`, { headers: auth(key) });
    expect(receipt.json).toMatchObject({
      status: 'draft_received',
      reviewStatus: 'unreviewed',
      approved: false,
      available: false,
    });
  });

  it('request_changes and reject report their nextAction; a stale revision or a stranger cannot decide', async () => {
    const [a, b] = [await submit(moduleSubmission()), await submit(moduleSubmission())];
    await drain();
    const revision = (await review(a)).json.review.revision as number;
    expect(() => decide(a, 'accept', revision - 1)).toThrow(/revision/);
    expect(() =>
      decideReview(s.db, {
        submissionId: a,
        outcome: 'accept',
        reason: 'not a reviewer',
        reviewerWallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        expectedReviewRevision: revision,
        policy: reviewerPolicy([reviewer]),
        now: Date.now(),
      }),
    ).toThrow(/not a reviewer/);
    decide(a, 'request_changes', revision);
    expect((await review(a)).json.review).toMatchObject({
      state: 'changes_requested',
      nextAction: 'submit_new_version',
    });
    decide(b, 'reject', (await review(b)).json.review.revision);
    const rejected = (await review(b)).json.review;
    expect(rejected).toMatchObject({ state: 'rejected', nextAction: 'review_rejection' });
    expect(rejected.latestDecision).toMatchObject({
      outcome: 'reject',
      buildArtifactDigest: null,
      hostManifestDigest: null,
    });
    // A decided review takes no second decision.
    expect(() => decide(b, 'accept', rejected.revision)).toThrow(/built/);
  });

  it('the 4 MiB profile capacity: exactly 4,194,304 bytes build, one byte more fails the build with lastError', async () => {
    const base = [...filesOf(moduleSubmission())].reduce((n, [, bytes]) => n + bytes.length, 0);
    const padded = (extra: number) => {
      const r = moduleSubmission();
      const files = [...filesOf(r)].map(([path, content]) => ({ path, content }));
      return setFiles(r, [...files, { path: 'docs/notes.txt', content: Buffer.alloc(extra, 0x61) }]);
    };
    const fits = await submit(padded(4_194_304 - base));
    const over = await submit(padded(4_194_305 - base));
    await drain();
    expect((await review(fits)).json.review.state).toBe('built');
    const failed = (await review(over)).json.review;
    expect(failed).toMatchObject({
      state: 'build_failed',
      nextAction: 'await_review_plan',
      attempt: 1,
      buildEvidenceRecorded: false,
      lastError: { code: 'MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED' },
    });
  });

  it('fails the build for code that does not compile, an import it would have to fetch, or a missing entrypoint', async () => {
    const broken = await submit(withSource('contract FeeSplitter { this does not compile }\n'));
    const fetching = await submit(
      withSource('import "@openzeppelin/contracts/token/ERC20/ERC20.sol";\ncontract FeeSplitter {}\n'),
    );
    const noEntrypoint = await submit(
      withSource('// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\ncontract Other {}\n'),
    );
    await drain();
    expect((await review(broken)).json.review.lastError).toMatchObject({ code: 'MODULE_BUILD_COMPILE_FAILED' });
    const notFetched = (await review(fetching)).json.review.lastError;
    expect(notFetched).toMatchObject({ code: 'MODULE_BUILD_COMPILE_FAILED' });
    expect(notFetched.message).toContain('@openzeppelin/contracts/token/ERC20/ERC20.sol');
    expect((await review(noEntrypoint)).json.review.lastError).toMatchObject({
      code: 'MODULE_BUILD_ENTRYPOINT_MISSING',
    });
  });

  it('the aliases apply only to engine compilation: the same package as a native component cannot resolve them', async () => {
    const r = moduleSubmission();
    for (const c of r.descriptor.components) c.runtime = 'platform.module-native-runtime@1';
    const id = await submit(r);
    await drain();
    const failed = (await review(id)).json.review;
    expect(failed).toMatchObject({ state: 'build_failed', lastError: { code: 'MODULE_BUILD_COMPILE_FAILED' } });
    const plan = JSON.parse(
      (s.db.prepare('SELECT plan_json FROM module_reviews WHERE submission_id = ?').get(id) as { plan_json: string })
        .plan_json,
    );
    expect(plan).toMatchObject({ profile: 'platform.native-solidity@1', engineAliases: false });
  });

  it('the quote test environment profile binds its exact source: that source gets it, one other byte does not', async () => {
    const quoteSource = moduleSubmission();
    const quoteWorker = new ModuleReviewWorker({
      db: s.db,
      now: Date.now,
      workerId: 'review-test-quote',
      leaseMs: 30_000,
      compile: compileSolidityIsolated,
      evm: reviewEvm.evm,
      quoteEnvironmentSourceDigest: sourceDigestOf(quoteSource as never),
    });
    const exact = await submit(quoteSource);
    const files = [...filesOf(moduleSubmission())].map(([path, content]) => ({ path, content }));
    const other = await submit(
      setFiles(
        moduleSubmission(),
        files.map((f) =>
          f.path === 'README.md' ? { ...f, content: Buffer.concat([f.content, Buffer.from(' ')]) } : f,
        ),
      ),
    );
    for (let i = 0; i < 20 && (await quoteWorker.tick()); i++);
    const planOfId = (id: string) =>
      JSON.parse(
        (s.db.prepare('SELECT plan_json FROM module_reviews WHERE submission_id = ?').get(id) as { plan_json: string })
          .plan_json,
      );
    expect(planOfId(exact)).toMatchObject({
      profile: 'platform.engine-quote-v4-v3@1',
      sourceDigest: sourceDigestOf(quoteSource as never),
    });
    expect(planOfId(other)).toMatchObject({ profile: 'platform.module-engine-solidity@1', sourceDigest: null });
    expect((await review(exact)).json.review.state).toBe('built');
  });

  it('an unknown requirement waits for a review plan, saying which', async () => {
    const r = moduleSubmission();
    r.descriptor.requiresHost = ['acme.teleporter@3'];
    const id = await submit(r);
    await drain();
    const waiting = (await review(id)).json.review;
    expect(waiting).toMatchObject({
      state: 'awaiting_plan',
      nextAction: 'await_review_plan',
      attempt: 0,
      lastError: { code: 'MODULE_REVIEW_PLAN_UNAVAILABLE' },
    });
    expect(waiting.lastError.message).toContain('acme.teleporter@3');
  });

  it('a review no plan covered is planned again once per worker start, not on every tick', async () => {
    const r = moduleSubmission();
    r.descriptor.requiresHost = ['acme.teleporter@4'];
    const id = await submit(r);
    await drain();
    const first = (await review(id)).json.review;
    expect(first).toMatchObject({ state: 'awaiting_plan', lastError: { code: 'MODULE_REVIEW_PLAN_UNAVAILABLE' } });
    // The same worker does not plan it again.
    await drain();
    expect((await review(id)).json.review.revision).toBe(first.revision);
    // A new worker (a restart, perhaps with a deployment that has the profile now) plans it once more.
    const restarted = new ModuleReviewWorker({
      db: s.db,
      now: Date.now,
      workerId: 'review-test-restarted',
      leaseMs: 30_000,
      compile: compileSolidityIsolated,
      evm: reviewEvm.evm,
    });
    for (let i = 0; i < 20 && (await restarted.tick()); i++);
    const again = (await review(id)).json.review;
    expect(again).toMatchObject({ state: 'awaiting_plan', lastError: { code: 'MODULE_REVIEW_PLAN_UNAVAILABLE' } });
    expect(again.revision).toBe(first.revision + 1);
    for (let i = 0; i < 20 && (await restarted.tick()); i++);
    expect((await review(id)).json.review.revision).toBe(again.revision);
  });

  it('a build whose worker died is taken over once its lease expired', async () => {
    const id = await submit(moduleSubmission());
    await drain();
    const revision = (await review(id)).json.review.revision as number;
    // As if a worker had claimed it and died: running, with a lease that has expired.
    s.db
      .prepare(
        "UPDATE module_reviews SET state = 'running', build_json = NULL, lease_owner = 'dead-worker', lease_expires_ms = ?, revision = revision + 1 WHERE submission_id = ?",
      )
      .run(Date.now() - 1, id);
    await drain();
    const rebuilt = (await review(id)).json.review;
    expect(rebuilt).toMatchObject({ state: 'built', attempt: 2, buildEvidenceRecorded: true });
    expect(rebuilt.revision).toBeGreaterThan(revision);
  });

  it('a missing durable review job is MODULE_REVIEW_JOB_UNAVAILABLE, never a waiting state', async () => {
    const id = await submit(moduleSubmission());
    s.db.prepare('DELETE FROM module_reviews WHERE submission_id = ?').run(id);
    const r = await review(id);
    expect(r.status).toBe(503);
    expect(r.json.error).toMatchObject({ code: 'MODULE_REVIEW_JOB_UNAVAILABLE', retryable: false });
    // Another wallet cannot even learn that the submission exists.
    const stranger = s.key({ wallet: reviewer, scopes: ['modules:read'] });
    const hidden = await call(`${s.url}/v1/modules/submissions/${id}/review`, { headers: auth(stranger) });
    expect(hidden.status).toBe(404);
    expect(hidden.json.error.code).toBe('MODULE_SUBMISSION_NOT_FOUND');
  });
});

describe('every review state reports its nextAction (module-review-status.v1.schema.json)', () => {
  const table = {
    awaiting_plan: 'await_review_plan',
    queued: 'await_build',
    running: 'await_build',
    built: 'await_reviewer_decision',
    build_failed: 'await_review_plan',
    changes_requested: 'submit_new_version',
    rejected: 'review_rejection',
    accepted: 'await_registry_admission',
  } as const;

  it.each(Object.entries(table))('%s -> %s', async (state, nextAction) => {
    // A built review with a decision of the matching outcome, then set to the state under test.
    const id = await submit(moduleSubmission());
    await drain();
    const outcome = { changes_requested: 'request_changes', rejected: 'reject', accepted: 'accept' }[state as string];
    if (outcome) decide(id, outcome as 'accept', (await review(id)).json.review.revision);
    if (!outcome) {
      s.db
        .prepare('UPDATE module_reviews SET state = ?, revision = revision + 1 WHERE submission_id = ?')
        .run(state, id);
    }
    const r = await review(id);
    expect(r.status).toBe(200);
    expect(r.json.review).toMatchObject({ state, nextAction });
  });
});

describe('review capabilities', () => {
  it('are ready only with the database, the reviewer policy and a running worker together', async () => {
    const r = await call(`${s.url}/v1/modules/review-capabilities`);
    expect(r.status).toBe(200);
    // The context's review block reports the same readiness.
    const context = await call(`${s.url}/v1/modules/context`, { headers: auth(key) });
    expect(context.json.review).toMatchObject({ available: false, statusReadAvailable: true });
    // This in-process server runs no review worker: the worker authority is not ready, so review is not available.
    expect(r.json).toMatchObject({
      schemaVersion: 'platform.modules.review-capabilities.v1',
      databaseReady: true,
      statusReadAvailable: true,
      workerAuthorityReady: false,
      reviewAvailable: false,
      reviewerPolicyDigest: reviewerPolicy([reviewer]).digest,
      approved: false,
      available: false,
    });
    // A database that lacks this code's latest migration is not ready: neither review nor the status read.
    const behind = await startServer({ modulesReviewerWallets: [reviewer] });
    try {
      behind.db
        .prepare('DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)')
        .run();
      const stale = await call(`${behind.url}/v1/modules/review-capabilities`);
      expect(stale.json).toMatchObject({ databaseReady: false, statusReadAvailable: false, reviewAvailable: false });
      const staleContext = await call(`${behind.url}/v1/modules/context`, {
        headers: auth(behind.key({ scopes: ['modules:read'] })),
      });
      expect(staleContext.json.review).toMatchObject({ available: false, statusReadAvailable: false });
    } finally {
      await behind.close();
    }
    const noPolicy = await startServer({}, undefined, undefined, undefined);
    try {
      const plain = await call(`${noPolicy.url}/v1/modules/review-capabilities`);
      expect(plain.json).toMatchObject({ reviewerPolicyDigest: null, reviewAvailable: false });
    } finally {
      await noPolicy.close();
    }
  });
});

describe('review export', () => {
  const exportOf = (id: string, k = key) =>
    call(`${s.url}/v1/modules/submissions/${id}/review-export`, { headers: { Authorization: `Bearer ${k}` } });
  const acceptedSubmission = async () => {
    const id = await submit(moduleSubmission());
    await drain();
    const decision = decide(id, 'accept', (await review(id)).json.review.revision);
    return { id, decision };
  };

  it('exports an accepted build, bound to the receipt, the build attempt and the decision record, never cached', async () => {
    const { id, decision } = await acceptedSubmission();
    const receipt = (await call(`${s.url}/v1/modules/submissions/${id}`, { headers: auth(key) })).json;
    const r = await exportOf(id);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('vary')).toBe('Authorization');
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(schemaProblems('module-review-export.v1.schema.json', r.json)).toEqual([]);
    expect(r.json).toMatchObject({
      submissionId: id,
      packageId: receipt.packageId,
      familyId: receipt.familyId,
      requestDigest: receipt.requestDigest,
      author: receipt.author,
      rewardWallet: receipt.rewardWallet,
      version: receipt.version,
      reviewRevision: decision.command.expectedReviewRevision + 1,
      buildAttempt: decision.buildAttempt,
      reviewedBuild: {
        subject: { submissionId: id, requestDigest: receipt.requestDigest },
        plan: { profile: 'platform.module-engine-solidity@1' },
        artifact: {
          artifactDigest: decision.buildArtifactDigest,
          hostManifestDigest: decision.hostManifestDigest,
          byteCount: receipt.byteCount,
        },
      },
      review: decision,
      registryApproved: false,
      available: false,
    });
    // The export omits the source upload, worker identity and leases.
    expect(r.text).not.toContain('"files"');
    expect(r.text).not.toContain('review-test');
  });

  it('answers 409 MODULE_REVIEW_EXPORT_NOT_ACCEPTED before acceptance and after another decision', async () => {
    const waiting = await submit(moduleSubmission());
    expect((await exportOf(waiting)).json.error.code).toBe('MODULE_REVIEW_EXPORT_NOT_ACCEPTED');
    await drain();
    const built = await exportOf(waiting);
    expect(built.status).toBe(409);
    expect(built.json.error.message).toContain('await_reviewer_decision');
    decide(waiting, 'reject', (await review(waiting)).json.review.revision);
    expect((await exportOf(waiting)).status).toBe(409);
  });

  it('only to the same principal and author wallet, with modules:read', async () => {
    const { id } = await acceptedSubmission();
    const otherWallet = s.key({ wallet: reviewer, scopes: ['modules:read'] });
    expect((await exportOf(id, otherWallet)).json.error.code).toBe('MODULE_SUBMISSION_NOT_FOUND');
    // Another key of the same wallet is another principal (another lineage): it cannot export either.
    const sameWalletOtherKey = s.key({ scopes: ['modules:submit', 'modules:read'] });
    expect((await exportOf(id, sameWalletOtherKey)).status).toBe(404);
    const submitOnly = s.key({ scopes: ['modules:submit'] });
    const scoped = await exportOf(id, submitOnly);
    expect(scoped.status).toBe(403);
    expect(scoped.json.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('a corrupted stored artifact, decision or request is 503 MODULE_REVIEW_EXPORT_BINDING_INVALID, with no partial export', async () => {
    const corrupt = async (sql: string) => {
      const { id } = await acceptedSubmission();
      s.db.prepare(sql).run(id);
      const r = await exportOf(id);
      expect(r.status, r.text).toBe(503);
      expect(r.json).toEqual({ error: expect.objectContaining({ code: 'MODULE_REVIEW_EXPORT_BINDING_INVALID' }) });
      expect(r.json.error.retryable).toBe(false);
      expect(r.text).not.toContain('reviewedBuild');
    };
    await corrupt(
      "UPDATE module_reviews SET build_json = json_set(build_json, '$.artifact.components[0].runtimeCodeHash', '0x00') WHERE submission_id = ?",
    );
    await corrupt(
      "UPDATE module_reviews SET build_json = json_set(build_json, '$.hostManifest.requiresHost', json('[]')) WHERE submission_id = ?",
    );
    await corrupt(
      "UPDATE module_reviews SET decision_json = json_set(decision_json, '$.command.reason', 'edited later') WHERE submission_id = ?",
    );
    await corrupt('UPDATE module_reviews SET revision = revision + 1 WHERE submission_id = ?');
    await corrupt(
      "UPDATE module_submissions SET request_bytes = CAST(replace(CAST(request_bytes AS TEXT), 'fee-splitter', 'fee-splatter') AS BLOB) WHERE submission_id = ?",
    );
  });
});

describe('an unreadable review store', () => {
  it('answers 503 MODULE_REVIEW_UNAVAILABLE and MODULE_REVIEW_EXPORT_UNAVAILABLE (retryable), and intake still works', async () => {
    const own = await startServer({ modulesReviewerWallets: [reviewer] });
    try {
      const ownKey = own.key({ scopes: ['modules:submit', 'modules:read'] });
      const first = await call(`${own.url}/v1/modules/submissions`, {
        method: 'POST',
        headers: auth(ownKey, { 'Idempotency-Key': 'unreadable-store-0001' }),
        body: JSON.stringify(moduleSubmission()),
      });
      expect(first.status).toBe(201);
      const id = first.json.submissionId as string;
      const readable = await call(`${own.url}/v1/modules/submissions/${id}/review`, { headers: auth(ownKey) });
      expect(readable.status).toBe(200);
      // The review store goes away (as a broken or half-migrated database would); the receipts stay.
      own.db.exec('ALTER TABLE module_reviews RENAME TO module_reviews_gone');
      for (const [path, code] of [
        ['review', 'MODULE_REVIEW_UNAVAILABLE'],
        ['review-export', 'MODULE_REVIEW_EXPORT_UNAVAILABLE'],
      ] as const) {
        const r = await call(`${own.url}/v1/modules/submissions/${id}/${path}`, { headers: auth(ownKey) });
        expect(r.status, r.text).toBe(503);
        expect(r.json.error).toMatchObject({ code, retryable: true });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.text).not.toMatch(/sqlite|no such table/i);
      }
      const receipt = await call(`${own.url}/v1/modules/submissions/${id}`, { headers: auth(ownKey) });
      expect(receipt.status).toBe(200);
      own.db.exec('ALTER TABLE module_reviews_gone RENAME TO module_reviews');
      expect((await call(`${own.url}/v1/modules/submissions/${id}/review`, { headers: auth(ownKey) })).status).toBe(
        200,
      );
    } finally {
      await own.close();
    }
  });
});
