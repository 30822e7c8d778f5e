import { type AbiParameter, encodeAbiParameters } from 'viem';
import type { ModuleEngineReviewScenario } from '../../../generated/schemas/module-engine-review-scenario.v1.ts';
import type { ModuleSubmissionRequest } from '../../../generated/types/service.ts';
import type { EngineEvm, LocalEngineRun } from '../../chain/local-evm.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { BuildFailure, type ReviewPlan } from './review.ts';

type EngineLimits = NonNullable<ReviewPlan['engineExecution']>;

type Descriptor = ModuleSubmissionRequest['descriptor'];

/** Where an engine package carries its review scenario (spec: module-engine-review-scenario.v1.schema.json). */
export const engineScenarioPath = 'review/engine-scenario.json';

/** What one engine component runs with in the review: its initialization data and its operations' data. */
export interface EngineReviewInput {
  component: string;
  initializationData: Buffer;
  operations: Buffer[];
}

/** The measured execution of one engine component, as the build evidence records it. */
export interface EngineExecutionEvidence {
  component: string;
  initializationDataBytes: number;
  deploymentGasUsed: number;
  operations: Array<{ dataBytes: number; gasUsed: number }>;
}

const zeroOf = (type: string): unknown => {
  if (type === 'address') return `0x${'0'.repeat(40)}`;
  if (type === 'bool') return false;
  if (type.startsWith('bytes')) return `0x${'00'.repeat(Number(type.slice(5)))}`;
  return 0n;
};

/**
 * The encoded configuration the review measures (module-descriptor.v0.1 Configuration, codec platform.abi-tuple@1):
 * abi.encode of each field's fixed value, else its default, else its type's zero value, in field order. A value the
 * codec cannot encode as its type fails the build (MODULE_BUILD_FAILED).
 */
export function encodeConfiguration(configuration: Descriptor['configuration']): Buffer {
  const types: AbiParameter[] = [];
  const values: unknown[] = [];
  for (const field of configuration.fields) {
    const binding = field.binding as { mode: 'fixed' | 'input'; value?: unknown; default?: unknown };
    const given = binding.mode === 'fixed' ? binding.value : binding.default;
    types.push({ type: field.type, name: field.name });
    if (given === undefined) values.push(zeroOf(field.type));
    else if (typeof given === 'boolean') values.push(given);
    else if (field.type === 'address') values.push(String(given).toLowerCase());
    else if (field.type.startsWith('bytes')) values.push(given);
    else values.push(BigInt(String(given)));
  }
  try {
    return Buffer.from(encodeAbiParameters(types, values).slice(2), 'hex');
  } catch (err) {
    throw new BuildFailure(
      'MODULE_BUILD_FAILED',
      `The configuration does not encode under platform.abi-tuple@1: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

/**
 * Checks one piece of review data against its limit: more than `limit` bytes fails the build with
 * MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED (the review limits of spec/schemas/modules-context.v1.schema.json). `what`
 * names it in the message.
 */
export function checkDataLimit(what: string, bytes: number, limit: number): void {
  if (bytes > limit) {
    throw new BuildFailure(
      'MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED',
      `${what} is ${bytes} bytes; the review profile takes at most ${limit}.`,
    );
  }
}

const bytesOfHex = (hex: string) => Buffer.from(hex.slice(2), 'hex');

/**
 * What each engine component of the package runs with (spec: module-engine-review-scenario.v1.schema.json): the
 * scenario's entry, else the encoded configuration as initialization data and no operation. A scenario off its
 * schema, or naming a component twice or one that is not an engine component, is MODULE_BUILD_SCENARIO_INVALID; data
 * over the limits is MODULE_BUILD_PROFILE_CAPACITY_EXCEEDED.
 */
export function engineReviewInputs(
  descriptor: Descriptor,
  engineRuntime: string,
  files: ReadonlyMap<string, Buffer>,
  encodedConfiguration: Buffer,
  limits: EngineLimits,
): EngineReviewInput[] {
  const engines = descriptor.components.filter((c) => c.runtime === engineRuntime).map((c) => c.id);
  const scenarioBytes = files.get(engineScenarioPath);
  const byComponent = new Map<string, ModuleEngineReviewScenario['components'][number]>();
  if (scenarioBytes !== undefined) {
    const invalid = (why: string): never => {
      throw new BuildFailure('MODULE_BUILD_SCENARIO_INVALID', `${engineScenarioPath}: ${why}`);
    };
    let scenario: unknown;
    try {
      scenario = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(scenarioBytes));
    } catch (err) {
      invalid(`not UTF-8 JSON (${(err as Error).message})`);
    }
    const problems = schemaProblems('module-engine-review-scenario.v1.schema.json', scenario);
    if (problems.length > 0) invalid(problems.slice(0, 3).join('; '));
    for (const entry of (scenario as ModuleEngineReviewScenario).components) {
      if (!engines.includes(entry.component)) invalid(`${entry.component} is not an engine component of the package`);
      if (byComponent.has(entry.component)) invalid(`${entry.component} appears twice`);
      byComponent.set(entry.component, entry);
    }
  }
  return engines.map((component) => {
    const entry = byComponent.get(component);
    const input: EngineReviewInput = entry
      ? {
          component,
          initializationData: bytesOfHex(entry.initializationData),
          operations: entry.operations.map(bytesOfHex),
        }
      : { component, initializationData: encodedConfiguration, operations: [] };
    checkDataLimit(
      `The initialization data of ${component}`,
      input.initializationData.length,
      limits.maxInitializationDataBytes,
    );
    for (const [i, data] of input.operations.entries()) {
      checkDataLimit(`Operation ${i} of ${component}`, data.length, limits.maxOperationDataBytes);
    }
    return input;
  });
}

/**
 * Runs one engine component on the local EVM (its creation code followed by its initialization data, then each
 * operation) and checks every execution against the reviewed execution budget (at most 3,000,000 gas,
 * maxEngineExecutionGas of spec/schemas/modules-context.v1.schema.json): over it is
 * MODULE_BUILD_EXECUTION_BUDGET_EXCEEDED, a revert within it MODULE_BUILD_EXECUTION_FAILED. Returns the measured
 * evidence.
 */
export async function measureEngine(
  evm: EngineEvm,
  input: EngineReviewInput,
  creationCode: string,
  limits: EngineLimits,
): Promise<EngineExecutionEvidence> {
  const run: LocalEngineRun = await evm.runEngine({
    creationCode: creationCode + input.initializationData.toString('hex'),
    operations: input.operations.map((data) => `0x${data.toString('hex')}`),
  });
  const budget = limits.maxExecutionGas;
  const executions = [
    { what: `the initialization of ${input.component}`, ...run.deployment },
    ...run.operations.map((o, i) => ({ what: `operation ${i} of ${input.component}`, ...o })),
  ];
  for (const e of executions) {
    if (e.gasUsed > budget) {
      throw new BuildFailure(
        'MODULE_BUILD_EXECUTION_BUDGET_EXCEEDED',
        `On the review's local EVM ${e.what} used ${e.gasUsed} gas${e.success ? '' : ' and did not finish'}; the reviewed execution budget is ${budget}.`,
      );
    }
    if (!e.success) {
      throw new BuildFailure(
        'MODULE_BUILD_EXECUTION_FAILED',
        `On the review's local EVM ${e.what} reverted after ${e.gasUsed} gas.`,
      );
    }
  }
  return {
    component: input.component,
    initializationDataBytes: input.initializationData.length,
    deploymentGasUsed: run.deployment.gasUsed,
    operations: run.operations.map((o, i) => ({ dataBytes: input.operations[i]?.length ?? 0, gasUsed: o.gasUsed })),
  };
}
