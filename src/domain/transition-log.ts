import { logger } from '../observability/logger.ts';

/** The lane a transitions table belongs to, as the log names it. */
const laneOf: Record<string, string> = {
  launch_transitions: 'v4',
  v3_launch_transitions: 'v3',
  multi_role_launch_transitions: 'multi-role',
};

/**
 * Logs a launch's status change as it is recorded in its lane's transitions table (docs/configuration.md, Logs): one
 * `info` line `launch status` with the launchId, the lane, both statuses and the worker that moved it.
 */
export function logTransition(
  table: string,
  move: { launchId: string; from: string; to: string; worker: string },
): void {
  logger.info(
    { launchId: move.launchId, lane: laneOf[table] ?? table, from: move.from, to: move.to, worker: move.worker },
    'launch status',
  );
}
