import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { concat, type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import type { MultiRoleDeployment } from '../../src/chain/multi-role-deployment.ts';
import { packMultiRoleProject } from '../../src/client/multi-role/pack.ts';
import { mineBaseHookSalt } from '../../src/core/base-graph.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { compileStandardJson } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { auth, call } from '../support/http.ts';
import { multiRoleExample, multiRoleRequestBytes, sealMultiRoleRequest } from '../support/multi-role-request.ts';
import { exampleWallet, startServer, type TestServer } from '../support/server.ts';

/**
 * preflightMultiRoleCustomLaunch with the chain checks (spec/openapi/paths/multi-role-preflight.yaml): a real server
 * bound to a real chain-4663 devnet and its shared-lane deployment. Each rule of the review is shown on both sides:
 * the packed example passes it, a request built from the example's sources with one change breaks it. Nothing is
 * persisted.
 */

const port = 21463;
const tokenHookPath = 'contracts/TidewaterTokenHook.sol';
const exampleDir = fileURLToPath(new URL('../../examples/multi-role-launch/', import.meta.url));

let dir: string;
let devnet: Awaited<ReturnType<typeof startDevnet>>;
let lane: MultiRoleDeployment;
let s: TestServer;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'multi-role-preflight-'));
  devnet = await startDevnet({ port, outputDir: dir });
  lane = devnet.multiRoleDeployment;
  s = await startServer({
    multiRoleDeploymentPath: join(dir, 'multi-role-deployment.json'),
    chain4663RpcUrls: [lane.rpcUrl, lane.rpcUrl],
    canonicalPoolManager: devnet.deployment.contracts.poolManager.address,
  });
  key = s.key();
}, 120_000);

afterAll(async () => {
  await s?.close();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let nonce = 5000;

/**
 * The example with `change` applied to its token_hook source and fields, then its token_hook rebuilt as the server
 * builds it (initCodeHash) and its salt mined for its mask under the lane's factory and router, sealed. `declare`
 * may then override what the request declares (after the rebuild).
 */
function variant(
  change: { source?: (content: string) => string; mask?: number } = {},
  declare: (request: MultiRoleCustomLaunchCreateRequestV2) => void = () => {},
): MultiRoleCustomLaunchCreateRequestV2 {
  const request = multiRoleExample();
  request.nonce = String(++nonce);
  const source = request.source.sources[tokenHookPath] as { content: string };
  if (change.source) source.content = change.source(source.content);
  const hook = request.graph.targets.find((t) => t.role === 'token_hook') as {
    constructorArgs: string;
    initCodeHash: string;
    salt: string;
    hookPermissionMask?: number;
  };
  const { compilerVersion: _pinned, ...standardJson } = request.source;
  const build = compileStandardJson(standardJson);
  const creation = build.contracts[tokenHookPath]?.TidewaterTokenHook?.bytecode as Hex;
  hook.initCodeHash = keccak256(concat([creation, hook.constructorArgs as Hex]));
  hook.hookPermissionMask = change.mask ?? hook.hookPermissionMask;
  hook.salt = mineBaseHookSalt(
    lane.contracts.graphFactory.address,
    lane.contracts.launchRouter.address,
    hook.initCodeHash as Hex,
    hook.hookPermissionMask ?? 0,
  );
  declare(request);
  return sealMultiRoleRequest(request);
}

/** Adds `members` to the token_hook contract's body. */
const adding = (members: string) => (content: string) => content.replace(/\n}\s*$/, `\n${members}\n}\n`);

const preflight = (body: MultiRoleCustomLaunchCreateRequestV2) =>
  call(`${s.url}/v4/chains/4663/multi-role-custom-launches/preflight`, {
    method: 'POST',
    headers: auth(key),
    body: multiRoleRequestBytes(body),
  });

const rows = () => ({
  launches: (s.db.prepare('SELECT count(*) AS n FROM multi_role_launches').get() as { n: number }).n,
  jobs: (s.db.prepare('SELECT count(*) AS n FROM multi_role_lifecycle_jobs').get() as { n: number }).n,
  admissions: (s.db.prepare('SELECT count(*) AS n FROM admissions').get() as { n: number }).n,
});

type Finding = { code: string; severity: string; missingVerificationRequirements: string[] };
async function findingsOf(
  body: MultiRoleCustomLaunchCreateRequestV2,
): Promise<{ disposition: string; findings: Finding[] }> {
  const before = rows();
  const r = await preflight(body);
  expect(r.status, r.text).toBe(200);
  expect(schemaProblems('multi-role-preflight.v2.schema.json', r.json)).toEqual([]);
  expect(rows()).toEqual(before);
  return r.json;
}
const codes = (findings: Finding[]) => findings.map((f) => f.code);

describe('preflightMultiRoleCustomLaunch on the chain-4663 devnet', () => {
  it('the packed example: no blocking finding, no evidence required, no pending chain checks', async () => {
    const { disposition, findings } = await findingsOf(sealMultiRoleRequest({ ...multiRoleExample(), nonce: '4999' }));
    expect(['supported', 'supported_with_warnings']).toContain(disposition);
    expect(findings.filter((f) => f.severity !== 'warning')).toEqual([]);
    expect(codes(findings)).not.toContain('MULTI_ROLE_CHAIN_CHECKS_PENDING');
  }, 120_000);

  it('a fresh pack of the example against the served capabilities: preflight passes, create binds its bytes', async () => {
    const caps = await call(`${s.url}/v4/chains/4663/multi-role-custom-launches/capabilities`);
    const { request, bytes } = await packMultiRoleProject(exampleDir, {
      launchWallet: exampleWallet,
      capabilities: caps.json,
    });
    const { findings } = await findingsOf(request);
    expect(findings.filter((f) => f.severity !== 'warning')).toEqual([]);
    const created = await call(`${s.url}/v4/chains/4663/multi-role-custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': `pack-${Date.now()}`.padEnd(16, 'x') }),
      body: bytes,
    });
    expect(created.status, created.text).toBe(202);
    const row = s.db
      .prepare('SELECT request_bytes FROM multi_role_launches WHERE launch_id = ?')
      .get(created.json.launchId) as { request_bytes: Buffer };
    expect(row.request_bytes.equals(bytes)).toBe(true);
  }, 120_000);

  it.each([
    ['the example rebuilt (source reproduced)', () => variant(), []],
    [
      'a token_hook initCodeHash the build does not reproduce (salt mined for it)',
      () =>
        variant({}, (r) => {
          const hook = r.graph.targets.find((t) => t.role === 'token_hook') as { initCodeHash: string; salt: string };
          hook.initCodeHash = keccak256(toHex('not the built init code'));
          hook.salt = mineBaseHookSalt(
            lane.contracts.graphFactory.address,
            lane.contracts.launchRouter.address,
            hook.initCodeHash as Hex,
            192,
          );
        }),
      ['source_code'],
    ],
    [
      'declared economics the token_hook does not answer (buy rate 1)',
      () => variant({}, (r) => (r.economics.buyRateHundredthsBip = 1)),
      ['economics'],
    ],
    [
      'declared feeRecipient another than the one answered',
      () => variant({}, (r) => (r.economics.feeRecipient = '0x90F79bf6EB2c4f870365E785982E1f101E93b906')),
      ['economics'],
    ],
  ] as const)(
    'evidence_required: %s',
    async (_name, body, missing) => {
      const { disposition, findings } = await findingsOf(body());
      const evidence = findings.find((f) => f.code === 'evidence_required');
      if (missing.length === 0) {
        expect(evidence).toBeUndefined();
        expect(disposition).not.toBe('needs_evidence');
      } else {
        expect(evidence).toEqual({
          code: 'evidence_required',
          severity: 'needs_evidence',
          missingVerificationRequirements: [...missing],
        });
        expect(disposition).toBe('needs_evidence');
      }
      expect(findings.filter((f) => f.severity === 'blocking')).toEqual([]);
    },
    120_000,
  );

  it.each([
    ['a salt mined for the mask', () => variant(), null],
    [
      'a salt whose address does not carry the mask',
      () =>
        variant({}, (r) => {
          (r.graph.targets.find((t) => t.role === 'token_hook') as { salt: string }).salt = keccak256(toHex('no mask'));
        }),
      'MULTI_ROLE_HOOK_ADDRESS_MISMATCH',
    ],
    ['a token_hook with mask 192', () => variant({ mask: 192 }), null],
    ['a token_hook with mask 0 (no hook role)', () => variant({ mask: 0 }), 'MULTI_ROLE_HOOK_ROLE_EMPTY'],
    ['the whole ERC-20 core', () => variant(), null],
    [
      'a token_hook without transfer and transferFrom',
      () =>
        variant({
          source: (c) =>
            c
              .replace('function transfer(address to', 'function send(address to')
              .replace('function transferFrom(address from', 'function sendFrom(address from'),
        }),
      'MULTI_ROLE_TOKEN_CORE_MISSING',
    ],
    [
      'a reachable CALLCODE',
      () =>
        variant({
          source: adding(
            '    function forward(address a) external { assembly { pop(callcode(gas(), a, 0, 0, 0, 0, 0)) } }',
          ),
        }),
      'RUNTIME_CALLCODE',
    ],
    [
      'a reachable SELFDESTRUCT',
      () => variant({ source: adding('    function retire() external { selfdestruct(payable(msg.sender)); }') }),
      'RUNTIME_SELFDESTRUCT',
    ],
    [
      'a selfdestruct call only in the source (an unused private function)',
      () => variant({ source: adding('    function _retire() private { selfdestruct(payable(msg.sender)); }') }),
      'SOURCE_SELFDESTRUCT',
    ],
    [
      'beforeSwap callable by anyone (no pool-manager guard)',
      () =>
        variant({
          source: (c) =>
            c.replace(
              'bytes calldata)\n        external\n        onlyPoolManager\n        returns (bytes4, int256, uint24)',
              'bytes calldata)\n        external\n        returns (bytes4, int256, uint24)',
            ),
        }),
      'CALLBACK_GUARD_MISSING',
    ],
  ] as const)(
    '%s',
    async (_name, body, blocking) => {
      const { disposition, findings } = await findingsOf(body());
      const blocks = codes(findings.filter((f) => f.severity === 'blocking'));
      if (blocking === null) {
        expect(blocks).toEqual([]);
      } else {
        expect(blocks).toContain(blocking);
        expect(disposition).toBe('unsupported');
      }
    },
    120_000,
  );
});
