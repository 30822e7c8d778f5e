import { describe, expect, it } from 'vitest';
import type { SourceVerificationComponentV1 } from '../../generated/types/service.ts';
import { aggregateOf, retryDelayMs } from '../../src/domain/lifecycle/source-verifier.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';

/**
 * The rules of sourceVerification the verifier computes without the chain
 * (spec/schemas/source-verification.v1.schema.json; the retry schedule is project design): the fail-closed aggregate
 * and its updatedAt, and the retry delay.
 */
const at = (s: number) => `2026-11-22T10:00:${String(s).padStart(2, '0')}.000Z`;
const row = (
  targetId: string,
  status: SourceVerificationComponentV1['status'],
  s: number,
): SourceVerificationComponentV1 => {
  if (status === 'exact_match') {
    return {
      targetId,
      status,
      updatedAt: at(s),
      providerObservation: {
        providerId: 'p',
        observedAt: at(s),
        observationDigest: `sha256:${'a'.repeat(64)}`,
        releaseAuthority: false,
      },
      protectedBuildDigest: `sha256:${'b'.repeat(64)}`,
      finalizedBytecodeDigest: `sha256:${'c'.repeat(64)}`,
    };
  }
  if (status === 'needs_attention')
    return { targetId, status, updatedAt: at(s), reasonCode: 'PROTECTED_BUILD_MISMATCH' };
  return {
    targetId,
    status,
    updatedAt: at(s),
    nextAttemptAt: at(s + 1),
    reasonCode: status === 'queued' ? 'SOURCE_FILES_MISSING' : 'PROVIDER_OBSERVATION_MISSING',
  };
};

describe('the fail-closed aggregate', () => {
  const cases: Array<[SourceVerificationComponentV1['status'][], string]> = [
    [['exact_match', 'exact_match', 'exact_match'], 'exact_match'],
    [['exact_match', 'queued', 'exact_match'], 'queued'],
    [['queued', 'retrying', 'exact_match'], 'retrying'],
    [['retrying', 'needs_attention', 'queued'], 'needs_attention'],
    [['needs_attention', 'exact_match', 'exact_match'], 'needs_attention'],
  ];
  it.each(cases)(
    '%j aggregates to %s, with the latest component updatedAt, and the schema agrees',
    (statuses, want) => {
      const components = statuses.map((status, i) =>
        row(['hook', 'initializer', 'token'][i] as string, status, 10 - i * 3),
      );
      const v = aggregateOf(components);
      expect(v.status).toBe(want);
      expect(v.updatedAt).toBe(at(10));
      expect(schemaProblems('source-verification.v1.schema.json', v)).toEqual([]);
      // The schema states the same rule: any other aggregate is refused.
      for (const other of ['queued', 'retrying', 'exact_match', 'needs_attention'].filter((s) => s !== want)) {
        expect(schemaProblems('source-verification.v1.schema.json', { ...v, status: other })).not.toEqual([]);
      }
    },
  );

  it('the schema refuses a provider or digest on a row that is not exact, and nextAttemptAt on a final row', () => {
    const exact = row('token', 'exact_match', 1);
    const waiting = row('token', 'retrying', 1);
    const bad: unknown[] = [
      { ...waiting, providerObservation: (exact as { providerObservation: unknown }).providerObservation },
      { ...waiting, protectedBuildDigest: `sha256:${'b'.repeat(64)}` },
      { ...exact, nextAttemptAt: at(2) },
      { ...exact, reasonCode: 'PROVIDER_OBSERVATION_MISSING' },
      { targetId: 'token', status: 'retrying', updatedAt: at(1), nextAttemptAt: at(2) },
      { targetId: 'token', status: 'needs_attention', updatedAt: at(1) },
      { ...exact, providerObservation: { ...(exact as any).providerObservation, releaseAuthority: true } },
    ];
    for (const component of bad) {
      const v = {
        status: (component as SourceVerificationComponentV1).status,
        updatedAt: at(1),
        components: [component],
      };
      expect(schemaProblems('source-verification.v1.schema.json', v), JSON.stringify(component)).not.toEqual([]);
    }
    for (const component of [exact, waiting, row('token', 'queued', 1), row('token', 'needs_attention', 1)]) {
      const v = { status: component.status, updatedAt: at(1), components: [component] };
      expect(schemaProblems('source-verification.v1.schema.json', v)).toEqual([]);
    }
  });
});

describe('the retry schedule', () => {
  it('starts at the base, doubles per attempt, and stops at the maximum', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, 30_000, 600_000))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 600_000,
    ]);
    // Both sides of the cap.
    expect(retryDelayMs(5, 1_000, 16_000)).toBe(16_000);
    expect(retryDelayMs(5, 1_000, 15_999)).toBe(15_999);
    expect(retryDelayMs(4, 1_000, 16_000)).toBe(8_000);
  });
});
