import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

/** One revision of the operator's V3 admission rule set: the static-baseline hard-block rules it retires. */
export interface BaseRuleSet {
  revision: number;
  retiredRules: string[];
}

/** The current rule set: the highest v3_rule_sets revision, or revision 0 (nothing retired) before the first. */
export function currentBaseRuleSet(db: Db): BaseRuleSet {
  const row = statement(db, 'SELECT revision, retired_rules FROM v3_rule_sets ORDER BY revision DESC LIMIT 1').get() as
    | { revision: number; retired_rules: string }
    | undefined;
  return row
    ? { revision: row.revision, retiredRules: JSON.parse(row.retired_rules) as string[] }
    : { revision: 0, retiredRules: [] };
}

/**
 * `v3 rules retire <RULE_CODE...> --reason <text>` (src/admin/cli.ts): a new revision that retires the given rules on
 * top of those already retired, with the operator's reason. Returns the new rule set.
 */
export function retireBaseRules(db: Db, codes: readonly string[], reason: string, at: string): BaseRuleSet {
  return db
    .transaction((): BaseRuleSet => {
      const current = currentBaseRuleSet(db);
      const retiredRules = [...new Set([...current.retiredRules, ...codes])].sort();
      const revision = current.revision + 1;
      statement(db, 'INSERT INTO v3_rule_sets (revision, retired_rules, reason, created_at) VALUES (?, ?, ?, ?)').run(
        revision,
        JSON.stringify(retiredRules),
        reason,
        at,
      );
      return { revision, retiredRules };
    })
    .immediate();
}
