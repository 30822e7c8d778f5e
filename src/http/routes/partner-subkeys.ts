import type { PartnerSubkeyRequestV1 } from '../../../generated/types/service.ts';
import type { SubkeyService } from '../../domain/partners/subkeys.ts';
import {
  idempotencyKeyOf,
  jsonBody,
  type OperationContext,
  type OperationHandler,
  principalOf,
  type RouteTable,
  rawBodyOf,
  routesOf,
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

/**
 * Routes of the partner subkeys (spec/openapi/paths/partner-subkeys.yaml, partner-subkey.yaml,
 * partner-subkey-rotate.yaml), called with a partner root key. A subkey request is five small fields: 16 KiB is far
 * above any valid body.
 */
export function partnerSubkeyRoutes(subkeys: SubkeyService): RouteTable {
  return routesOf(partnerSubkeyHandlers(subkeys), { body: jsonBody(16_384), auth: 'wallet' });
}

function partnerSubkeyHandlers(subkeys: SubkeyService): Record<string, OperationHandler> {
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
