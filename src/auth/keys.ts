import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { readCacheOf } from '../store/read-cache.ts';
import { statement } from '../store/statements.ts';

/** Scopes a key may hold: those of spec/openapi/service.openapi.yaml `bearerAuth` that each operation lists. */
export const grantableScopes = [
  'custom-launch:create',
  'custom-launch:read',
  'partner-subkeys:manage',
  'modules:submit',
  'modules:read',
] as const;
/** Scopes a wallet key may hold: every grantable scope except partner-subkeys:manage, which only a partner root holds. */
export const walletScopes = grantableScopes.filter((s) => s !== 'partner-subkeys:manage');
/** The scopes of a partner root (admin `partners create`): subkey administration and the launch scopes. */
export const partnerRootScopes = ['partner-subkeys:manage', 'custom-launch:create', 'custom-launch:read'] as const;
/** Reserved scopes: named by spec/openapi/service.openapi.yaml `bearerAuth`, disabled, never granted. */
export const reservedScopes = ['fees:claim', 'buybacks:manage'] as const;
export type Scope = (typeof grantableScopes)[number];
/** Chains a key may be granted. Only chain 4663 has a V4 lane; chain 1 is the base layer. */
export const grantableChains = ['4663', '1'] as const;

/** The authenticated caller, as derived from its key row. Never carries the key itself. */
export interface Principal {
  keyId: string;
  kind: 'wallet' | 'partner-root' | 'subkey';
  wallet: string | null;
  scopes: Scope[];
  chains: string[];
  lineageId: string;
  partnerId: string | null;
  /** A partner credential's budgets (root or subkey); null for a wallet key. */
  budgets: PartnerBudgetLimits | null;
  /** Expiry of a partner credential, UTC ISO with milliseconds; null when the key does not expire. */
  expiresAt: string | null;
}

/** The request budgets of a partner credential (spec/schemas/partner-subkey-request.v1.schema.json). */
export interface PartnerBudgetLimits {
  prepareRequestsPerHour: number;
  readRequestsPerMinute: number;
  /** The root's budget for subkey administration; null on a subkey. */
  subkeyAdminRequestsPerHour: number | null;
}

const keyPrefix = 'clk_';
const keyPattern = /^clk_[A-Za-z0-9_-]{43}$/;

export { redactKeys } from '../core/key-redaction.ts';

/** SHA-256 hex of a key: the only form in which a key is stored. */
export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/**
 * Mints a wallet-bound key and stores only its hash. Returns the key once; it cannot be recovered later.
 * The key is bound to one wallet, which every request's `launchWallet` must equal, and to its chain grants (4663);
 * a grant does not select the chain (spec/openapi/service.openapi.yaml `bearerAuth`; createCustomLaunchV4).
 */
export function mintWalletKey(
  db: Db,
  input: { wallet: string; scopes: readonly string[]; chains: readonly string[] },
): { apiKey: string; principal: Principal } {
  const wallet = checkWallet(input.wallet);
  const scopes = checkScopes(input.scopes);
  if (scopes.includes('partner-subkeys:manage')) {
    throw new Error('partner-subkeys:manage is held only by a partner root: use `partners create`');
  }
  const chains = checkChains(input.chains);
  const apiKey = newApiKey();
  const keyId = randomUUID();
  const principal: Principal = {
    keyId,
    kind: 'wallet',
    wallet,
    scopes,
    chains,
    lineageId: keyId,
    partnerId: null,
    budgets: null,
    expiresAt: null,
  };
  insertKey(db, { principal, keyHash: hashKey(apiKey), createdAt: new Date().toISOString() });
  return { apiKey, principal };
}

/**
 * Stores one key: its principal, the key's hash (never the key), and for a subkey its display name, issuing root and
 * the subkey it replaced. The one INSERT of api_keys.
 */
export function insertKey(
  db: Db,
  row: {
    principal: Principal;
    keyHash: string;
    createdAt: string;
    displayName?: string;
    issuerKeyId?: string;
    rotatedFromKeyId?: string | null;
  },
): void {
  const p = row.principal;
  statement(
    db,
    `INSERT INTO api_keys (key_id, key_hash, kind, wallet, scopes, chains, lineage_id, partner_id, created_at,
       display_name, expires_at, prepare_per_hour, read_per_minute, subkey_admin_per_hour, issuer_key_id,
       rotated_from_key_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.keyId,
    row.keyHash,
    p.kind,
    p.wallet,
    JSON.stringify(p.scopes),
    JSON.stringify(p.chains),
    p.lineageId,
    p.partnerId,
    row.createdAt,
    row.displayName ?? null,
    p.expiresAt,
    p.budgets?.prepareRequestsPerHour ?? null,
    p.budgets?.readRequestsPerMinute ?? null,
    p.budgets?.subkeyAdminRequestsPerHour ?? null,
    row.issuerKeyId ?? null,
    row.rotatedFromKeyId ?? null,
  );
}

/** A 0x wallet address, or the error naming the flag. */
function checkWallet(wallet: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new Error(`--wallet must be a 0x address, got ${wallet}`);
  return wallet.toLowerCase();
}

/** A fresh bearer key: the prefix and 32 random bytes. Shown once; only its hash is ever stored. */
export function newApiKey(): string {
  return keyPrefix + randomBytes(32).toString('base64url');
}

function checkChains(requested: readonly string[]): string[] {
  const chains = [...new Set(requested)];
  for (const chain of chains) {
    if (!(grantableChains as readonly string[]).includes(chain)) {
      throw new Error(`unknown chain ${chain}; grantable chains: ${grantableChains.join(', ')}`);
    }
  }
  if (chains.length === 0) throw new Error('at least one chain grant is required (--chains 4663)');
  return chains;
}

/** What `partners create` needs: the partner, its chain grants, and the root's expiry and budgets. */
export interface PartnerRootInput {
  name: string;
  wallet: string;
  chains: readonly string[];
  expiresAt: string;
  budgets: { prepareRequestsPerHour: number; readRequestsPerMinute: number; subkeyAdminRequestsPerHour: number };
  now: number;
}

/** The bounds of a root's budgets: the same design maxima as a subkey's (partner-subkey-request.v1). */
export const rootBudgetMaxima = {
  prepareRequestsPerHour: 100_000,
  readRequestsPerMinute: 10_000,
  subkeyAdminRequestsPerHour: 100_000,
} as const;

/**
 * Creates a partner and its root key (kind partner-root, its own lineage, the partner's id), storing only the key's
 * hash. The root holds partner-subkeys:manage and both launch scopes. Returns the key once.
 * A partner root alone holds partner-subkeys:manage and reads every launch attributed to its partner
 * (spec/openapi/paths/partner-subkeys.yaml issuePartnerSubkey; v4-custom-launches.yaml listCustomLaunchesV4).
 */
export function mintPartnerRoot(
  db: Db,
  input: PartnerRootInput,
): { apiKey: string; partnerId: string; principal: Principal } {
  const name = input.name.trim();
  const control = [...name].some((c) => (c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f');
  if (name.length === 0 || name.length > 64 || control) {
    throw new Error('--name must be 1 to 64 characters without control characters');
  }
  const wallet = checkWallet(input.wallet);
  const chains = checkChains(input.chains);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/.test(input.expiresAt)) {
    throw new Error(`--expires-at must be UTC with milliseconds (2027-01-01T00:00:00.000Z), got ${input.expiresAt}`);
  }
  const expiresMs = Date.parse(input.expiresAt);
  if (Number.isNaN(expiresMs) || new Date(expiresMs).toISOString() !== input.expiresAt) {
    throw new Error(`--expires-at ${input.expiresAt} is not a calendar time`);
  }
  if (expiresMs <= input.now) throw new Error(`--expires-at ${input.expiresAt} is not in the future`);
  for (const [name, max] of Object.entries(rootBudgetMaxima)) {
    const value = input.budgets[name as keyof typeof rootBudgetMaxima];
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`${name} must be an integer from 1 to ${max}, got ${value}`);
    }
  }
  const apiKey = newApiKey();
  const keyId = randomUUID();
  const partnerId = randomUUID();
  const principal: Principal = {
    keyId,
    kind: 'partner-root',
    wallet,
    scopes: [...partnerRootScopes],
    chains,
    lineageId: keyId,
    partnerId,
    budgets: { ...input.budgets },
    expiresAt: input.expiresAt,
  };
  insertKey(db, {
    principal,
    keyHash: hashKey(apiKey),
    createdAt: new Date(input.now).toISOString(),
    displayName: name,
  });
  return { apiKey, partnerId, principal };
}

function checkScopes(requested: readonly string[]): Scope[] {
  const scopes = [...new Set(requested)];
  if (scopes.length === 0) throw new Error('at least one scope is required');
  for (const scope of scopes) {
    if ((reservedScopes as readonly string[]).includes(scope))
      throw new Error(`scope ${scope} is reserved and disabled`);
    if (!(grantableScopes as readonly string[]).includes(scope)) {
      throw new Error(`unknown scope ${scope}; grantable scopes: ${grantableScopes.join(', ')}`);
    }
  }
  return scopes as Scope[];
}

/**
 * Revokes a wallet key (the operator's `keys revoke`): from the commit on it answers 401 UNAUTHENTICATED. Its launches
 * stay readable by every other key of the wallet (spec/openapi/service.openapi.yaml `bearerAuth`). Revoking a revoked
 * key changes nothing and returns its first revocation time. Throws for an unknown key id or a partner credential
 * (subkeys are revoked by their root, deletePartnerSubkey).
 */
export function revokeWalletKey(
  db: Db,
  keyId: string,
  nowMs: number,
): { keyId: string; wallet: string; revokedAt: string } {
  const row = statement(db, 'SELECT kind, wallet, revoked_at FROM api_keys WHERE key_id = ?').get(keyId) as
    | { kind: Principal['kind']; wallet: string; revoked_at: string | null }
    | undefined;
  if (!row) throw new Error(`no key ${keyId}`);
  if (row.kind !== 'wallet') throw new Error(`key ${keyId} is a ${row.kind}, not a wallet key`);
  if (row.revoked_at !== null) return { keyId, wallet: row.wallet, revokedAt: row.revoked_at };
  const revokedAt = new Date(nowMs).toISOString();
  statement(db, `UPDATE api_keys SET revoked_at = ?, revoke_reason = 'revoked' WHERE key_id = ?`).run(revokedAt, keyId);
  return { keyId, wallet: row.wallet, revokedAt };
}

interface KeyRow {
  key_id: string;
  kind: Principal['kind'];
  wallet: string | null;
  scopes: string;
  chains: string;
  lineage_id: string;
  partner_id: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  prepare_per_hour: number | null;
  read_per_minute: number | null;
  subkey_admin_per_hour: number | null;
}

/**
 * Finds the active principal for a presented key, or null when the key is unknown, malformed, revoked (a rotation
 * revokes too) or expired at `nowMs`. Read on every request, so a revocation takes effect at its commit.
 */
export function findPrincipal(db: Db, apiKey: string, nowMs: number): Principal | null {
  if (!keyPattern.test(apiKey)) return null;
  const keyHash = hashKey(apiKey);
  // Served again until anything is written to the file, so a revocation still takes effect at its commit.
  const row = readCacheOf(db).get(`api_keys:${keyHash}`, () =>
    statement(
      db,
      `SELECT key_id, kind, wallet, scopes, chains, lineage_id, partner_id, revoked_at, expires_at, prepare_per_hour,
         read_per_minute, subkey_admin_per_hour FROM api_keys WHERE key_hash = ?`,
    ).get(keyHash),
  ) as KeyRow | undefined;
  if (!row || row.revoked_at !== null) return null;
  if (row.expires_at !== null && Date.parse(row.expires_at) <= nowMs) return null;
  return {
    keyId: row.key_id,
    kind: row.kind,
    wallet: row.wallet,
    scopes: JSON.parse(row.scopes) as Scope[],
    chains: JSON.parse(row.chains) as string[],
    lineageId: row.lineage_id,
    partnerId: row.partner_id,
    budgets:
      row.prepare_per_hour !== null && row.read_per_minute !== null
        ? {
            prepareRequestsPerHour: row.prepare_per_hour,
            readRequestsPerMinute: row.read_per_minute,
            subkeyAdminRequestsPerHour: row.subkey_admin_per_hour,
          }
        : null,
    expiresAt: row.expires_at,
  };
}
