import { existsSync, renameSync, writeFileSync } from 'node:fs';
import {
  checkRegistryRecords,
  loadSourceVerificationRegistry,
  type SourceVerificationRecord,
} from '../chain/external-references.ts';
import { graphTargetsOf } from '../core/request-hashes.ts';
import { storedRequest } from '../domain/launches/launch-resource.ts';
import type { Db } from '../store/db.ts';

/** One launch target as a source-verification record names it: where the router's factory put it, and its code. */
export interface LaunchTarget {
  targetId: string;
  chainId: '4663';
  address: string;
  runtimeCodeHash: string;
}

/**
 * The targets of a stored launch: each address follows from the request's bound chain deployment (graph factory and
 * router), the target's salt and its runtime code; the code hash is that of the runtime code the request binds.
 */
export function launchTargets(db: Db, launchId: string): LaunchTarget[] {
  return graphTargetsOf(storedRequest(db, launchId)).map((t) => ({ ...t, chainId: '4663' as const }));
}

/**
 * Appends one record to the registry file (created when missing), after checking the whole result loads as a
 * registry; the file is replaced in one rename, so a running server never reads half a file.
 */
export function appendRegistryRecord(path: string, record: SourceVerificationRecord): void {
  const records = existsSync(path) ? loadSourceVerificationRegistry(path) : [];
  const next = checkRegistryRecords([...records, record], path);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(tmp, path);
}
