import { type Hex, keccak256 } from 'viem';
import type {
  CustomLaunchCreateRequestV4,
  CustomLaunchFinalizedListV4,
  SourceVerificationComponentV1,
  SourceVerificationProviderObservationV1,
  SourceVerificationReasonCode,
  SourceVerificationV1,
} from '../../../generated/types/service.ts';
import type { LaunchObserver } from '../../chain/launch-observer.ts';
import type { SourceObservationProvider } from '../../chain/source-observation.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { graphTargetsOf } from '../../core/request-hashes.ts';
import type { SolidityBuild, SolidityBuildSettings } from '../../solidity/compile-contracts.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { oncePerKey } from '../lanes/tracker-poll.ts';
import { storedRequest } from '../launches/launch-resource.ts';
import { pollUntilStopped } from './poll-loop.ts';

type FinalizedItem = CustomLaunchFinalizedListV4['launches'][number];

/** What one attempt concluded for one component, before timestamps. */
type Outcome =
  | { status: 'queued' | 'retrying' | 'needs_attention'; reasonCode: SourceVerificationReasonCode }
  | {
      status: 'exact_match';
      providerObservation: SourceVerificationProviderObservationV1;
      protectedBuildDigest: string;
      finalizedBytecodeDigest: string;
    };

/** A block hash as both providers answer it at a height (null: unreadable or not alike), read once per pass. */
type BlockHashRead = (height: bigint) => Promise<Hex | null>;

/** A component's target as the launch bound it: its verification binding, its address and its compiled contract. */
interface BoundTarget {
  binding: CustomLaunchCreateRequestV4['verificationBundle']['targets'][number];
  address: Hex;
  compiled: SolidityBuild['contracts'][string][string];
}

interface DueRow {
  launch_id: string;
  item_json: string;
  verify_attempts: number;
}

const final = (c: SourceVerificationComponentV1) => c.status === 'exact_match' || c.status === 'needs_attention';

/** The delay before retrying attempt `attempts` (1 = the first retry): base, doubled per attempt, at most max. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs);
}

/**
 * The fail-closed aggregate (spec/schemas/custom-launch-resource.v4.schema.json sourceVerification): any
 * needs_attention wins, then any retrying, then queued; exact_match only when every component is exact. updatedAt is
 * the latest component timestamp.
 */
export function aggregateOf(components: SourceVerificationComponentV1[]): SourceVerificationV1 {
  const has = (status: SourceVerificationComponentV1['status']) => components.some((c) => c.status === status);
  const status = has('needs_attention')
    ? 'needs_attention'
    : has('retrying')
      ? 'retrying'
      : has('queued')
        ? 'queued'
        : 'exact_match';
  // ISO-8601 UTC timestamps of one form order as text.
  const updatedAt = components
    .map((c) => c.updatedAt)
    .sort()
    .at(-1) as string;
  return { status, updatedAt, components };
}

/**
 * Source verification of finalized V4 launches (spec/schemas/custom-launch-resource.v4.schema.json sourceVerification;
 * spec/openapi/paths/v4-finalized-custom-launches.yaml listFinalizedCustomLaunchesV4). It starts after `finalized`,
 * touches only the finalized feed row's `sourceVerification` and never the launch's status. One attempt per due launch:
 *
 * 1. every file of the launch's sourceBundleManifest must have been delivered (else `queued`, SOURCE_FILES_MISSING);
 * 2. the protected build: the server compiles exactly those files with the pinned compiler and the sourceDescriptor
 *    settings in a worker thread (another compiler: COMPILER_NOT_PINNED; errors: SOURCE_COMPILE_FAILED; the
 *    verificationBundle's contract missing: TARGET_NOT_IN_BUILD; all `needs_attention`);
 * 3. the finalized runtime code of each target, read at the finalized block from both providers, must equal the build's
 *    runtime code byte for byte (unreadable or disagreeing: `retrying`, FINALIZED_CODE_UNAVAILABLE; different:
 *    `needs_attention`, PROTECTED_BUILD_MISMATCH);
 * 4. the provider observation for that address and code (none yet: `retrying`, PROVIDER_OBSERVATION_MISSING).
 *
 * Only all four give `exact_match`, with the observation (`releaseAuthority: false`) and both binding digests.
 * `exact_match` and `needs_attention` are final. A `retrying` attempt doubles the delay (retryBaseMs up to retryMaxMs);
 * a `queued` wait re-checks after retryMaxMs, and the delivery that completes the files brings the attempt forward. The
 * build is compiled once per launch and kept until its verification is final.
 */
export class SourceVerifier {
  constructor(
    private readonly deps: {
      db: Db;
      observer: LaunchObserver;
      provider: SourceObservationProvider;
      /** The pinned compiler's long version; a sourceDescriptor naming another is never compiled. */
      compilerVersion: string;
      compile: (sources: Record<string, string>, settings: SolidityBuildSettings) => Promise<SolidityBuild>;
      now: () => number;
      retryBaseMs: number;
      retryMaxMs: number;
    },
  ) {}

  /**
   * The protected build of each launch still being verified. Its inputs never change once every file is held (the
   * files are content-addressed and bound by the immutable request), so a retry compiles nothing again; the entry
   * goes when the launch's verification is final.
   */
  private readonly builds = new Map<string, SolidityBuild>();

  /** One pass over every finalized launch whose next attempt is due. Resolves the number of launches attempted. */
  async tick(): Promise<number> {
    const at = new Date(this.deps.now()).toISOString();
    const due = statement(
      this.deps.db,
      `SELECT launch_id, item_json, verify_attempts FROM finalized_feed
       WHERE verify_next_at IS NOT NULL AND verify_next_at <= ? ORDER BY verify_next_at, seq`,
    ).all(at) as DueRow[];
    // The first check of a finalized block is shared by every launch of the pass at that height; the check after the
    // code reads (codesAtFinalized) is each attempt's own.
    const heldAt = oncePerKey((height: bigint) => this.deps.observer.agreedBlockHash(height).catch(() => null));
    for (const row of due) await this.attempt(row, heldAt);
    return due.length;
  }

  /** Polls until stopped. Returns the stop function. */
  start(pollMs: number): () => Promise<void> {
    return pollUntilStopped('source verifier', () => this.tick(), pollMs);
  }

  private async attempt(row: DueRow, heldAt: BlockHashRead): Promise<void> {
    const item = JSON.parse(row.item_json) as FinalizedItem;
    const open = item.sourceVerification.components.filter((c) => !final(c));
    const outcomes =
      open.length > 0 ? await this.outcomes(row.launch_id, item, open, heldAt) : new Map<string, Outcome>();
    this.record(row, item, outcomes);
  }

  /** What this attempt concludes for each open component. */
  private async outcomes(
    launchId: string,
    item: FinalizedItem,
    open: SourceVerificationComponentV1[],
    heldAt: BlockHashRead,
  ): Promise<Map<string, Outcome>> {
    const all = (outcome: Outcome) => new Map(open.map((c) => [c.targetId, outcome]));
    const request = storedRequest(this.deps.db, launchId);
    const { sources, missing } = heldSources(this.deps.db, launchId, request.sourceBundleManifest);
    if (missing.length > 0) return all({ status: 'queued', reasonCode: 'SOURCE_FILES_MISSING' });
    const descriptor = request.sourceDescriptor;
    if (descriptor.compilerVersion !== this.deps.compilerVersion) {
      return all({ status: 'needs_attention', reasonCode: 'COMPILER_NOT_PINNED' });
    }
    let build = this.builds.get(launchId);
    if (!build) {
      try {
        build = await this.deps.compile(sources, descriptor);
      } catch {
        return all({ status: 'needs_attention', reasonCode: 'SOURCE_COMPILE_FAILED' });
      }
      this.builds.set(launchId, build);
    }
    const built = build;
    const targets = graphTargetsOf(request);
    const boundTarget = (targetId: string): BoundTarget | null => {
      const address = targets.find((t) => t.targetId === targetId)?.address;
      const binding = request.verificationBundle.targets.find((t) => t.targetId === targetId);
      const compiled = binding ? built.contracts[binding.sourcePath]?.[binding.contractName] : undefined;
      return binding && address && compiled ? { binding, address, compiled } : null;
    };
    const bound = new Map(open.map((c) => [c.targetId, boundTarget(c.targetId)]));
    // Every target's code is read before the block is checked again: one check after the reads, not one per target.
    const codes = await this.codesAtFinalized(item, bound, heldAt);
    const outcomes = new Map<string, Outcome>();
    for (const component of open) {
      const target = bound.get(component.targetId);
      outcomes.set(
        component.targetId,
        await this.verifyTarget(component.targetId, target, codes, request, built, item),
      );
    }
    return outcomes;
  }

  /**
   * The runtime code of each bound target at the finalized block, on both providers, by target id; none when the
   * block at the finalized height is not the one finality named, before the reads or after them (the code is read by
   * height: had the block been replaced meanwhile, the code would be the new block's, never a verdict on the
   * finalized one). A code that cannot be read alike on both is null.
   */
  private async codesAtFinalized(
    item: FinalizedItem,
    bound: Map<string, BoundTarget | null>,
    heldAt: BlockHashRead,
  ): Promise<Map<string, Hex | null>> {
    const codes = new Map<string, Hex | null>();
    const height = BigInt(item.blockNumber);
    const named = item.blockHash.toLowerCase();
    if ((await heldAt(height))?.toLowerCase() !== named) return codes;
    for (const [targetId, target] of bound) {
      if (!target) continue;
      codes.set(targetId, await this.deps.observer.agreedCode(target.address, height).catch(() => null));
    }
    if (codes.size === 0) return codes;
    const after = await this.deps.observer.agreedBlockHash(height).catch(() => null);
    return after?.toLowerCase() === named ? codes : new Map();
  }

  private async verifyTarget(
    targetId: string,
    target: BoundTarget | null | undefined,
    codes: Map<string, Hex | null>,
    request: ReturnType<typeof storedRequest>,
    build: SolidityBuild,
    item: FinalizedItem,
  ): Promise<Outcome> {
    if (!target) return { status: 'needs_attention', reasonCode: 'TARGET_NOT_IN_BUILD' };
    const { binding, address, compiled } = target;
    // The code at the address the router's factory put the target, at the finalized block, on both providers.
    const code = codes.get(targetId) ?? null;
    if (code === null) return { status: 'retrying', reasonCode: 'FINALIZED_CODE_UNAVAILABLE' };
    const builtCodeHash = keccak256(compiled.deployedBytecode as Hex);
    const finalizedCodeHash = keccak256(code);
    if (code === '0x' || builtCodeHash !== finalizedCodeHash) {
      return { status: 'needs_attention', reasonCode: 'PROTECTED_BUILD_MISMATCH' };
    }
    const observation = await this.deps.provider
      .observe({ address, runtimeCodeHash: finalizedCodeHash })
      .catch(() => null);
    if (!observation) return { status: 'retrying', reasonCode: 'PROVIDER_OBSERVATION_MISSING' };
    return {
      status: 'exact_match',
      providerObservation: observation,
      protectedBuildDigest: sha256Digest(
        canonicalJson({
          schemaVersion: 'platform.custom-launch-protected-build.v1',
          compilerVersion: build.compilerVersion,
          compilerInputDigest: build.compilerInputDigest,
          sourceBundleManifestDigest: request.verificationBundle.sourceBundleManifestDigest,
          targetId,
          sourcePath: binding.sourcePath,
          contractName: binding.contractName,
          runtimeCodeHash: builtCodeHash,
        }),
      ),
      finalizedBytecodeDigest: sha256Digest(
        canonicalJson({
          schemaVersion: 'platform.custom-launch-finalized-bytecode.v1',
          chainId: '4663',
          address,
          blockNumber: item.blockNumber,
          blockHash: item.blockHash.toLowerCase(),
          runtimeCodeHash: finalizedCodeHash,
        }),
      ),
    };
  }

  /**
   * Writes the attempt's components and the next attempt time in one transaction, only if the row is still the one
   * read (so nothing concurrent is overwritten). A component's updatedAt moves only when the component changes.
   */
  private record(row: DueRow, item: FinalizedItem, outcomes: Map<string, Outcome>): void {
    const nowMs = this.deps.now();
    const at = new Date(nowMs).toISOString();
    const retrying = [...outcomes.values()].some((o) => o.status === 'retrying');
    const attempts = retrying ? row.verify_attempts + 1 : row.verify_attempts;
    const retryDelay = retryDelayMs(attempts, this.deps.retryBaseMs, this.deps.retryMaxMs);
    // A queued launch is woken by the delivery that completes its files; the long wait is only a safety net.
    const nextAt = (status: Outcome['status']) =>
      new Date(nowMs + (status === 'retrying' ? retryDelay : this.deps.retryMaxMs)).toISOString();
    const components = item.sourceVerification.components.map((c): SourceVerificationComponentV1 => {
      const outcome = outcomes.get(c.targetId);
      if (!outcome) return c;
      const next: SourceVerificationComponentV1 =
        outcome.status === 'exact_match'
          ? {
              targetId: c.targetId,
              status: outcome.status,
              updatedAt: at,
              providerObservation: outcome.providerObservation,
              protectedBuildDigest: outcome.protectedBuildDigest,
              finalizedBytecodeDigest: outcome.finalizedBytecodeDigest,
            }
          : outcome.status === 'needs_attention'
            ? { targetId: c.targetId, status: outcome.status, updatedAt: at, reasonCode: outcome.reasonCode }
            : {
                targetId: c.targetId,
                status: outcome.status,
                updatedAt: at,
                nextAttemptAt: nextAt(outcome.status),
                reasonCode: outcome.reasonCode,
              };
      const { updatedAt: _a, nextAttemptAt: _b, ...was } = c;
      const { updatedAt: _c, nextAttemptAt: _d, ...is } = next;
      // An unchanged wait keeps its updatedAt; only the next attempt time moves.
      return canonicalJson(was) === canonicalJson(is) && next.nextAttemptAt
        ? { ...c, nextAttemptAt: next.nextAttemptAt }
        : next;
    });
    const sourceVerification = aggregateOf(components);
    const pending = components.filter((c) => !final(c)).map((c) => c.nextAttemptAt as string);
    const verifyNextAt = pending.sort()[0] ?? null;
    if (verifyNextAt === null) this.builds.delete(row.launch_id);
    statement(
      this.deps.db,
      `UPDATE finalized_feed SET item_json = ?, verify_next_at = ?, verify_attempts = ?
       WHERE launch_id = ? AND item_json = ?`,
    ).run(JSON.stringify({ ...item, sourceVerification }), verifyNextAt, attempts, row.launch_id, row.item_json);
  }
}

/**
 * Brings a finalized launch's next source-verification attempt forward to `at` (a delivered file, a provider record):
 * only while verification is pending and due later; final verification is never reopened.
 */
export function bringVerificationForward(db: Db, launchId: string, at: string): void {
  statement(
    db,
    'UPDATE finalized_feed SET verify_next_at = ? WHERE launch_id = ? AND verify_next_at IS NOT NULL AND verify_next_at > ?',
  ).run(at, launchId, at);
}

/**
 * The delivered text of every manifest file by path, or the paths still missing. Source text is UTF-8 (solc reads
 * sources as text; the packer hashed the UTF-8 bytes of the text it compiled).
 */
export function heldSources(
  db: Db,
  launchId: string,
  manifest: CustomLaunchCreateRequestV4['sourceBundleManifest'],
): { sources: Record<string, string>; missing: string[] } {
  const sources: Record<string, string> = {};
  const missing: string[] = [];
  const read = statement(
    db,
    `SELECT b.bytes FROM launch_source_files f JOIN source_blobs b ON b.sha256 = f.sha256
     WHERE f.launch_id = ? AND f.sha256 = ?`,
  );
  for (const file of manifest.files) {
    const row = read.get(launchId, file.sha256) as { bytes: Buffer } | undefined;
    if (row) sources[file.path] = row.bytes.toString('utf8');
    else missing.push(file.path);
  }
  return { sources, missing };
}
