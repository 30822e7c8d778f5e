import type { Hex } from 'viem';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { logTransition } from '../transition-log.ts';

/** The launch table of a lane and its transition audit table (src/store/migrations.ts; V4: launches). */
export interface LaneTables {
  launches: 'v3_launches' | 'multi_role_launches' | 'launches';
  transitions: 'v3_launch_transitions' | 'multi_role_launch_transitions' | 'launch_transitions';
}

/**
 * Moves a lane's launch from `from` to `to` and sets `fields`, only if its status is still `from`; records the
 * transition once. Returns false (and changes nothing) when another step moved it first. Call inside the
 * transaction that commits the step's outcome.
 */
export function moveLaneLaunch(
  db: Db,
  tables: LaneTables,
  move: { launchId: string; from: string; to: string; worker: string; at: string },
  fields: Record<string, string | number | null | undefined> = {},
): boolean {
  const names = Object.keys(fields);
  const sets = ['status = ?', 'updated_at = ?', ...names.map((name) => `${name} = ?`)].join(', ');
  const result = statement(db, `UPDATE ${tables.launches} SET ${sets} WHERE launch_id = ? AND status = ?`).run(
    move.to,
    move.at,
    ...names.map((name) => fields[name] ?? null),
    move.launchId,
    move.from,
  );
  if (result.changes !== 1) return false;
  if (move.from !== move.to) {
    statement(
      db,
      `INSERT INTO ${tables.transitions} (launch_id, from_status, to_status, worker, at) VALUES (?, ?, ?, ?, ?)`,
    ).run(move.launchId, move.from, move.to, move.worker, move.at);
    logTransition(tables.transitions, move);
  }
  return true;
}

/** The statuses a lane's launch passed through, oldest first (for tests and the audit of a resumed worker). */
export function laneLaunchTransitions(
  db: Db,
  tables: LaneTables,
  launchId: string,
): Array<{ from: string; to: string }> {
  return (
    statement(db, `SELECT from_status, to_status FROM ${tables.transitions} WHERE launch_id = ? ORDER BY seq`).all(
      launchId,
    ) as Array<{ from_status: string; to_status: string }>
  ).map((row) => ({ from: row.from_status, to: row.to_status }));
}

/** A failure with its code, message and remediation, as failure_json (each lane's resource schema Failure). */
export function laneFailureJson(code: string, message: string, remediation: string): string {
  return JSON.stringify({ code, message: message.slice(0, 1024), remediation: remediation.slice(0, 1024) });
}

/** The launch intent hash as a router's bytes32. */
export function laneIntentBytesOf(row: { launch_intent_hash: string }): Hex {
  return `0x${row.launch_intent_hash.replace(/^sha256:/, '')}` as Hex;
}
