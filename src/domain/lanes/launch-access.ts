import type { CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { visibility } from '../launches/launch-resource.ts';
import type { LaneTables } from './launch-table.ts';

/** The partner attribution of a lane's launch resource (the same shape on every lane). */
export type LanePartnerAttribution = CustomLaunchResourceV3['partnerAttribution'];

/**
 * The provenance of a partner launch, derived from the creating credential and never from the request (the same
 * derivation as V4, spec/schemas/custom-launch-resource.v4.schema.json PartnerAttribution); null for a wallet key.
 */
export function partnerAttributionFor(principal: Principal): LanePartnerAttribution {
  if (principal.partnerId === null) return null;
  const subkey = principal.kind === 'subkey';
  return {
    partnerId: principal.partnerId,
    credentialKind: subkey ? 'partner_subkey' : 'partner_root',
    subkeyId: subkey ? principal.keyId : null,
    lineageId: principal.lineageId,
  };
}

/**
 * A lane's launch in the credential's visibility (the same as V4's: see visibility), else 404 NOT_FOUND: a launch outside it answers exactly like a missing one (getCustomLaunchV3 in
 * spec/openapi/paths/v3-custom-launch.yaml, getMultiRoleCustomLaunch in multi-role-custom-launch.yaml).
 */
export function visibleLaneLaunch<Row>(
  db: Db,
  table: LaneTables['launches'],
  principal: Principal,
  launchId: string,
  laneName: string,
): Row {
  const v = visibility(principal);
  const row = statement(db, `SELECT * FROM ${table} WHERE launch_id = ? AND ${v.where}`).get(launchId, v.value) as
    | Row
    | undefined;
  if (!row) throw new ApiError('NOT_FOUND', { message: `No ${laneName} launch ${launchId} for this credential.` });
  return row;
}

/**
 * One page of a lane's launches in the credential's visibility: newest first, `limit` rows, and an opaque cursor bound
 * to this list (`listTag` names the lane) or null on the last page (listCustomLaunchesV3,
 * listMultiRoleCustomLaunches).
 */
export function laneLaunchPage<Row extends { seq: number }>(
  db: Db,
  table: LaneTables['launches'],
  listTag: string,
  principal: Principal,
  page: { limit: number; cursor: string | undefined },
): { rows: Row[]; nextCursor: string | null } {
  const v = visibility(principal);
  const listName = `${listTag}:${v.list}`;
  const before = page.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(listName, page.cursor);
  const rows = statement(db, `SELECT * FROM ${table} WHERE ${v.where} AND seq < ? ORDER BY seq DESC LIMIT ?`).all(
    v.value,
    before,
    page.limit + 1,
  ) as Row[];
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  return {
    rows: kept,
    nextCursor: rows.length > page.limit && last ? encodeCursor(listName, last.seq) : null,
  };
}

/** A nullable JSON column of a lane's launch row as the spec shape it holds (src/store/migrations.ts). */
export function parsedColumn<T>(json: string | null): T | null {
  return json === null ? null : (JSON.parse(json) as T);
}
