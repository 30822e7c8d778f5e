import { randomUUID } from 'node:crypto';
import type { PartnerSubkeyListV1, PartnerSubkeyRequestV1, PartnerSubkeyV1 } from '../../../generated/types/service.ts';
import { hashKey, insertKey, newApiKey, type Principal } from '../../auth/keys.ts';
import { sha256Digest } from '../../core/canonical-json.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { idempotentWrite, recordAnswer } from '../idempotency.ts';

/** Generated from spec/schemas/partner-subkey*.schema.json. */
type SubkeyView = PartnerSubkeyListV1['items'][number];

/** Subkeys one root may hold over its lifetime, rotations included: the list is unpaged and always complete. */
export const maxSubkeysPerRoot = 1000;

interface SubkeyRow {
  key_id: string;
  lineage_id: string;
  display_name: string;
  scopes: string;
  prepare_per_hour: number;
  read_per_minute: number;
  expires_at: string;
  created_at: string;
  revoked_at: string | null;
  revoke_reason: 'revoked' | 'rotated' | null;
  rotated_from_key_id: string | null;
}

const subkeySelect = `SELECT key_id, lineage_id, display_name, scopes, prepare_per_hour, read_per_minute, expires_at,
  created_at, revoked_at, revoke_reason, rotated_from_key_id FROM api_keys WHERE kind = 'subkey' AND issuer_key_id = ?`;

/**
 * Partner subkey administration for one partner root (spec/openapi/paths/partner-subkeys.yaml listPartnerSubkeys,
 * issuePartnerSubkey; partner-subkey.yaml revokePartnerSubkey; partner-subkey-rotate.yaml rotatePartnerSubkey).
 * Only a partner root holds partner-subkeys:manage. A subkey is an api_keys row of kind `subkey` stored as
 * a hash only; its secret exists in the one 201 answer and nowhere else (not in the idempotency record, not in a
 * log). Issue, rotate and revoke each commit in one immediate transaction before they answer.
 */
export class SubkeyService {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** listPartnerSubkeys: every subkey the root issued, newest first, without secrets. */
  list(root: Principal): PartnerSubkeyListV1 {
    const rows = statement(this.db, `${subkeySelect} ORDER BY created_at DESC, rowid DESC`).all(
      rootOf(root).keyId,
    ) as SubkeyRow[];
    const nowMs = this.now();
    return { items: rows.map((row) => viewOf(row, nowMs)) };
  }

  /**
   * issuePartnerSubkey: a new subkey in a new isolated lineage. 201 with the one-time apiKey; the same
   * Idempotency-Key with the same bytes replays the first answer as 200 with `already-delivered` and no key; with
   * other bytes 409 IDEMPOTENCY_CONFLICT.
   */
  issue(root: Principal, input: { idempotencyKey: string; request: PartnerSubkeyRequestV1; rawBody: Buffer }) {
    const idem = {
      keyId: rootOf(root).keyId,
      operation: 'issuePartnerSubkey',
      idempotencyKey: input.idempotencyKey,
      requestDigest: sha256Digest(input.rawBody),
    };
    return idempotentWrite(this.db, idem, {
      check: () => checkBounds(root, input.request, this.now()),
      first: () => this.insert(root, input.request, { lineageId: randomUUID(), rotatedFrom: null }, idem),
    });
  }

  /**
   * rotatePartnerSubkey: in one transaction, revokes the subkey (reason `rotated`) and issues its replacement in the
   * same lineage. Only a subkey that is not yet revoked rotates (409 SUBKEY_REVOKED), so of concurrent rotations of
   * one subkey exactly one commits. The idempotency digest binds the subkeyId and the bytes.
   */
  rotate(
    root: Principal,
    subkeyId: string,
    input: { idempotencyKey: string; request: PartnerSubkeyRequestV1; rawBody: Buffer },
  ) {
    const idem = {
      keyId: rootOf(root).keyId,
      operation: 'rotatePartnerSubkey',
      idempotencyKey: input.idempotencyKey,
      requestDigest: sha256Digest(Buffer.concat([Buffer.from(`${subkeyId}\n`), input.rawBody])),
    };
    return idempotentWrite(this.db, idem, {
      check: () => checkBounds(root, input.request, this.now()),
      first: () => {
        const old = this.find(root, subkeyId);
        if (old.revoked_at !== null) {
          throw new ApiError('SUBKEY_REVOKED', {
            message: `Subkey ${subkeyId} is already ${old.revoke_reason ?? 'revoked'}; rotate its current replacement.`,
          });
        }
        const at = new Date(this.now()).toISOString();
        const revoked = statement(
          this.db,
          `UPDATE api_keys SET revoked_at = ?, revoke_reason = 'rotated' WHERE key_id = ? AND revoked_at IS NULL`,
        ).run(at, subkeyId);
        if (revoked.changes !== 1) throw new Error(`rotation of ${subkeyId} found it revoked inside its transaction`);
        return this.insert(root, input.request, { lineageId: old.lineage_id, rotatedFrom: subkeyId }, idem);
      },
    });
  }

  /** revokePartnerSubkey: revokes at once (its key answers 401 from the commit); idempotent on a revoked subkey. */
  revoke(root: Principal, subkeyId: string): PartnerSubkeyV1 {
    return this.db
      .transaction(() => {
        const row = this.find(root, subkeyId);
        if (row.revoked_at === null) {
          const at = new Date(this.now()).toISOString();
          statement(this.db, `UPDATE api_keys SET revoked_at = ?, revoke_reason = 'revoked' WHERE key_id = ?`).run(
            at,
            subkeyId,
          );
          row.revoked_at = at;
          row.revoke_reason = 'revoked';
        }
        return { ...viewOf(row, this.now()), secretState: 'already-delivered' as const, apiKey: null };
      })
      .immediate();
  }

  private find(root: Principal, subkeyId: string): SubkeyRow {
    const row = statement(this.db, `${subkeySelect} AND key_id = ?`).get(rootOf(root).keyId, subkeyId) as
      | SubkeyRow
      | undefined;
    if (!row) throw new ApiError('NOT_FOUND', { message: `No subkey ${subkeyId} under this partner root.` });
    return row;
  }

  /** Inserts the subkey and records its replay answer (without the secret); returns the 201 body with it. */
  private insert(
    root: Principal,
    request: PartnerSubkeyRequestV1,
    lineage: { lineageId: string; rotatedFrom: string | null },
    idem: Parameters<typeof recordAnswer>[1],
  ): { status: 201; body: string } {
    const { n } = statement(this.db, `SELECT count(*) AS n FROM api_keys WHERE issuer_key_id = ?`).get(root.keyId) as {
      n: number;
    };
    if (n >= maxSubkeysPerRoot) throw new ApiError('SUBKEY_LIMIT_REACHED');
    const apiKey = newApiKey();
    const row: SubkeyRow = {
      key_id: randomUUID(),
      lineage_id: lineage.lineageId,
      display_name: request.displayName,
      scopes: JSON.stringify([...new Set(request.scopes)]),
      prepare_per_hour: request.prepareRequestsPerHour,
      read_per_minute: request.readRequestsPerMinute,
      expires_at: request.expiresAt,
      created_at: new Date(this.now()).toISOString(),
      revoked_at: null,
      revoke_reason: null,
      rotated_from_key_id: lineage.rotatedFrom,
    };
    insertKey(this.db, {
      principal: {
        keyId: row.key_id,
        kind: 'subkey',
        wallet: null,
        scopes: JSON.parse(row.scopes),
        chains: root.chains,
        lineageId: row.lineage_id,
        partnerId: root.partnerId,
        budgets: {
          prepareRequestsPerHour: row.prepare_per_hour,
          readRequestsPerMinute: row.read_per_minute,
          subkeyAdminRequestsPerHour: null,
        },
        expiresAt: row.expires_at,
      },
      keyHash: hashKey(apiKey),
      createdAt: row.created_at,
      displayName: row.display_name,
      issuerKeyId: root.keyId,
      rotatedFromKeyId: row.rotated_from_key_id,
    });
    const view = viewOf(row, this.now());
    recordAnswer(
      this.db,
      idem,
      { status: 200, body: JSON.stringify({ ...view, secretState: 'already-delivered', apiKey: null }) },
      row.created_at,
    );
    return { status: 201, body: JSON.stringify({ ...view, secretState: 'delivered-once', apiKey }) };
  }
}

/** Only a partner root administers subkeys; the scope check already keeps everyone else out. */
function rootOf(principal: Principal): Principal {
  if (principal.kind !== 'partner-root' || principal.partnerId === null) {
    throw new ApiError('INSUFFICIENT_SCOPE', { message: 'Only a partner root administers subkeys.' });
  }
  return principal;
}

/**
 * The rules no schema states: the expiry lies in the future (400 INVALID_REQUEST), and the child's scopes, budgets
 * and expiry stay within the root's (400 SUBKEY_BOUNDS_EXCEEDED, every excess listed). The schema already keeps
 * partner-subkeys:manage out of a child's scopes.
 */
function checkBounds(root: Principal, request: PartnerSubkeyRequestV1, nowMs: number): void {
  const expiresMs = Date.parse(request.expiresAt);
  if (!(expiresMs > nowMs)) {
    throw new ApiError('INVALID_REQUEST', {
      message: 'expiresAt must lie in the future.',
      issues: [{ location: '/expiresAt', message: `must be after ${new Date(nowMs).toISOString()}` }],
    });
  }
  const issues: Array<{ location: string; message: string }> = [];
  const rootScopes = rootOf(root).scopes as string[];
  request.scopes.forEach((scope, i) => {
    if (!rootScopes.includes(scope)) issues.push({ location: `/scopes/${i}`, message: `the root lacks ${scope}` });
  });
  const budgets = root.budgets;
  if (budgets && request.prepareRequestsPerHour > budgets.prepareRequestsPerHour) {
    issues.push({
      location: '/prepareRequestsPerHour',
      message: `exceeds the root's prepareRequestsPerHour ${budgets.prepareRequestsPerHour}`,
    });
  }
  if (budgets && request.readRequestsPerMinute > budgets.readRequestsPerMinute) {
    issues.push({
      location: '/readRequestsPerMinute',
      message: `exceeds the root's readRequestsPerMinute ${budgets.readRequestsPerMinute}`,
    });
  }
  if (root.expiresAt !== null && expiresMs > Date.parse(root.expiresAt)) {
    issues.push({ location: '/expiresAt', message: `is after the root's expiry ${root.expiresAt}` });
  }
  if (issues.length > 0) {
    throw new ApiError('SUBKEY_BOUNDS_EXCEEDED', {
      message: `A subkey cannot exceed the partner root's scopes, budgets or expiry: ${issues
        .map((i) => `${i.location} ${i.message}`)
        .join('; ')}.`,
      issues,
    });
  }
}

/** The public view of a subkey row: never the secret or its hash. */
function viewOf(row: SubkeyRow, nowMs: number): SubkeyView {
  const status: SubkeyView['status'] =
    row.revoked_at !== null
      ? (row.revoke_reason ?? 'revoked')
      : Date.parse(row.expires_at) <= nowMs
        ? 'expired'
        : 'active';
  return {
    schemaVersion: 'platform.partner-subkey.v1',
    subkeyId: row.key_id,
    lineageId: row.lineage_id,
    displayName: row.display_name,
    scopes: JSON.parse(row.scopes) as SubkeyView['scopes'],
    budgets: { prepareRequestsPerHour: row.prepare_per_hour, readRequestsPerMinute: row.read_per_minute },
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    status,
    rotatedFromSubkeyId: row.rotated_from_key_id,
  };
}
