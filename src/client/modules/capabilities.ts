import type { ModulesCapabilities } from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { exchangeJson, type ModuleCall, responseLimitBytes } from './call.ts';
import { clientFailure, type ModuleFailure, type ModuleResult } from './errors.ts';

/** The formats this client implements (they stay fixed within this client release). */
export const implementedFormats = {
  contract: 'platform.modules.api.v0.1',
  submissionFormat: 'platform.modules.submission.v0.1',
  descriptorFormat: 'platform.classic.source-package.v0.1',
} as const satisfies Pick<
  ModulesCapabilities['moduleContributions'],
  'contract' | 'submissionFormat' | 'descriptorFormat'
>;

export const capabilitiesPath = '/v1/modules/capabilities';

/**
 * Why public capabilities forbid an upload by this client, or null when they allow it (the client
 * sends no credentials or source when intake is unavailable or the format is incompatible):
 * `moduleContributions.submissions` must be true and `contract`, `submissionFormat` and `descriptorFormat` must be
 * the formats this client implements. Both refusals are MODULE_SUBMISSIONS_UNAVAILABLE (for this client the
 * deployment accepts no upload); an answer that is not capabilities at all is MODULE_API_RESPONSE. The legacy root
 * `reviewAvailable`, `approved` and `available` are ignored.
 */
export function uploadRefusal(capabilities: unknown): ModuleFailure | null {
  const contributions = (capabilities as { moduleContributions?: unknown } | null)?.moduleContributions;
  if (!contributions || typeof contributions !== 'object') {
    return clientFailure('MODULE_API_RESPONSE', 'the capabilities answer has no moduleContributions object');
  }
  const c = contributions as Record<string, unknown>;
  if (c.submissions !== true) {
    return clientFailure(
      'MODULE_SUBMISSIONS_UNAVAILABLE',
      `the public capabilities report moduleContributions.submissions: ${JSON.stringify(c.submissions ?? null)}; this deployment accepts no uploads`,
    );
  }
  for (const [field, want] of Object.entries(implementedFormats)) {
    if (c[field] !== want) {
      return clientFailure(
        'MODULE_SUBMISSIONS_UNAVAILABLE',
        `the deployment's moduleContributions.${field} is ${JSON.stringify(c[field] ?? null).slice(0, 80)}, but this client implements ${want}; update the client`,
      );
    }
  }
  return null;
}

/** The capabilities answer, or the failure: no answer, or an answer off the schema (MODULE_API_RESPONSE). */
async function readCapabilities(
  call: ModuleCall,
  gate: (json: unknown) => ModuleFailure | null,
): Promise<ModuleResult<ModulesCapabilities>> {
  const reply = await exchangeJson(
    { origin: call.origin, timeoutMs: call.timeoutMs, fetch: call.fetch },
    { method: 'GET', path: capabilitiesPath, limitBytes: responseLimitBytes },
  );
  if (reply.error) return reply;
  // The gate first: its message says what to do, a schema problem only that something is off.
  const refusal = gate(reply.data.json);
  if (refusal) return { error: { ...refusal, httpStatus: reply.httpStatus } };
  const problems = schemaProblems('modules-capabilities.v1.schema.json', reply.data.json);
  if (problems.length > 0) {
    const message = `the capabilities answer is off contract: ${problems.slice(0, 5).join('; ')}`;
    return { error: clientFailure('MODULE_API_RESPONSE', message, { httpStatus: reply.httpStatus }) };
  }
  return { data: reply.data.json as ModulesCapabilities, httpStatus: reply.httpStatus };
}

/**
 * Reads the public module capabilities (GET /v1/modules/capabilities, no key; spec getModulesCapabilities). An
 * answer off the schema is MODULE_API_RESPONSE; closed intake is data here (see uploadRefusal).
 */
export function readModulesCapabilities(call: ModuleCall): Promise<ModuleResult<ModulesCapabilities>> {
  return readCapabilities(call, () => null);
}

/**
 * The gate before every upload: reads the public capabilities without the key and refuses (uploadRefusal) unless
 * they allow this client to upload. Nothing else is sent until it passes.
 */
export function requireUploadCapabilities(call: ModuleCall): Promise<ModuleResult<ModulesCapabilities>> {
  return readCapabilities(call, uploadRefusal);
}
