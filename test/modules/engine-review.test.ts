import { readFileSync } from 'node:fs';
import { encodeAbiParameters, encodeFunctionData, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateAnvilEvm } from '../../src/chain/local-evm.ts';
import { startAnvil } from '../../src/devnet/anvil.ts';
import { checkDataLimit, encodeConfiguration } from '../../src/domain/modules/engine-review.ts';
import { BuildFailure, type BuildRecord, reviewDataLimits } from '../../src/domain/modules/review.ts';
import { ModuleReviewWorker } from '../../src/domain/modules/review-worker.ts';
import { compileSolidityIsolated, solidityBuildSettings } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { auth, call } from '../support/http.ts';
import { type ModuleSubmission, moduleSubmission, setFiles } from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * The review profiles' data limits and the engine reviewed execution budget (modules-context.v1.schema.json
 * review.limits: 16 KiB encoded configuration, 16 KiB engine initialization data and operation data each, at most
 * 3,000,000 gas), enforced by the review build: a real server and SQLite file, the real pinned solc, and the worker's
 * own anvil as the local EVM. The engine fixture (test/fixtures/contracts/GasBurner.sol) burns gas by a configured
 * amount. The gas the worker records is checked against an independent run of the same creation code on a second anvil.
 */
const engineRuntime = 'platform.module-engine-solidity@1';
const budget = 3_000_000;
const source = readFileSync(new URL('../fixtures/contracts/GasBurner.sol', import.meta.url), 'utf8');
const abi = parseAbi(['function burn(uint256 rounds)', 'function fail()']);
const burn = (rounds: number) => encodeFunctionData({ abi, functionName: 'burn', args: [BigInt(rounds)] });
const uint = (n: number) => encodeAbiParameters([{ type: 'uint256' }], [BigInt(n)]);
/** `hex` followed by zero bytes up to `size` bytes in all. */
const padTo = (hex: string, size: number) => hex + '00'.repeat(size - (hex.length - 2) / 2);

let s: TestServer;
let key: string;
let worker: ModuleReviewWorker;
const reviewEvm = privateAnvilEvm();
let seq = 0;

/** A GasBurner engine package: `rounds` is its configuration default; `scenario` its review scenario file. */
function burnerPackage(
  options: { rounds?: number; scenario?: unknown; runtime?: string; fields?: number } = {},
): ModuleSubmission {
  const r = moduleSubmission();
  const d = r.descriptor;
  d.name = 'gas-burner';
  d.components = [
    {
      id: 'burner',
      runtime: options.runtime ?? engineRuntime,
      sourcePath: 'src/GasBurner.sol',
      entrypoint: 'GasBurner',
    },
  ];
  const extra = Array.from({ length: (options.fields ?? 1) - 1 }, (_, i) => ({
    name: `unused${i}`,
    type: 'uint256',
    unit: 'none',
    binding: { mode: 'fixed', value: String(i + 1) },
  }));
  d.configuration = {
    codec: 'platform.abi-tuple@1',
    fields: [
      {
        name: 'rounds',
        type: 'uint256',
        unit: 'none',
        binding: { mode: 'input', default: String(options.rounds ?? 10) },
      },
      ...extra,
    ],
  };
  d.ports = { inputs: {}, outputs: {} };
  d.constraints = [];
  d.management = { summary: 'Burns gas on request.', reads: [], actions: [] };
  d.requiresHost = [];
  delete d.extensions;
  const files: Array<{ path: string; content: string }> = [
    { path: 'src/GasBurner.sol', content: source },
    { path: 'README.md', content: '# gas-burner\n' },
  ];
  if (options.scenario !== undefined) {
    files.push({ path: 'review/engine-scenario.json', content: JSON.stringify(options.scenario) });
  }
  return setFiles(r, files);
}

/** A scenario for the burner: its initialization data and its operations. */
const scenario = (initializationData: string, operations: string[], component = 'burner') => ({
  format: 'platform.modules.engine-review-scenario.v1',
  components: [{ component, initializationData, operations }],
});

const submit = async (r: ModuleSubmission) => {
  const reply = await call(`${s.url}/v1/modules/submissions`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `engine-review-${String(++seq).padStart(8, '0')}` }),
    body: JSON.stringify(r),
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.json.submissionId as string;
};
const reviewOf = async (id: string) => {
  const reply = await call(`${s.url}/v1/modules/submissions/${id}/review`, { headers: auth(key) });
  expect(schemaProblems('module-review-status.v1.schema.json', reply.json)).toEqual([]);
  return reply.json.review;
};
const buildOf = (id: string) =>
  JSON.parse(
    (s.db.prepare('SELECT build_json FROM module_reviews WHERE submission_id = ?').get(id) as { build_json: string })
      .build_json,
  ) as BuildRecord;
const drain = async () => {
  for (let i = 0; i < 40 && (await worker.tick()); i++);
};

/** An independent measurement: a second anvil, raw JSON-RPC, the same creation code compiled with the pinned solc. */
let reference: { url: string; stop: () => Promise<void> };
let creationCode: string;
let rpcId = 0;
async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  // Bounded, as the review's own calls are (src/chain/local-evm.ts): a stalled call fails the test naming the call.
  const res = await fetch(reference.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    signal: AbortSignal.timeout(30_000),
  }).catch((err: Error) => {
    throw new Error(`the reference anvil's ${method}: ${err.message}`);
  });
  const body = (await res.json()) as { result: T; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}
async function gasOf(from: string, tx: Record<string, string>): Promise<{ gasUsed: number; address: string | null }> {
  const hash = await rpc<string>('eth_sendTransaction', [{ from, gas: '0x1c9c380', ...tx }]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const receipt = await rpc<{ gasUsed: string; contractAddress: string | null } | null>('eth_getTransactionReceipt', [
      hash,
    ]);
    if (receipt) return { gasUsed: Number(BigInt(receipt.gasUsed)), address: receipt.contractAddress };
    if (Date.now() > deadline) throw new Error(`the reference anvil: no receipt for ${hash} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
/** Gas of deploying the burner with `init`, and of one operation `data` on the fresh deployment. */
async function referenceGas(init: string, data?: string): Promise<{ deployment: number; operation: number | null }> {
  const snapshot = await rpc<string>('evm_snapshot', []);
  try {
    const [from] = await rpc<string[]>('eth_accounts', []);
    const deployed = await gasOf(from as string, { data: creationCode + init.slice(2) });
    const operation =
      data === undefined ? null : (await gasOf(from as string, { to: deployed.address as string, data })).gasUsed;
    return { deployment: deployed.gasUsed, operation };
  } finally {
    await rpc('evm_revert', [snapshot]);
  }
}

beforeAll(async () => {
  s = await startServer();
  key = s.key({ scopes: ['modules:submit', 'modules:read'] });
  worker = new ModuleReviewWorker({
    db: s.db,
    now: Date.now,
    workerId: 'engine-review-test',
    leaseMs: 60_000,
    compile: compileSolidityIsolated,
    evm: reviewEvm.evm,
  });
  reference = await startAnvil();
  const build = await compileSolidityIsolated({ 'src/GasBurner.sol': source }, solidityBuildSettings);
  creationCode = build.contracts['src/GasBurner.sol']?.GasBurner?.bytecode as string;
  expect(creationCode).toMatch(/^0x[0-9a-f]+$/);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await reviewEvm.stop();
  await reference?.stop();
});

describe('the limit rule (a table at each boundary)', () => {
  it.each([
    ['encoded configuration', reviewDataLimits.maxEncodedConfigurationBytes],
    ['engine initialization data', reviewDataLimits.maxEngineInitializationDataBytes],
    ['engine operation data', reviewDataLimits.maxEngineOperationDataBytes],
  ])('%s: 16,384 bytes pass, 16,385 fail with MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED', (what, limit) => {
    expect(limit).toBe(16_384);
    expect(() => checkDataLimit(what, 16_384, limit)).not.toThrow();
    let failure: unknown;
    try {
      checkDataLimit(what, 16_385, limit);
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(BuildFailure);
    expect((failure as BuildFailure).code).toBe('MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED');
    expect((failure as BuildFailure).message).toContain('16385 bytes');
  });

  it('the configuration codec is 32 bytes a field: the largest descriptor (64 fields) encodes to 2,048 bytes', () => {
    const fields = burnerPackage({ fields: 64 }).descriptor.configuration;
    expect(encodeConfiguration(fields as never)).toHaveLength(2048);
    expect(encodeConfiguration({ codec: 'platform.abi-tuple@1', fields: [] })).toHaveLength(0);
  });
});

describe('the engine run on the local EVM', () => {
  it('a burner well under the budget builds; the build evidence records the gas an independent run measures', async () => {
    const id = await submit(burnerPackage({ rounds: 10, scenario: scenario(uint(10), [burn(100), burn(1000)]) }));
    await drain();
    expect(await reviewOf(id)).toMatchObject({ state: 'built', lastError: null, buildEvidenceRecorded: true });
    const evidence = buildOf(id).artifact;
    expect(evidence.encodedConfigurationBytes).toBe(32);
    const [run] = evidence.engineExecution?.execution ?? [];
    const deployment = await referenceGas(uint(10), burn(100));
    const second = await referenceGas(uint(10), burn(1000));
    expect(evidence.engineExecution?.budgetGas).toBe(budget);
    expect(run).toEqual({
      component: 'burner',
      initializationDataBytes: 32,
      deploymentGasUsed: deployment.deployment,
      operations: [
        { dataBytes: 36, gasUsed: deployment.operation },
        // The second runs on the state the first left; both change a nonzero total, so it costs what it costs fresh.
        { dataBytes: 36, gasUsed: second.operation },
      ],
    });
    expect(run?.deploymentGasUsed).toBeLessThan(budget);
  }, 120_000);

  it('without a scenario the configuration is the initialization data: a configured burn over the budget fails the build', async () => {
    const under = await submit(burnerPackage({ rounds: 1000 }));
    const over = await submit(burnerPackage({ rounds: 200_000 }));
    await drain();
    expect(await reviewOf(under)).toMatchObject({ state: 'built' });
    expect(buildOf(under).artifact.engineExecution?.execution).toEqual([
      {
        component: 'burner',
        initializationDataBytes: 32,
        deploymentGasUsed: (await referenceGas(uint(1000))).deployment,
        operations: [],
      },
    ]);
    const failed = await reviewOf(over);
    expect(failed).toMatchObject({
      state: 'build_failed',
      buildEvidenceRecorded: false,
      lastError: { code: 'MODULE_BUILD_EXECUTION_BUDGET_EXCEEDED' },
    });
    const used = Number(/used (\d+) gas/.exec(failed.lastError.message)?.[1]);
    expect(used).toBeGreaterThan(budget);
    expect(failed.lastError.message).toContain('the initialization of burner');
  }, 120_000);

  it('an operation at most 3,000,000 gas builds; the same operation a few gas over fails the build', async () => {
    // Calibrate on the independent anvil: the largest burn within the budget, then zero bytes of calldata (4 gas
    // each) up to within 4 gas of it.
    const init = uint(0);
    const at = async (data: string) => (await referenceGas(init, data)).operation as number;
    const g0 = await at(burn(1000));
    const perRound = ((await at(burn(2000))) - g0) / 1000;
    let rounds = 1000 + Math.floor((budget - g0) / perRound);
    while ((await at(burn(rounds))) > budget) rounds--;
    while ((await at(burn(rounds + 1))) <= budget) rounds++;
    const plain = burn(rounds);
    const zeros = Math.floor((budget - (await at(plain))) / 4);
    const within = padTo(plain, (plain.length - 2) / 2 + zeros);
    const beyond = padTo(plain, (plain.length - 2) / 2 + zeros + 1);
    const withinGas = await at(within);
    const beyondGas = await at(beyond);
    expect(withinGas).toBeLessThanOrEqual(budget);
    expect(withinGas).toBeGreaterThan(budget - 4);
    expect(beyondGas).toBeGreaterThan(budget);
    expect(beyondGas).toBeLessThanOrEqual(budget + 4);

    const fits = await submit(burnerPackage({ rounds: 0, scenario: scenario(init, [within]) }));
    const exceeds = await submit(burnerPackage({ rounds: 0, scenario: scenario(init, [beyond]) }));
    await drain();
    expect(await reviewOf(fits)).toMatchObject({ state: 'built' });
    expect(buildOf(fits).artifact.engineExecution?.execution[0]?.operations).toEqual([
      { dataBytes: (within.length - 2) / 2, gasUsed: withinGas },
    ]);
    const failed = await reviewOf(exceeds);
    expect(failed).toMatchObject({
      state: 'build_failed',
      lastError: { code: 'MODULE_BUILD_EXECUTION_BUDGET_EXCEEDED' },
    });
    expect(failed.lastError.message).toContain(`operation 0 of burner used ${beyondGas} gas`);
  }, 300_000);

  it('engine initialization data and operation data: 16,384 bytes build, 16,385 fail the build', async () => {
    const init = (size: number) => padTo(uint(5), size);
    const op = (size: number) => padTo(burn(5), size);
    const ids = {
      initFits: await submit(burnerPackage({ scenario: scenario(init(16_384), []) })),
      initOver: await submit(burnerPackage({ scenario: scenario(init(16_385), []) })),
      opFits: await submit(burnerPackage({ scenario: scenario(uint(5), [op(16_384)]) })),
      opOver: await submit(burnerPackage({ scenario: scenario(uint(5), [op(16_385)]) })),
    };
    await drain();
    expect(await reviewOf(ids.initFits)).toMatchObject({ state: 'built' });
    expect(buildOf(ids.initFits).artifact.engineExecution?.execution[0]?.initializationDataBytes).toBe(16_384);
    expect(await reviewOf(ids.opFits)).toMatchObject({ state: 'built' });
    expect(buildOf(ids.opFits).artifact.engineExecution?.execution[0]?.operations[0]?.dataBytes).toBe(16_384);
    for (const [id, what] of [
      [ids.initOver, 'The initialization data of burner is 16385 bytes'],
      [ids.opOver, 'Operation 0 of burner is 16385 bytes'],
    ] as const) {
      const failed = await reviewOf(id);
      expect(failed).toMatchObject({
        state: 'build_failed',
        buildEvidenceRecorded: false,
        lastError: { code: 'MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED' },
      });
      expect(failed.lastError.message).toContain(what);
    }
  }, 180_000);

  it('the largest configuration (64 fields, 2,048 bytes) builds and is recorded', async () => {
    const id = await submit(burnerPackage({ fields: 64, rounds: 3 }));
    await drain();
    expect(await reviewOf(id)).toMatchObject({ state: 'built' });
    const evidence = buildOf(id).artifact;
    expect(evidence.encodedConfigurationBytes).toBe(2048);
    expect(evidence.engineExecution?.execution[0]?.initializationDataBytes).toBe(2048);
  }, 120_000);

  it('a reverting operation is MODULE_BUILD_EXECUTION_FAILED; a scenario that names no engine component or is off its schema is MODULE_BUILD_SCENARIO_INVALID', async () => {
    const fail = encodeFunctionData({ abi, functionName: 'fail' });
    const ids = {
      reverts: await submit(burnerPackage({ scenario: scenario(uint(1), [burn(2), fail]) })),
      stranger: await submit(burnerPackage({ scenario: scenario(uint(1), [], 'nobody') })),
      offSchema: await submit(burnerPackage({ scenario: { format: 'platform.modules.engine-review-scenario.v1' } })),
    };
    await drain();
    const reverted = await reviewOf(ids.reverts);
    expect(reverted.lastError).toMatchObject({ code: 'MODULE_BUILD_EXECUTION_FAILED' });
    expect(reverted.lastError.message).toContain('operation 1 of burner reverted');
    expect((await reviewOf(ids.stranger)).lastError).toMatchObject({ code: 'MODULE_BUILD_SCENARIO_INVALID' });
    expect((await reviewOf(ids.offSchema)).lastError).toMatchObject({ code: 'MODULE_BUILD_SCENARIO_INVALID' });
  }, 180_000);

  it('the native profile has no engine run: the same over-budget burner as a native component builds without one', async () => {
    const id = await submit(burnerPackage({ rounds: 200_000, runtime: 'platform.module-native-runtime@1' }));
    await drain();
    expect(await reviewOf(id)).toMatchObject({ state: 'built' });
    const build = buildOf(id);
    expect(build.plan).toMatchObject({ profile: 'platform.native-solidity@1', engineExecution: null });
    expect(build.artifact.engineExecution).toBeUndefined();
    expect(build.artifact.encodedConfigurationBytes).toBe(32);
  }, 120_000);
});
