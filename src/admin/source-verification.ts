import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { loadSourceVerificationRegistry, type SourceVerificationRecord } from '../chain/external-references.ts';
import { graphTargetsOf } from '../domain/launches/request-hashes.ts';
import { storedRequest } from '../domain/launches/source-files.ts';
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
  let request: ReturnType<typeof storedRequest>;
  try {
    request = storedRequest(db, launchId);
  } catch {
    throw new Error(`no launch ${launchId} in this database`);
  }
  return graphTargetsOf(request).map((t) => ({ ...t, chainId: '4663' as const }));
}

/**
 * Appends one record to the registry file (created when missing), after checking the whole result loads as a
 * registry; the file is replaced in one rename, so a running server never reads half a file.
 */
export function appendRegistryRecord(path: string, record: SourceVerificationRecord): SourceVerificationRecord[] {
  const records = existsSync(path) ? loadSourceVerificationRegistry(path) : [];
  const next = [...records, record];
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
  loadSourceVerificationRegistry(tmp);
  renameSync(tmp, path);
  return JSON.parse(readFileSync(path, 'utf8')) as SourceVerificationRecord[];
}
