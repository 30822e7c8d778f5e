import type { PartnerSubkeyRequestV1, SubkeyService } from '../../domain/partners/subkeys.ts';
import {
  idempotencyKeyOf,
  type OperationContext,
  type OperationHandler,
  principalOf,
  rawBodyOf,
} from '../operation.ts';

/** A subkey answer may carry a secret: no cache keeps it, and none shares it across credentials. */
const noStore = { 'Cache-Control': 'no-store', Vary: 'Authorization' };

function writeInput(ctx: OperationContext) {
  return {
    idempotencyKey: idempotencyKeyOf(ctx),
    request: ctx.body as PartnerSubkeyRequestV1,
    rawBody: rawBodyOf(ctx),
  };
}

/** Handlers of the partner subkey routes (modules-subkeys-developer-api.md Endpoints). */
export function partnerSubkeyOperations(subkeys: SubkeyService): Record<string, OperationHandler> {
  return {
    listPartnerSubkeys: (ctx) => ({ status: 200, body: subkeys.list(principalOf(ctx)), headers: noStore }),
    issuePartnerSubkey: (ctx) => {
      const answer = subkeys.issue(principalOf(ctx), writeInput(ctx));
      return { status: answer.status, rawJson: answer.body, headers: noStore };
    },
    rotatePartnerSubkey: (ctx) => {
      const answer = subkeys.rotate(principalOf(ctx), String(ctx.params.subkeyId), writeInput(ctx));
      return { status: answer.status, rawJson: answer.body, headers: noStore };
    },
    revokePartnerSubkey: (ctx) => ({
      status: 200,
      body: subkeys.revoke(principalOf(ctx), String(ctx.params.subkeyId)),
      headers: noStore,
    }),
  };
}
