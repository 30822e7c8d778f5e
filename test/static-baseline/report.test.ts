import { describe, expect, it } from 'vitest';
import type { StaticBaselineFindingV2 } from '../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';
import { buildStaticBaselineReport } from '../../src/domain/static-baseline/report.ts';

const selfdestruct: StaticBaselineFindingV2 = {
  code: 'RUNTIME_SELFDESTRUCT',
  severity: 'hard_block',
  targetId: 'hook',
  detail: 'SELFDESTRUCT (0xff) reachable at offset 12',
};
const delegatecall: StaticBaselineFindingV2 = {
  code: 'PROXY_OR_DELEGATECALL',
  severity: 'evidence_duty',
  targetId: 'token',
  detail: 'DELEGATECALL (0xf4) reachable at offset 40',
};

describe('buildStaticBaselineReport', () => {
  it('binds the schema version, ruleset and the digest of the report without it', () => {
    const report = buildStaticBaselineReport([selfdestruct]);
    const { reportSha256, ...unsigned } = report;
    expect(unsigned).toEqual({
      schemaVersion: 'platform.custom-launch-static-baseline-report.v1',
      rulesetId: 'platform.static-baseline.v2',
      findings: [selfdestruct],
    });
    expect(reportSha256).toBe(sha256Digest(canonicalJson(unsigned)));
  });

  it.each<[string, StaticBaselineFindingV2[], StaticBaselineFindingV2[], boolean]>([
    ['same findings: same digest', [selfdestruct, delegatecall], [selfdestruct, delegatecall], true],
    ['input order does not matter', [selfdestruct, delegatecall], [delegatecall, selfdestruct], true],
    ['a changed detail changes the digest', [selfdestruct], [{ ...selfdestruct, detail: 'offset 13' }], false],
    ['a changed code changes the digest', [selfdestruct], [{ ...selfdestruct, code: 'RUNTIME_CALLCODE' }], false],
    ['a changed target changes the digest', [selfdestruct], [{ ...selfdestruct, targetId: 'token' }], false],
    ['an added finding changes the digest', [selfdestruct], [selfdestruct, delegatecall], false],
    ['no findings differs from one', [], [selfdestruct], false],
  ])('%s', (_name, a, b, same) => {
    const digestA = buildStaticBaselineReport(a).reportSha256;
    const digestB = buildStaticBaselineReport(b).reportSha256;
    expect(digestA === digestB).toBe(same);
  });

  it('has a stable digest for no findings', () => {
    const unsigned = {
      schemaVersion: 'platform.custom-launch-static-baseline-report.v1',
      rulesetId: 'platform.static-baseline.v2',
      findings: [],
    };
    expect(buildStaticBaselineReport([]).reportSha256).toBe(sha256Digest(canonicalJson(unsigned)));
  });
});
