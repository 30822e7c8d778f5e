import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { type BaseLaunchRow, baseLaunchRow, moveBaseLaunch } from './launch-store.ts';
import { baseRequestOf, storedBuildOf } from './lifecycle-context.ts';
import { scheduleBaseJob } from './lifecycle-jobs.ts';
import type { BaseLaunchRules } from './lifecycle-rules.ts';
import { currentBaseRuleSet } from './rule-sets.ts';

/** What `v3 reevaluate` did with one action_required launch. */
export interface BaseReevaluation {
  launchId: string;
  status: 'pending_review' | 'action_required';
  ruleSetRevision: number;
  findingCodes: string[];
  currentHardBlocks: string[];
}

/**
 * `v3 reevaluate [<launchId>]` (src/admin/cli.ts): re-runs the admission review of `action_required` launches (one,
 * or all) over their stored build under the current rule-set revision. A launch with no current hard block moves
 * back to `pending_review` and its job is scheduled (the lifecycle goes on from there); one that still has a hard
 * block stays, its finding codes and revision updated. Throws when the named launch is not action_required.
 */
export async function reevaluateBaseLaunches(
  db: Db,
  rules: BaseLaunchRules,
  options: { launchId?: string; now: () => number; worker: string },
): Promise<BaseReevaluation[]> {
  const rows = options.launchId
    ? [baseLaunchRow(db, options.launchId)].filter((r): r is BaseLaunchRow => r !== undefined)
    : (statement(
        db,
        "SELECT * FROM v3_launches WHERE status = 'action_required' ORDER BY seq",
      ).all() as BaseLaunchRow[]);
  if (options.launchId && rows[0]?.status !== 'action_required') {
    throw new Error(`launch ${options.launchId} is ${rows[0]?.status ?? 'unknown'}, not action_required`);
  }
  const outcomes: BaseReevaluation[] = [];
  for (const row of rows) {
    const ruleSet = currentBaseRuleSet(db);
    const review = await rules.review(baseRequestOf(row), storedBuildOf(row).build, ruleSet);
    const to = review.currentHardBlocks.length > 0 ? 'action_required' : 'pending_review';
    const nowMs = options.now();
    const at = new Date(nowMs).toISOString();
    const fields = {
      finding_codes_json: JSON.stringify(review.findingCodes.slice(0, 64)),
      fee_certification_json: JSON.stringify(review.feeCertification),
      rule_set_revision: ruleSet.revision,
    };
    const moved = db
      .transaction(() => {
        const ok = moveBaseLaunch(
          db,
          { launchId: row.launch_id, from: 'action_required', to, worker: options.worker, at },
          fields,
        );
        if (ok && to === 'pending_review') scheduleBaseJob(db, row.launch_id, nowMs);
        return ok;
      })
      .immediate();
    if (!moved) continue;
    outcomes.push({
      launchId: row.launch_id,
      status: to,
      ruleSetRevision: ruleSet.revision,
      findingCodes: review.findingCodes,
      currentHardBlocks: review.currentHardBlocks,
    });
  }
  return outcomes;
}
