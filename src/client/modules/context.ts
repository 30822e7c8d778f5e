import type { ModulesContext } from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { type AuthenticatedModuleCall, exchangeJson, responseLimitBytes } from './call.ts';
import { clientFailure, type ModuleResult } from './errors.ts';

const contextPath = '/v1/modules/context';

const moduleScopes = ['modules:submit', 'modules:read'] as const;

/**
 * Why a context answer cannot be trusted, none when it is consistent
 * (spec/openapi/paths/modules-context.yaml, getModulesContext):
 * it must match platform.modules.context.v1, `identity.defaultRewardWallet` must be the author's own wallet,
 * `missingScopes` must be exactly the module scopes absent from `scopes`, and `canSubmit`/`canRead` may be true only
 * with their scope held.
 */
export function contextProblems(context: unknown): string[] {
  const problems = schemaProblems('modules-context.v1.schema.json', context);
  if (problems.length > 0) return problems.slice(0, 10);
  const c = context as ModulesContext;
  const found: string[] = [];
  if (c.identity.defaultRewardWallet.toLowerCase() !== c.identity.author.toLowerCase()) {
    found.push('identity.defaultRewardWallet is not identity.author');
  }
  const held = new Set<string>(c.authorization.scopes);
  const lacking = moduleScopes.filter((s) => !held.has(s));
  const missing = [...c.authorization.missingScopes].sort();
  if (JSON.stringify(missing) !== JSON.stringify([...lacking].sort())) {
    found.push(
      `authorization.missingScopes ${JSON.stringify(c.authorization.missingScopes)} disagrees with scopes ${JSON.stringify(c.authorization.scopes)}`,
    );
  }
  if (c.authorization.canSubmit && !held.has('modules:submit')) found.push('canSubmit without modules:submit');
  if (c.authorization.canRead && !held.has('modules:read')) found.push('canRead without modules:read');
  return found;
}

/**
 * Reads the key's context (GET /v1/modules/context, `modules:read`; spec getModulesContext). An answer that is off
 * the schema or inconsistent is MODULE_CONTEXT_RESPONSE: no permission is inferred from it.
 */
export async function readModulesContext(call: AuthenticatedModuleCall): Promise<ModuleResult<ModulesContext>> {
  const reply = await exchangeJson(call, {
    method: 'GET',
    path: contextPath,
    apiKey: call.apiKey,
    limitBytes: responseLimitBytes,
  });
  if (reply.error) return reply;
  const problems = contextProblems(reply.data.json);
  if (problems.length > 0) {
    return {
      error: clientFailure(
        'MODULE_CONTEXT_RESPONSE',
        `the context answer is inconsistent or unsupported (${problems.join('; ')}); no permission is inferred from it`,
        { httpStatus: reply.httpStatus },
      ),
    };
  }
  return { data: reply.data.json as ModulesContext, httpStatus: reply.httpStatus };
}
