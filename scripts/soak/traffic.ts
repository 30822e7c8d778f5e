/*
 * The soak's mixed traffic: SOAK_CONNECTIONS loops, each sending one request at a time, its kind drawn by weight.
 * Creates are paced by a token bucket (every create a distinct intent); a create the chain driver takes on chain
 * gets its own hook salt and its sources delivered; subkey issue and rotation are paced too (a root holds at most
 * 1000 subkeys over its lifetime). Everything else is reads, lists, preflights, module submissions and public reads.
 */
import { randomUUID } from 'node:crypto';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { manifestFiles } from '../../src/client/launches/sources.ts';
import { moduleSubmission } from '../../test/support/modules.ts';
import type { Answer, Recorder } from './recorder.ts';
import { exampleProject, freshIntent, type Intent } from './requests.ts';
import type { SoakStack } from './stack.ts';

/** A token bucket: `rate` tokens a second, holding at most max(1, rate). */
export function bucket(rate: number) {
  const capacity = Math.max(1, rate);
  let tokens = capacity;
  let at = Date.now();
  return () => {
    const now = Date.now();
    tokens = Math.min(capacity, tokens + ((now - at) / 1000) * rate);
    at = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

interface Subkey {
  subkeyId: string;
  apiKey: string;
  launches: string[];
}

/** Who created which launch, and what the traffic can read or replay. */
export interface TrafficState {
  walletLaunches: string[];
  subkeys: Subkey[];
  subkeysIssued: number;
  replays: Array<{ key: string; owner: Subkey | null; bytes: string }>;
  modules: string[];
  /** Every launch a create answered 202 for, with its creator: a subkey (its lineage's current key reads it) or null
   * for the wallet key. */
  launches: Map<string, { owner: Subkey | null; onChain: boolean }>;
}

/** The key that reads what `owner` created: the subkey's current key (a rotation keeps the lineage), else the wallet's. */
export function ownerKey(stack: SoakStack, owner: Subkey | null): string {
  return owner ? owner.apiKey : stack.walletKey;
}

/** What the traffic needs from the chain driver: room for one more launch, and taking one. */
export interface ChainSlot {
  wants(): boolean;
  hookSalt(): `0x${string}` | undefined;
  take(launchId: string, request: CustomLaunchCreateRequestV4): void;
}

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];
const idem = (label: string) => `soak-${label}-${randomUUID()}`;
const json = (apiKey: string, extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${apiKey}`,
  'Content-Type': 'application/json',
  ...extra,
});
const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });
/** The most subkeys (issued and rotated) the soak asks of its root, below the lifetime limit of 1000. */
const subkeyLifetimeBudget = 950;
const subkeyBody = () =>
  JSON.stringify({
    displayName: `Soak bot ${randomUUID().slice(0, 8)}`,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    prepareRequestsPerHour: 100_000,
    readRequestsPerMinute: 10_000,
    expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  });

/** The soak's traffic against `stack`; `run(until)` drives the loops until the time `until` (ms). */
export function soakTraffic(input: {
  stack: SoakStack;
  recorder: Recorder;
  template: CustomLaunchCreateRequestV4;
  chain: ChainSlot;
  createsPerSecond: number;
  subkeyWritesPerSecond: number;
}) {
  const { stack, recorder, template, chain } = input;
  const v4 = `${stack.url}/v4/chains/4663`;
  const state: TrafficState = {
    walletLaunches: [],
    subkeys: [],
    subkeysIssued: 0,
    replays: [],
    modules: [],
    launches: new Map(),
  };
  const createToken = bucket(input.createsPerSecond);
  const subkeyToken = bucket(input.subkeyWritesPerSecond);
  const moduleToken = bucket(1);

  const create = async (kind: string, owner: Subkey | null, intent: Intent): Promise<string | null> => {
    const key = idem('create');
    const r = await recorder.send(kind, `${v4}/custom-launches`, {
      method: 'POST',
      headers: json(ownerKey(stack, owner), { 'Idempotency-Key': key }),
      body: intent.bytes,
    });
    if (r?.status !== 202 || !r.json.launchId) return null;
    state.replays.push({ key, owner, bytes: intent.bytes });
    if (state.replays.length > 32) state.replays.shift();
    return r.json.launchId;
  };

  const deliverSources = async (launchId: string, request: CustomLaunchCreateRequestV4) => {
    for (const file of manifestFiles(exampleProject, request)) {
      await recorder.send('source-file', `${v4}/custom-launches/${launchId}/source-files/${file.sha256}`, {
        method: 'PUT',
        headers: { ...bearer(stack.walletKey), 'Content-Type': 'application/octet-stream' },
        body: file.bytes,
      });
    }
  };

  const chainCreate = async (): Promise<boolean> => {
    if (!chain.wants()) return false;
    const salt = chain.hookSalt();
    if (!salt) return false;
    const intent = freshIntent(template, salt);
    const launchId = await create('create-chain', null, intent);
    if (!launchId) return true;
    state.launches.set(launchId, { owner: null, onChain: true });
    state.walletLaunches.push(launchId);
    await deliverSources(launchId, intent.request);
    chain.take(launchId, intent.request);
    return true;
  };

  const walletCreate = async () => {
    const launchId = await create('create', null, freshIntent(template));
    if (!launchId) return;
    state.launches.set(launchId, { owner: null, onChain: false });
    state.walletLaunches.push(launchId);
  };

  const subkeyCreate = async () => {
    const subkey = pick(state.subkeys);
    if (!subkey) return walletCreate();
    const launchId = await create('create-subkey', subkey, freshIntent(template));
    if (!launchId) return;
    state.launches.set(launchId, { owner: subkey, onChain: false });
    subkey.launches.push(launchId);
  };

  const replay = async () => {
    const r = pick(state.replays);
    if (!r) return walletCreate();
    // A subkey's replay goes under its lineage's current key, which a rotation may have replaced since the create.
    const answer = await recorder.send(r.owner ? 'create-replay-subkey' : 'create-replay', `${v4}/custom-launches`, {
      method: 'POST',
      headers: json(ownerKey(stack, r.owner), { 'Idempotency-Key': r.key }),
      body: r.bytes,
    });
    // Idempotency records are kept per key, not per lineage: after a rotation the replay is a new create.
    if (answer?.status === 202 && answer.json.launchId) {
      state.launches.set(answer.json.launchId, { owner: r.owner, onChain: false });
    }
  };

  /**
   * A stored launch's exact bytes under a new Idempotency-Key: the same intent again (same launchIntentHash, wallet
   * and nonce), which one launch per intent refuses with 409 LAUNCH_INTENT_CONFLICT.
   */
  const sameIntent = async () => {
    const r = pick(state.replays);
    if (!r) return readOwn();
    const answer = await recorder.send('create-same-intent', `${v4}/custom-launches`, {
      method: 'POST',
      headers: json(ownerKey(stack, r.owner), { 'Idempotency-Key': idem('same-intent') }),
      body: r.bytes,
    });
    // A server without the intent rule stores a second launch: follow it like any other.
    if (answer?.status === 202 && answer.json.launchId) {
      state.launches.set(answer.json.launchId, { owner: r.owner, onChain: false });
    }
  };

  const subkeyIssue = async () => {
    const r = await recorder.send('subkey-issue', `${stack.url}/v1/partner/subkeys`, {
      method: 'POST',
      headers: json(stack.partnerRootKey, { 'Idempotency-Key': idem('subkey') }),
      body: subkeyBody(),
    });
    state.subkeysIssued += 1;
    const { subkeyId, apiKey } = r?.json ?? {};
    if (r?.status === 201 && subkeyId && apiKey) state.subkeys.push({ subkeyId, apiKey, launches: [] });
  };

  const subkeyRotate = async () => {
    const subkey = pick(state.subkeys);
    if (!subkey) return subkeyIssue();
    state.subkeysIssued += 1;
    const r = await recorder.send('subkey-rotate', `${stack.url}/v1/partner/subkeys/${subkey.subkeyId}/rotate`, {
      method: 'POST',
      headers: json(stack.partnerRootKey, { 'Idempotency-Key': idem('rotate') }),
      body: subkeyBody(),
    });
    // Another loop may have rotated it first (409 SUBKEY_REVOKED): that loop holds the replacement.
    const { subkeyId, apiKey } = r?.json ?? {};
    if (r?.status === 201 && subkeyId && apiKey) Object.assign(subkey, { subkeyId, apiKey });
  };

  const moduleSubmit = async () => {
    const r = await recorder.send('module-submit', `${stack.url}/v1/modules/submissions`, {
      method: 'POST',
      headers: json(stack.walletKey, { 'Idempotency-Key': idem('module') }),
      body: JSON.stringify(moduleSubmission()),
    });
    if (r?.status === 201 && r.json.submissionId) state.modules.push(r.json.submissionId);
  };

  /** A list, its page size drawn when `limit` (the V4 lists), and half the time its next page. */
  const list = async (kind: string, url: string, apiKey: string, limit = true) => {
    const size = limit ? `limit=${1 + Math.floor(Math.random() * 25)}` : '';
    const r: Answer | null = await recorder.send(kind, size ? `${url}?${size}` : url, { headers: bearer(apiKey) });
    const cursor = r?.json?.nextCursor;
    if (typeof cursor === 'string' && Math.random() < 0.5) {
      const query = [size, `cursor=${encodeURIComponent(cursor)}`].filter(Boolean).join('&');
      await recorder.send(`${kind}-page`, `${url}?${query}`, { headers: bearer(apiKey) });
    }
  };

  const readOwn = async () => {
    const id = pick(state.walletLaunches);
    if (id) await recorder.send('read', `${v4}/custom-launches/${id}`, { headers: bearer(stack.walletKey) });
  };

  const readSubkey = async () => {
    const subkey = pick(state.subkeys);
    const id = subkey && pick(subkey.launches);
    if (!subkey || !id) return readOwn();
    await recorder.send('read-subkey', `${v4}/custom-launches/${id}`, { headers: bearer(subkey.apiKey) });
    // The root reads every launch of its partner.
    await recorder.send('read-root', `${v4}/custom-launches/${id}`, { headers: bearer(stack.partnerRootKey) });
  };

  const preflight = async () => {
    await recorder.send('preflight', `${v4}/custom-launches/preflight`, {
      method: 'POST',
      headers: json(stack.walletKey),
      body: freshIntent(template).bytes,
    });
  };

  const publicRead = async () => {
    const path = pick([
      '/readyz',
      '/.well-known/platform-custom-launch-discovery.json',
      '/v4/chains/4663/capabilities',
      '/v4/chains/4663/finalized-custom-launches?limit=10',
      '/v4/chains/4663/launch-coverage',
      '/v4/chains/4663/launch-guide',
      '/v4/chains/4663/multi-role-custom-launches/capabilities',
      '/v4/chains/4663/multi-role-custom-launches/finalized?limit=10',
      '/v3/capabilities',
      '/v3/finalized-custom-launches?limit=10',
    ]) as string;
    await recorder.send('public-read', `${stack.url}${path}`);
  };

  const developerRead = async () => {
    const path = pick(['/api/v2/status', '/api/v2/launches', '/api/v2/manifest', '/api/v2/token-list']) as string;
    await recorder.send('developer-read', `${stack.developersUrl}${path}`);
  };

  const moduleRead = async () => {
    const id = pick(state.modules);
    if (id && Math.random() < 0.5) {
      await recorder.send('module-read', `${stack.url}/v1/modules/submissions/${id}`, {
        headers: bearer(stack.walletKey),
      });
    } else {
      await list('module-list', `${stack.url}/v1/modules/submissions`, stack.walletKey, false);
    }
  };

  /** The weighted kinds of one step; paced kinds fall through to a read when their bucket is empty. */
  const step = async () => {
    const roll = Math.random() * 100;
    if (roll < 12) {
      if (await chainCreate()) return;
      if (!createToken()) return readOwn();
      return Math.random() < 0.7 ? walletCreate() : subkeyCreate();
    }
    if (roll < 13.5) return replay();
    if (roll < 14) return sameIntent();
    if (roll < 17) {
      if (!subkeyToken() || state.subkeysIssued >= subkeyLifetimeBudget) {
        return list('subkey-list', `${stack.url}/v1/partner/subkeys`, stack.partnerRootKey, false);
      }
      return state.subkeys.length < 8 || Math.random() < 0.5 ? subkeyIssue() : subkeyRotate();
    }
    if (roll < 20) return list('subkey-list', `${stack.url}/v1/partner/subkeys`, stack.partnerRootKey, false);
    if (roll < 40) return readOwn();
    if (roll < 50) return readSubkey();
    if (roll < 60) return list('list', `${v4}/custom-launches`, stack.walletKey);
    if (roll < 65) return list('list-root', `${v4}/custom-launches`, stack.partnerRootKey);
    if (roll < 70) {
      const subkey = pick(state.subkeys);
      return list('list-subkey', `${v4}/custom-launches`, subkey?.apiKey ?? stack.partnerRootKey);
    }
    if (roll < 76) return preflight();
    if (roll < 78) return moduleToken() ? moduleSubmit() : moduleRead();
    if (roll < 82) return moduleRead();
    if (roll < 92) return publicRead();
    return developerRead();
  };

  const run = async (connections: number, until: () => boolean) => {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (!until()) await step();
      }),
    );
  };
  return { state, run };
}
