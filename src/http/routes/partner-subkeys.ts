import type { PartnerSubkeyRequestV1, SubkeyService } from '../../domain/partners/subkeys.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { OperationContext, OperationHandler } from '../operation.ts';

/** A subkey answer may carry a secret: no cache keeps it, and none shares it across credentials. */
const noStore = { 'Cache-Control': 'no-store', Vary: 'Authorization' };

function rootOf(ctx: OperationContext) {
  if (!ctx.principal) throw new ApiError('UNAUTHENTICATED');
  return ctx.principal;
}

function writeInput(ctx: OperationContext) {
  if (!ctx.rawBody) throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return {
    idempotencyKey: String(ctx.headers['idempotency-key']),
    request: ctx.body as PartnerSubkeyRequestV1,
    rawBody: ctx.rawBody,
  };
}

/** Handlers of the partner subkey routes (modules-subkeys-developer-api.md Endpoints). */
export function partnerSubkeyOperations(subkeys: SubkeyService): Record<string, OperationHandler> {
  return {
    listPartnerSubkeys: (ctx) => ({ status: 200, body: subkeys.list(rootOf(ctx)), headers: noStore }),
    issuePartnerSubkey: (ctx) => {
      const answer = subkeys.issue(rootOf(ctx), writeInput(ctx));
      return { status: answer.status, rawJson: answer.body, headers: noStore };
    },
    rotatePartnerSubkey: (ctx) => {
      const answer = subkeys.rotate(rootOf(ctx), String(ctx.params.subkeyId), writeInput(ctx));
      return { status: answer.status, rawJson: answer.body, headers: noStore };
    },
    revokePartnerSubkey: (ctx) => ({
      status: 200,
      body: subkeys.revoke(rootOf(ctx), String(ctx.params.subkeyId)),
      headers: noStore,
    }),
  };
}
