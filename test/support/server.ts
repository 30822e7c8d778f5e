import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { mintPartnerRoot, mintWalletKey, type PartnerRootInput } from '../../src/auth/keys.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import type { EvidenceStateKind } from '../../src/domain/public/deployment-evidence-check.ts';
import { createApp, keepIdleConnections } from '../../src/http/app.ts';
import { answerClientErrors } from '../../src/http/client-error.ts';
import type { OperationHandler } from '../../src/http/operation.ts';
import type { RequestObserver } from '../../src/http/request-observer.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';

/** The devnet's first funded account: the example requests' launchWallet. */
export const exampleWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A real server over real HTTP on 127.0.0.1 with its own SQLite file, one per test file. */
export interface TestServer {
  url: string;
  db: Db;
  dir: string;
  config: Config;
  /** Mints a wallet key straight into this server's database. */
  key(input?: { wallet?: string; scopes?: string[]; chains?: string[] }): string;
  /** Creates a partner and its root key straight into this server's database (defaults: generous budgets, 2031). */
  partnerRoot(
    input?: Partial<Omit<PartnerRootInput, 'budgets'>> & { budgets?: Partial<PartnerRootInput['budgets']> },
  ): {
    apiKey: string;
    partnerId: string;
    keyId: string;
  };
  close(): Promise<void>;
}

/** Starts a fresh app; `overrides` replace configuration values (limits made small for boundary tests). */
export async function startServer(
  overrides: Partial<Config> = {},
  now?: () => number,
  operations?: Record<string, OperationHandler>,
  /** The bound deployment evidence's state, as a server bound to a chain deployment reports it. */
  evidence?: () => EvidenceStateKind,
  /** Called once per answered request, as the request log of `npm start` is (src/http/request-log.ts). */
  observe?: RequestObserver,
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'custom-launch-test-'));
  const config: Config = {
    ...loadConfig({ CI: 'true' }),
    databasePath: join(dir, 'test.sqlite'),
    validateResponses: true,
    ...overrides,
  };
  const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
  const app = createApp({
    db,
    config,
    ...(now ? { now } : {}),
    ...(operations ? { operations } : {}),
    ...(evidence ? { evidence } : {}),
    ...(observe ? { observe } : {}),
  });
  const { server, url } = await listenOnLoopback(app, { timeouts: config.http });
  return {
    url,
    db,
    dir,
    config,
    key: (input = {}) =>
      mintWalletKey(db, {
        wallet: input.wallet ?? exampleWallet,
        scopes: input.scopes ?? ['custom-launch:create', 'custom-launch:read'],
        chains: input.chains ?? ['4663'],
      }).apiKey,
    partnerRoot: (input = {}) => {
      const { apiKey, partnerId, principal } = mintPartnerRoot(db, {
        name: input.name ?? 'Acme launches',
        wallet: input.wallet ?? exampleWallet,
        chains: input.chains ?? ['4663'],
        expiresAt: input.expiresAt ?? '2031-12-31T23:59:59.999Z',
        now: input.now ?? (now ? now() : Date.now()),
        budgets: {
          prepareRequestsPerHour: 1000,
          readRequestsPerMinute: 1000,
          subkeyAdminRequestsPerHour: 1000,
          ...input.budgets,
        },
      });
      return { apiKey, partnerId, keyId: principal.keyId };
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Serves an Express app on a free 127.0.0.1 port as src/main.ts serves it: idle connections kept, the timeouts of
 * `options.timeouts`, and Node's own refusals answered with an ApiError (plus `options.errorHeaders`).
 */
export async function listenOnLoopback(
  app: Express,
  options: { timeouts?: Config['http']; errorHeaders?: Record<string, string> } = {},
): Promise<{ server: Server; url: string }> {
  const server = answerClientErrors(
    keepIdleConnections(app.listen(0, '127.0.0.1'), options.timeouts),
    options.errorHeaders,
  );
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/** The raw bytes of a spec example. */
export function exampleBytes(name: string): string {
  return readFileSync(new URL(`../../spec/examples/${name}`, import.meta.url), 'utf8');
}

/** A parsed copy of a spec example. */
export function example<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(exampleBytes(name)) as T;
}

/** The V4 4.1.0 create example, parsed. */
export const v4Example = 'custom-launch-create-request.v4.json';
export const v4FrozenExample = 'custom-launch-create-request.v4--profile-4.0.0.json';

/**
 * The bytes of a V4 example as a new intent: a fresh nonce (for 4.1.0 fresh entropy, the funding nonce derived from
 * it) and every hash bound again, so a server that holds one launch per intent takes it as a new launch.
 */
export function freshV4Bytes(
  name: string = v4Example,
  edit: (request: CustomLaunchCreateRequestV4) => void = () => {},
): string {
  const request = example<CustomLaunchCreateRequestV4>(name);
  request.nonce = freshNonce();
  edit(request);
  return JSON.stringify(bindRequestHashes(request));
}

const bytesByIdempotencyKey = new Map<string, string>();
/**
 * A V4 create body per Idempotency-Key: a new intent (freshV4Bytes of the 4.1.0 example) the first time a key is
 * named, the same bytes again for it (an exact replay).
 */
export function v4BytesFor(idempotencyKey: string): string {
  let bytes = bytesByIdempotencyKey.get(idempotencyKey);
  if (bytes === undefined) {
    bytes = freshV4Bytes();
    bytesByIdempotencyKey.set(idempotencyKey, bytes);
  }
  return bytes;
}

/** An edit for freshV4Bytes: the request's controller (launchWallet and the initial buy's recipient) is `wallet`. */
export const controlledBy =
  (wallet: string) =>
  (request: CustomLaunchCreateRequestV4): void => {
    request.launchWallet = wallet;
    if (request.profile === '4.1.0') request.fundingPlan.initialBuy.recipient = wallet;
  };

/** A random V4 request nonce (for 4.1.0 its entropy half; bindRequestHashes derives the rest). */
export const freshNonce = (): string => `0x${randomBytes(32).toString('hex')}`;

/** A wallet nobody else in a test uses: 20 random bytes (a key of it sees none of the example wallet's launches). */
export function freshWallet(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

/** An external contract reference nobody bound: a made-up code hash, checkpoint and evidence. */
export const unboundReference = {
  referenceId: 'permit2',
  chainId: '4663' as const,
  address: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  runtimeCodeHash: `0x${'ab'.repeat(32)}`,
  sourceVerification: {
    provider: 'sourcify',
    evidenceUri: 'https://sourcify.dev/server/v2/contract/4663/0x000000000022D473030F116dDEE9F6B43aC78BA3',
    evidenceDigest: `sha256:${'cd'.repeat(32)}`,
  },
  graphRole: 'auxiliary' as const,
  checkpoint: { blockNumber: '64', blockHash: `0x${'ef'.repeat(32)}` },
};

/**
 * The 4.1.0 example with `unboundReference`, rebound as a new intent (a fresh nonce each call): exactly one blocking
 * finding, EXTERNAL_REFERENCE_UNBOUND.
 */
export function exampleWithUnboundReference(): string {
  return freshV4Bytes(v4Example, (request) => {
    request.externalContracts = [structuredClone(unboundReference)];
  });
}

let subkeys = 0;
/** Issues a subkey of a partner root over HTTP (createPartnerSubkey) with the launch scopes; returns its key. */
export async function issueSubkey(s: TestServer, rootKey: string): Promise<string> {
  const res = await fetch(`${s.url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${rootKey}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `issue-subkey-${String(++subkeys).padStart(6, '0')}-${Date.now()}`,
    },
    body: JSON.stringify({
      displayName: 'launch bot',
      scopes: ['custom-launch:create', 'custom-launch:read'],
      prepareRequestsPerHour: 120,
      readRequestsPerMinute: 60,
      expiresAt: '2030-12-31T23:59:59.000Z',
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`subkey issue answered ${res.status}: ${text}`);
  return (JSON.parse(text) as { apiKey: string }).apiKey;
}

/**
 * Mints a chain-4663 wallet key of the example wallet into the SQLite file at `path` (created and migrated if new),
 * for server processes started on that file; returns the key.
 */
export function walletKeyInFile(path: string, scopes: string[] = ['custom-launch:create']): string {
  const setup = openDatabase(path);
  const { apiKey } = mintWalletKey(setup, { wallet: exampleWallet, scopes, chains: ['4663'] });
  setup.close();
  return apiKey;
}
