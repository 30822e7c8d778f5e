import { createHash } from 'node:crypto';
import type { ModuleIntakeReceipt, ModuleSubmissionRequest } from '../../../generated/types/service.ts';
import type { EngineEvm } from '../../chain/local-evm.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { compilerSourceName } from '../../core/module-files.ts';
import type { SolidityBuild, SolidityBuildSettings } from '../../solidity/compile-contracts.ts';
import { type Db, immediateIfFree } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { pollUntilStopped } from '../lifecycle/poll-loop.ts';
import {
  checkDataLimit,
  type EngineExecutionEvidence,
  encodeConfiguration,
  engineReviewInputs,
  measureEngine,
} from './engine-review.ts';
import {
  BuildFailure,
  type BuildRecord,
  planOf,
  type ReviewErrorCode,
  type ReviewPlan,
  type ReviewRow,
  reviewDataLimits,
} from './review.ts';

/**
 * The data limits and engine budget a plan applies. A plan stored before plans named them (a review queued across an
 * upgrade) gets the default review data limits (reviewDataLimits), the engine run when its profile compiles with the
 * engine aliases.
 */
function dataLimitsOf(plan: ReviewPlan): Pick<ReviewPlan, 'maxEncodedConfigurationBytes' | 'engineExecution'> {
  const stored = plan as Partial<ReviewPlan>;
  return {
    maxEncodedConfigurationBytes: stored.maxEncodedConfigurationBytes ?? reviewDataLimits.maxEncodedConfigurationBytes,
    engineExecution:
      stored.engineExecution !== undefined
        ? stored.engineExecution
        : plan.engineAliases
          ? {
              maxInitializationDataBytes: reviewDataLimits.maxEngineInitializationDataBytes,
              maxOperationDataBytes: reviewDataLimits.maxEngineOperationDataBytes,
              maxExecutionGas: reviewDataLimits.maxEngineExecutionGas,
            }
          : null,
  };
}

/**
 * The durable module review pipeline behind getModuleReviewStatus (spec/openapi/paths/modules-submission-review.yaml,
 * spec/schemas/module-review-status.v1.schema.json), one step per tick: an `awaiting_plan` review gets the plan of
 * its components' runtime profile (or stays waiting when no plan covers a requirement); a `queued` review is leased,
 * moves to `running` (attempt + 1) and is built: the submitted Solidity, compiled with the one pinned solc-js under
 * the engine dependency aliases (engine profile only), imports resolved only among the submitted files (no
 * remappings, no fetching), within the profile's 4 MiB capacity and 16 KiB of encoded configuration; under an engine
 * profile each engine component then runs on the private local EVM with its initialization and operation data
 * (16 KiB each) within the 3,000,000-gas budget (engine-review.ts). A success is `built` with the recorded build
 * evidence, the measured gas included; a failure is `build_failed` with lastError. A `running` review whose lease
 * expired (its worker died) is built again. Every change is one transaction that bumps the revision.
 */
export class ModuleReviewWorker {
  constructor(
    private readonly deps: {
      db: Db;
      now: () => number;
      workerId: string;
      leaseMs: number;
      compile: (sources: Record<string, string>, settings: SolidityBuildSettings) => Promise<SolidityBuild>;
      /** The fixed quote test environment's source digest (MODULES_QUOTE_ENVIRONMENT_SOURCE_DIGEST), if any. */
      quoteEnvironmentSourceDigest?: string | null;
      /** The private local EVM an engine build runs on to measure the reviewed execution budget. */
      evm: EngineEvm;
    },
  ) {}

  /** One pass: plans every waiting review, then builds one due review. Resolves whether it did any work. */
  async tick(): Promise<boolean> {
    const planned = this.planWaiting();
    const built = await this.buildOne();
    return planned > 0 || built;
  }

  /** Polls until stopped. Returns the stop function. */
  start(pollMs: number): () => Promise<void> {
    return pollUntilStopped(
      'module review tick',
      () => this.tick(),
      pollMs,
      (worked) => worked === true,
    );
  }

  private request(submissionId: string): { request: ModuleSubmissionRequest; receipt: ModuleIntakeReceipt } {
    const row = statement(
      this.deps.db,
      'SELECT request_bytes, receipt_json FROM module_submissions WHERE submission_id = ?',
    ).get(submissionId) as { request_bytes: Buffer; receipt_json: string };
    return {
      request: JSON.parse(row.request_bytes.toString('utf8')) as ModuleSubmissionRequest,
      receipt: JSON.parse(row.receipt_json) as ModuleIntakeReceipt,
    };
  }

  /** Whether this worker has looked again at the reviews an earlier configuration could not plan. */
  private replanned = false;

  /**
   * Plans every waiting review: one read of the waiting reviews with their requests, each planned in memory, and
   * every outcome written in one transaction (each only while the review keeps the revision read).
   */
  private planWaiting(): number {
    const { db } = this.deps;
    if (!this.replanned) {
      // Review profiles come from configuration, which changes only with a restart: a review no plan covered before
      // is planned again once per worker start (this deployment may have the profile now).
      statement(db, "UPDATE module_reviews SET plan_json = NULL WHERE state = 'awaiting_plan'").run();
      this.replanned = true;
    }
    const waiting = statement(
      db,
      `SELECT r.submission_id, r.revision, s.request_bytes FROM module_reviews r
         JOIN module_submissions s ON s.submission_id = r.submission_id
         WHERE r.state = 'awaiting_plan' AND r.plan_json IS NULL`,
    ).all() as Array<Pick<ReviewRow, 'submission_id' | 'revision'> & { request_bytes: Buffer }>;
    if (waiting.length === 0) return 0;
    const outcomes = waiting.map((row) => ({
      row,
      outcome: planOf(
        JSON.parse(row.request_bytes.toString('utf8')) as ModuleSubmissionRequest,
        this.deps.quoteEnvironmentSourceDigest ?? null,
      ),
    }));
    const at = new Date(this.deps.now()).toISOString();
    const queue = statement(
      db,
      `UPDATE module_reviews SET state = 'queued', plan_json = ?, revision = revision + 1, updated_at = ?
         WHERE submission_id = ? AND revision = ?`,
    );
    // Waits for a plan; the reason is recorded once per worker start (a restart with that profile plans it).
    const wait = statement(
      db,
      `UPDATE module_reviews SET plan_json = ?, last_error_json = ?, revision = revision + 1, updated_at = ?
         WHERE submission_id = ? AND revision = ?`,
    );
    let planned = 0;
    db.transaction(() => {
      for (const { row, outcome } of outcomes) {
        if ('plan' in outcome) {
          planned += queue.run(JSON.stringify(outcome.plan), at, row.submission_id, row.revision).changes;
          continue;
        }
        const error = {
          code: 'MODULE_REVIEW_PLAN_UNAVAILABLE' satisfies ReviewErrorCode,
          message: `No review plan covers ${outcome.unplanned.join('; ')}`.slice(0, 1024),
          at,
        };
        wait.run(
          JSON.stringify({ unplanned: outcome.unplanned }),
          JSON.stringify(error),
          at,
          row.submission_id,
          row.revision,
        );
      }
    }).immediate();
    return planned;
  }

  /** Leases one queued review (or a running one whose lease expired), builds it and records the outcome. */
  private async buildOne(): Promise<boolean> {
    const { db } = this.deps;
    const nowMs = this.deps.now();
    const claimed = immediateIfFree(db, () => {
      const row = statement(
        db,
        `SELECT submission_id, revision, attempt, plan_json FROM module_reviews
           WHERE state = 'queued' OR (state = 'running' AND lease_expires_ms <= ?)
           ORDER BY updated_at LIMIT 1`,
      ).get(nowMs) as Pick<ReviewRow, 'submission_id' | 'revision' | 'attempt' | 'plan_json'> | undefined;
      if (!row) return null;
      statement(
        db,
        `UPDATE module_reviews SET state = 'running', attempt = attempt + 1, revision = revision + 1,
             lease_owner = ?, lease_expires_ms = ?, updated_at = ? WHERE submission_id = ? AND revision = ?`,
      ).run(
        this.deps.workerId,
        nowMs + this.deps.leaseMs,
        new Date(nowMs).toISOString(),
        row.submission_id,
        row.revision,
      );
      return { ...row, attempt: row.attempt + 1, revision: row.revision + 1 };
    });
    if (!claimed) return false;
    const plan = JSON.parse(claimed.plan_json as string) as ReviewPlan;
    const { request, receipt } = this.request(claimed.submission_id);
    let record: BuildRecord | null = null;
    let failure: BuildFailure | null = null;
    try {
      record = await this.build(claimed.submission_id, claimed.attempt, plan, request, receipt);
    } catch (err) {
      failure =
        err instanceof BuildFailure
          ? err
          : new BuildFailure('MODULE_BUILD_FAILED', (err as Error).message ?? String(err));
    }
    const at = new Date(this.deps.now()).toISOString();
    statement(
      db,
      `UPDATE module_reviews SET state = ?, build_json = ?, last_error_json = ?, revision = revision + 1,
         lease_owner = NULL, lease_expires_ms = NULL, updated_at = ?
       WHERE submission_id = ? AND revision = ? AND lease_owner = ?`,
    ).run(
      record ? 'built' : 'build_failed',
      record ? JSON.stringify(record) : null,
      failure ? JSON.stringify({ code: failure.code, message: failure.message.slice(0, 1024), at }) : null,
      at,
      claimed.submission_id,
      claimed.revision,
      this.deps.workerId,
    );
    return true;
  }

  /**
   * Builds one review under its plan: the submitted files within the profile's capacity, the encoded configuration
   * within its limit, the engine inputs checked, the Solidity compiled as planned, each component's entrypoint found,
   * then (engine profile) each engine component measured on the local EVM. Throws a BuildFailure at the first refusal.
   */
  private async build(
    submissionId: string,
    attempt: number,
    plan: ReviewPlan,
    request: ModuleSubmissionRequest,
    receipt: ModuleIntakeReceipt,
  ): Promise<BuildRecord> {
    const files = decodedFiles(request, plan);
    const limits = dataLimitsOf(plan);
    const encodedConfiguration = encodeConfiguration(request.descriptor.configuration);
    checkDataLimit('The encoded configuration', encodedConfiguration.length, limits.maxEncodedConfigurationBytes);
    const engineInputs = limits.engineExecution
      ? engineReviewInputs(
          request.descriptor,
          plan.runtime,
          new Map(files.map((f) => [f.path, f.bytes])),
          encodedConfiguration,
          limits.engineExecution,
        )
      : [];
    const nameOf = (path: string) => (plan.engineAliases ? compilerSourceName(path) : path);
    const build = await this.compileAsPlanned(soliditySources(files, nameOf), plan);
    const components = builtComponents(request.descriptor, build, nameOf);
    // Engine components run on the local EVM, one after another (one snapshot each), only once everything compiled.
    const execution: EngineExecutionEvidence[] = [];
    for (const input of engineInputs) {
      const component = components.find((c) => c.id === input.component);
      if (!component || !limits.engineExecution) continue;
      execution.push(await measureEngine(this.deps.evm, input, component.creationCode, limits.engineExecution));
    }
    const artifact = {
      compilerVersion: build.compilerVersion,
      compilerInputDigest: build.compilerInputDigest,
      components: components.map(({ creationCode: _creationCode, ...c }) => c),
      encodedConfigurationBytes: encodedConfiguration.length,
      ...(limits.engineExecution
        ? { engineExecution: { budgetGas: limits.engineExecution.maxExecutionGas, execution } }
        : {}),
    };
    const hostManifest = { requiresHost: request.descriptor.requiresHost, ports: request.descriptor.ports };
    return {
      attempt,
      subject: {
        submissionId,
        requestDigest: receipt.requestDigest,
        packageId: receipt.packageId,
        version: receipt.version,
      },
      plan,
      artifact: { ...artifact, digest: sha256Digest(canonicalJson(artifact)) },
      hostManifest: { ...hostManifest, digest: sha256Digest(canonicalJson(hostManifest)) },
    };
  }

  /** Compiles the sources with the plan's settings; a compiler other than the planned one is a failed build. */
  private async compileAsPlanned(sources: Record<string, string>, plan: ReviewPlan): Promise<SolidityBuild> {
    let build: SolidityBuild;
    try {
      build = await this.deps.compile(sources, plan.settings);
    } catch (err) {
      throw new BuildFailure('MODULE_BUILD_COMPILE_FAILED', (err as Error).message);
    }
    if (build.compilerVersion !== plan.compilerVersion) {
      throw new BuildFailure(
        'MODULE_BUILD_COMPILER_MISMATCH',
        `Built with ${build.compilerVersion}, planned ${plan.compilerVersion}.`,
      );
    }
    return build;
  }
}

type DecodedFile = { path: string; bytes: Buffer };

/** The submitted files' bytes, refused when together they exceed the profile's source capacity. */
function decodedFiles(request: ModuleSubmissionRequest, plan: ReviewPlan): DecodedFile[] {
  const files = request.files.map((f) => ({ path: f.path, bytes: Buffer.from(f.bytes as string, 'base64') }));
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  if (total > plan.maxSourceBytes) {
    throw new BuildFailure(
      'MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED',
      `The package holds ${total} bytes; the ${plan.profile} profile reviews at most ${plan.maxSourceBytes} (4 MiB, dependencies and documentation included).`,
    );
  }
  return files;
}

/**
 * The compiler's sources: each submitted .sol file under its compiler source name (imports resolve only among
 * them); two files under one name are refused.
 */
function soliditySources(files: DecodedFile[], nameOf: (path: string) => string): Record<string, string> {
  const sources: Record<string, string> = {};
  for (const f of files.filter((file) => file.path.endsWith('.sol'))) {
    const name = nameOf(f.path);
    if (sources[name] !== undefined) {
      throw new BuildFailure('MODULE_BUILD_SOURCE_ALIAS_COLLISION', `Two files compile as ${name}.`);
    }
    sources[name] = f.bytes.toString('utf8');
  }
  return sources;
}

/** The SHA-256 of the bytes a 0x hex string encodes, as 0x hex. */
function sha256OfHex(hex: string): string {
  return `0x${createHash('sha256')
    .update(Buffer.from(hex.slice(2), 'hex'))
    .digest('hex')}`;
}

/** Each descriptor component's compiled entrypoint with its code hashes; a missing entrypoint fails the build. */
function builtComponents(
  descriptor: ModuleSubmissionRequest['descriptor'],
  build: SolidityBuild,
  nameOf: (path: string) => string,
) {
  return descriptor.components.map((c) => {
    const sourceName = nameOf(c.sourcePath);
    const contract = build.contracts[sourceName]?.[c.entrypoint];
    if (!contract) {
      throw new BuildFailure(
        'MODULE_BUILD_ENTRYPOINT_MISSING',
        `Component ${c.id}: ${sourceName} defines no deployable contract ${c.entrypoint}.`,
      );
    }
    return {
      id: c.id,
      sourceName,
      entrypoint: c.entrypoint,
      creationCodeHash: sha256OfHex(contract.bytecode),
      runtimeCodeHash: sha256OfHex(contract.deployedBytecode),
      creationCode: contract.bytecode,
    };
  });
}
