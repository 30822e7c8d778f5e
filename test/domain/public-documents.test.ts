import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { loadConfig } from '../../src/config.ts';
import { findingCodes } from '../../src/domain/launches/finding-codes.ts';
import { capabilitiesV4 } from '../../src/domain/public/capabilities.ts';
import { discoveryManifest } from '../../src/domain/public/discovery-manifest.ts';
import { launchCoverageV4 } from '../../src/domain/public/launch-coverage.ts';
import { launchGuideV4 } from '../../src/domain/public/launch-guide.ts';
import { launchVerifiers } from '../../src/domain/public/launch-verifiers.ts';
import type { RunningGates } from '../../src/domain/public/running-gates.ts';
import { staticBaselineRuleCodes } from '../../src/domain/static-baseline/rule-codes.ts';
import { errorTable } from '../../src/errors/codes.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runCli } from '../support/cli.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { exampleBytes, v4Example } from '../support/server.ts';
import { deliverExampleSources } from '../support/sources.ts';

// The public documents (capabilities, discovery manifest, launch guide, coverage report) are computed from what
// runs: every code they name is a real code, and a verifier that runs is never reported not covered.

const knownCodes = new Set<string>([...Object.keys(findingCodes), ...Object.keys(errorTable)]);
/** Anything shaped like a public code (two or more upper-case words joined by underscores), anywhere in a document. */
const codeShape = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

function codesIn(value: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(codeShape)) found.add(m[0]);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return found;
}

const unknownCodes = (doc: unknown) => [...codesIn(doc)].filter((code) => !knownCodes.has(code));

const gatesMatrix: Array<[string, RunningGates]> = [
  ['no chain gates', { chainGates: null, priceFeed: false, sourceVerificationRegistry: false }],
  ['no chain gates, a price feed', { chainGates: null, priceFeed: true, sourceVerificationRegistry: false }],
  [
    'chain gates, verified evidence, price feed and registry',
    { chainGates: { evidence: 'verified' }, priceFeed: true, sourceVerificationRegistry: true },
  ],
  [
    'chain gates, verified evidence, no registry',
    { chainGates: { evidence: 'verified' }, priceFeed: true, sourceVerificationRegistry: false },
  ],
  [
    'chain gates, tampered evidence',
    { chainGates: { evidence: 'tampered' }, priceFeed: true, sourceVerificationRegistry: true },
  ],
  [
    'chain gates, unverified evidence, no price feed',
    { chainGates: { evidence: 'unreachable' }, priceFeed: false, sourceVerificationRegistry: true },
  ],
];

function documents(gates: RunningGates) {
  const config = loadConfig({ CI: 'true' });
  const now = Date.parse('2026-11-24T12:00:00.000Z');
  return {
    capabilities: capabilitiesV4(config, gates),
    discovery: discoveryManifest(config, gates, now, 'http://127.0.0.1:8787'),
    guide: launchGuideV4(gates),
    coverage: launchCoverageV4(now, true, gates),
  };
}

describe('every code a public document names is in the finding table or the error table', () => {
  it('the scan finds a code that is in neither table (the check is not vacuous)', () => {
    expect(unknownCodes({ findingCodes: ['STATIC_BASELINE_NOT_EVALUATED'] })).toEqual([
      'STATIC_BASELINE_NOT_EVALUATED',
    ]);
    expect(unknownCodes({ guidance: 'is ROUTER_SIMULATION_NOT_RUN yet' })).toEqual(['ROUTER_SIMULATION_NOT_RUN']);
    expect(unknownCodes({ findingCodes: ['CHAIN_NOT_CONFIGURED'], code: 'RATE_LIMITED' })).toEqual([]);
  });

  it.each(gatesMatrix)('%s: capabilities, discovery, guide and coverage', (_name, gates) => {
    const docs = documents(gates);
    for (const [name, doc] of Object.entries(docs)) expect(unknownCodes(doc), name).toEqual([]);
    // The guide cites codes in its scenarios; they are really there to check.
    expect(docs.guide.scenarioAssessments.flatMap((s) => s.findingCodes).length).toBeGreaterThan(0);
    // The permit waits for the sources: the source rule is covered, and the guide delivers them before the poll.
    const selfdestruct = docs.coverage.verifierCoverage.find((v) => v.verifierId === 'source.selfdestruct');
    expect(selfdestruct?.coverage).toBe('covered');
    expect(selfdestruct?.description).toContain('SOURCE_FILES_PENDING');
    expect(docs.guide.workflowStages.map((st) => [st.order, st.stageId, st.operationId])).toEqual([
      [1, 'discover', 'getCustomLaunchCapabilitiesV4'],
      [2, 'pack', null],
      [3, 'preflight', 'preflightCustomLaunchV4'],
      [4, 'submit', 'createCustomLaunchV4'],
      [5, 'deliver_sources', 'putCustomLaunchSourceFileV4'],
      [6, 'poll_until_authorized', 'getCustomLaunchV4'],
      [7, 'wallet_handoff', null],
      [8, 'poll_until_finalized', 'getCustomLaunchV4'],
    ]);
  });

  it('every code of the verifier table and of the static baseline rules is in a table', () => {
    expect(launchVerifiers.flatMap((v) => v.codes).filter((c) => !knownCodes.has(c))).toEqual([]);
    expect(staticBaselineRuleCodes.filter((c) => !knownCodes.has(c))).toEqual([]);
  });
});

describe('the verifier table', () => {
  it('gives each hard-block and evidence-duty code of the finding table to exactly one verifier', () => {
    const owned = Object.entries(findingCodes)
      .filter(([, f]) => f.classification === 'hard_block' || f.classification === 'evidence_duty')
      .map(([code]) => ({
        code,
        owners: launchVerifiers.filter((v) => (v.codes as readonly string[]).includes(code)).map((v) => v.verifierId),
      }));
    expect(owned.length).toBeGreaterThan(0);
    expect(owned.filter(({ owners }) => owners.length !== 1)).toEqual([]);
  });

  it('has unique verifier ids', () => {
    const ids = launchVerifiers.map((v) => v.verifierId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(gatesMatrix)(
    '%s: a verifier that runs is covered or partial; one that does not is not_covered',
    (_n, gates) => {
      const rows = documents(gates).coverage.verifierCoverage;
      expect(rows.map((r) => r.verifierId)).toEqual(launchVerifiers.map((v) => v.verifierId));
      for (const verifier of launchVerifiers) {
        const row = rows.find((r) => r.verifierId === verifier.verifierId);
        if (verifier.runs(gates)) expect(row?.coverage, verifier.verifierId).not.toBe('not_covered');
        else expect(row?.coverage, verifier.verifierId).toBe('not_covered');
      }
    },
  );

  it('reports the static baseline partial exactly while an owned rule is not implemented, naming it', () => {
    const row = documents(gatesMatrix[0]?.[1] as RunningGates).coverage.verifierCoverage.find(
      (r) => r.verifierId === 'static.baseline',
    );
    const owned = launchVerifiers.find((v) => v.verifierId === 'static.baseline')?.codes ?? [];
    const missing = owned.filter((c) => !(staticBaselineRuleCodes as readonly string[]).includes(c));
    expect(row?.coverage).toBe(missing.length > 0 ? 'partial' : 'covered');
    for (const code of missing) expect(row?.description).toContain(code);
  });

  it('reports external references partial when no source-verification registry lets any bind', () => {
    const [, withRegistry] = gatesMatrix[2] as [string, RunningGates];
    const [, withoutRegistry] = gatesMatrix[3] as [string, RunningGates];
    const row = (g: RunningGates) =>
      documents(g).coverage.verifierCoverage.find((r) => r.verifierId === 'external.references');
    expect(row(withRegistry)?.coverage).toBe('covered');
    expect(row(withoutRegistry)?.coverage).toBe('partial');
    expect(row(withoutRegistry)?.description).toMatch(/no source-verification registry/i);
  });
});

const coverageOf = (doc: any, id: string) =>
  (doc.verifierCoverage as Array<{ verifierId: string; coverage: string }>).find((r) => r.verifierId === id)?.coverage;
const chainVerifiers = ['deployment.evidence', 'hook.callbacks', 'external.references', 'router.simulation'];
const chainFreeVerifiers = ['request.schema', 'request.rules', 'metadata.image', 'static.baseline'];
const discoveryPath = '/.well-known/platform-custom-launch-discovery.json';

/** Reads the four public documents from a server. */
async function readDocuments(url: string) {
  const [capabilities, discovery, guide, coverage] = await Promise.all(
    [
      '/v4/chains/4663/capabilities',
      discoveryPath,
      '/v4/chains/4663/launch-guide',
      '/v4/chains/4663/launch-coverage',
    ].map(async (path) => {
      const r = await call(`${url}${path}`);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      return r.json;
    }),
  );
  return { capabilities, discovery, guide, coverage };
}

/** Polls a launch until `done` holds of it. */
async function pollLaunch(url: string, key: string, launchId: string, done: (launch: any) => boolean): Promise<any> {
  let last: any;
  for (let i = 0; i < 300; i++) {
    const r = await call(`${url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) });
    last = r.json;
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`launch ${launchId} did not get there: ${JSON.stringify(last)}`);
}

describe('a server without chain gates (`npm start` with no chain configured)', () => {
  let dir: string;
  let server: ServerProcess;
  let proxy: LoopbackProxy;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'custom-launch-public-docs-'));
    const databasePath = join(dir, 'api.sqlite');
    const db = openDatabase(databasePath);
    key = mintWalletKey(db, {
      wallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    }).apiKey;
    db.close();
    proxy = await startProxy(() => server.url);
    server = await startServerProcess({
      DATABASE_PATH: databasePath,
      LIFECYCLE_POLL_MS: '50',
      PUBLIC_ORIGIN: proxy.url,
    });
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('capabilities and discovery say writes are unavailable, with the reason', async () => {
    const { capabilities, discovery } = await readDocuments(server.url);
    expect(capabilities.writes).toEqual({ enabled: false, reasons: ['CHAIN_NOT_CONFIGURED'] });
    for (const entry of [discovery.versions.v4, discovery.chains['4663']]) {
      expect(entry).toMatchObject({ publicWrites: false, releaseReady: false, reasons: ['CHAIN_NOT_CONFIGURED'] });
    }
  });

  it('the guide and coverage say what this server runs: the chain-free gates, and no chain gate', async () => {
    const { guide, coverage } = await readDocuments(server.url);
    for (const doc of [guide, coverage]) expect(unknownCodes(doc)).toEqual([]);
    for (const id of chainFreeVerifiers) expect(coverageOf(coverage, id), id).not.toBe('not_covered');
    for (const id of chainVerifiers) expect(coverageOf(coverage, id), id).toBe('not_covered');
    const funded = guide.scenarioAssessments.find((s: any) => s.scenarioId === 'funded_v4_launch');
    expect(funded.findingCodes).toContain('CHAIN_NOT_CONFIGURED');
    expect(guide.workflowStages[0].instructions).toMatch(/writes closed \(CHAIN_NOT_CONFIGURED\)/);
  });

  it('and that is what it does: the static baseline runs in preflight, a created launch waits with CHAIN_NOT_CONFIGURED', async () => {
    const body = exampleBytes(v4Example);
    const preflight = await call(`${server.url}/v4/chains/4663/custom-launches/preflight`, {
      method: 'POST',
      headers: auth(key),
      body,
    });
    expect(preflight.status, preflight.text).toBe(200);
    expect(preflight.json.staticBaseline.reportSha256).toMatch(/^sha256:/);
    expect(preflight.json.needsEvidenceFindingCodes).toContain('CALLBACK_GUARD_UNDECIDED');
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'public-documents-no-chain-1' }),
      body,
    });
    expect(created.status, created.text).toBe(202);
    const launch = await pollLaunch(
      server.url,
      key,
      created.json.launchId,
      (l) => l.lifecycleQueue?.lastErrorCode === 'CHAIN_NOT_CONFIGURED',
    );
    expect(launch.status).toBe('validating');
    expect(launch.walletTransaction ?? null).toBeNull();
  });

  it.each([
    ['preflight', (request: string) => ['preflight', request, '--json']],
    ['submit', (request: string) => ['submit', request, '--journal', join(dir, 'journal.json'), '--json']],
  ])('the CLI %s stops before any authenticated request, naming the reason', async (_name, args) => {
    const request = join(new URL('../../spec/examples', import.meta.url).pathname, v4Example);
    const before = proxy.seen.length;
    const run = await runCli(args(request), { PLATFORM_API_KEY: key, CUSTOM_LAUNCH_ORIGIN: proxy.url });
    expect(run.code, run.stderr).toBe(exitCodes.discoveryStop.code);
    expect(run.stderr).toMatch(/versions\.v4 entry reports publicWrites: false \(CHAIN_NOT_CONFIGURED\)/);
    const seen = proxy.seen.slice(before);
    expect(seen.map((s) => [s.method, s.path])).toEqual([['GET', discoveryPath]]);
    for (const request of seen) expect(request.headers.authorization).toBeUndefined();
    expect(existsSync(join(dir, 'journal.json'))).toBe(false);
  });
});

describe('a server with chain gates (the devnet)', () => {
  let running: DevnetServer;
  let proxy: LoopbackProxy;

  beforeAll(async () => {
    proxy = await startProxy(() => running.server.url);
    running = await startDevnetServer('public-docs', { PUBLIC_ORIGIN: proxy.url });
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await running?.stop();
  });

  it('capabilities and discovery say writes are available', async () => {
    const { capabilities, discovery } = await readDocuments(running.server.url);
    expect(capabilities.writes).toEqual({ enabled: true, reasons: [] });
    for (const entry of [discovery.versions.v4, discovery.chains['4663']]) {
      expect(entry).toMatchObject({ publicWrites: true, releaseReady: true, reasons: [], state: 'public' });
    }
  });

  it('the guide and coverage report the chain gates it runs as covered', async () => {
    const { guide, coverage } = await readDocuments(running.server.url);
    for (const doc of [guide, coverage]) expect(unknownCodes(doc)).toEqual([]);
    for (const id of [...chainFreeVerifiers, ...chainVerifiers, 'initial_buy.usd_quote', 'launch.tracking']) {
      expect(coverageOf(coverage, id), id).not.toBe('not_covered');
    }
    for (const id of chainVerifiers) expect(coverageOf(coverage, id), id).toBe('covered');
    const funded = guide.scenarioAssessments.find((s: any) => s.scenarioId === 'funded_v4_launch');
    expect(funded.findingCodes).not.toContain('CHAIN_NOT_CONFIGURED');
    const deployable = guide.scenarioAssessments.find((s: any) => s.scenarioId === 'deployable_request');
    expect(deployable).toMatchObject({ disposition: 'supported', findingCodes: ['TX_SIMULATION_PENDING'] });
  });

  it('and that is what it does: the CLI preflights after discovery, and a created launch passes the router simulation', async () => {
    const request = join(new URL('../../spec/examples', import.meta.url).pathname, v4Example);
    const before = proxy.seen.length;
    const run = await runCli(['preflight', request, '--json'], {
      PLATFORM_API_KEY: running.key,
      CUSTOM_LAUNCH_ORIGIN: proxy.url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.seen.slice(before).map((s) => [s.method, s.path])).toEqual([
      ['GET', discoveryPath],
      ['POST', '/v4/chains/4663/custom-launches/preflight'],
    ]);

    const created = await call(`${running.server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(running.key, { 'Idempotency-Key': 'public-documents-chain-1' }),
      body: exampleBytes(v4Example),
    });
    expect(created.status, created.text).toBe(202);
    // As the guide's deliver_sources stage says: the permit waits for the sources.
    await deliverExampleSources(running.server.url, running.key, created.json.launchId, exampleBytes(v4Example));
    const launch = await pollLaunch(running.server.url, running.key, created.json.launchId, (l) =>
      ['authorized', 'awaiting_wallet_signature', 'action_required', 'failed'].includes(l.status),
    );
    expect(['authorized', 'awaiting_wallet_signature'], JSON.stringify(launch.findings)).toContain(launch.status);
    expect(launch.walletTransaction.simulationDigest).toMatch(/^sha256:/);
  });
});
