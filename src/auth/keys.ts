import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { statement } from '../store/statements.ts';

/** Scopes a key may hold (launch-transport.md Authentication 3; modules-subkeys-developer-api.md Authentication). */
export const grantableScopes = [
  'custom-launch:create',
  'custom-launch:read',
  'partner-subkeys:manage',
  'modules:submit',
  'modules:read',
] as const;
/** Reserved scopes: named by the reference, disabled, never granted. */
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
}

const keyPrefix = 'clk_';
const keyPattern = /^clk_[A-Za-z0-9_-]{43}$/;

/** SHA-256 hex of a key: the only form in which a key is stored. */
export function hashKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/**
 * Mints a wallet-bound key and stores only its hash. Returns the key once; it cannot be recovered later.
 * Spec: launch-transport.md Authentication 4-5.
 */
export function mintWalletKey(
  db: Db,
  input: { wallet: string; scopes: readonly string[]; chains: readonly string[] },
): { apiKey: string; principal: Principal } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(input.wallet)) throw new Error(`--wallet must be a 0x address, got ${input.wallet}`);
  const scopes = checkScopes(input.scopes);
  const chains = [...new Set(input.chains)];
  for (const chain of chains) {
    if (!(grantableChains as readonly string[]).includes(chain)) {
      throw new Error(`unknown chain ${chain}; grantable chains: ${grantableChains.join(', ')}`);
    }
  }
  if (chains.length === 0) throw new Error('at least one chain grant is required (--chains 4663)');
  const apiKey = keyPrefix + randomBytes(32).toString('base64url');
  const keyId = randomUUID();
  const principal: Principal = {
    keyId,
    kind: 'wallet',
    wallet: input.wallet.toLowerCase(),
    scopes,
    chains,
    lineageId: keyId,
    partnerId: null,
  };
  statement(
    db,
    `INSERT INTO api_keys (key_id, key_hash, kind, wallet, scopes, chains, lineage_id, partner_id, created_at)
     VALUES (?, ?, 'wallet', ?, ?, ?, ?, NULL, ?)`,
  ).run(
    keyId,
    hashKey(apiKey),
    principal.wallet,
    JSON.stringify(scopes),
    JSON.stringify(chains),
    keyId,
    new Date().toISOString(),
  );
  return { apiKey, principal };
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

interface KeyRow {
  key_id: string;
  kind: Principal['kind'];
  wallet: string | null;
  scopes: string;
  chains: string;
  lineage_id: string;
  partner_id: string | null;
  revoked_at: string | null;
}

/** Finds the active principal for a presented key, or null when the key is unknown, malformed or revoked. */
export function findPrincipal(db: Db, apiKey: string): Principal | null {
  if (!keyPattern.test(apiKey)) return null;
  const row = statement(
    db,
    'SELECT key_id, kind, wallet, scopes, chains, lineage_id, partner_id, revoked_at FROM api_keys WHERE key_hash = ?',
  ).get(hashKey(apiKey)) as KeyRow | undefined;
  if (!row || row.revoked_at !== null) return null;
  return {
    keyId: row.key_id,
    kind: row.kind,
    wallet: row.wallet,
    scopes: JSON.parse(row.scopes) as Scope[],
    chains: JSON.parse(row.chains) as string[],
    lineageId: row.lineage_id,
    partnerId: row.partner_id,
  };
}
