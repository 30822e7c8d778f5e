import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../../generated/types/service.ts';
import { multiRoleRequestLimits } from '../../domain/multi-role/request-rules.ts';
import { multiRoleReadiness } from '../../domain/public/capabilities-multi-role.ts';
import { multiRoleClientBytes, multiRoleGuideBytes } from '../../domain/public/multi-role-assets.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Services } from '../../services.ts';
import {
  idempotencyKeyOf,
  jsonBody,
  type OperationHandler,
  pageOf,
  principalOf,
  type RouteTable,
  rawBodyOf,
  routesOf,
} from '../operation.ts';

/**
 * Routes of the shared MultiRole V2 lane on chain 4663 (spec/openapi/paths/multi-role-capabilities.yaml,
 * multi-role-guide.yaml, multi-role-client.yaml, multi-role-preflight.yaml, multi-role-custom-launches.yaml,
 * multi-role-custom-launch.yaml): JSON bodies within the lane's 8,388,608-byte request limit; the authenticated
 * operations need a wallet or partner key with the chain-4663 grant. The capabilities, guide and client need none.
 * The public finalized feed is among the public reads (src/http/routes/public-reads.ts).
 */
export function multiRoleLaunchRoutes(services: Services): RouteTable {
  const { getMultiRoleCapabilitiesV2, getMultiRoleGuide, getMultiRoleClient, ...authenticated } =
    multiRoleHandlers(services);
  const body = jsonBody(multiRoleRequestLimits.requestBytes);
  return {
    ...routesOf({ getMultiRoleCapabilitiesV2, getMultiRoleGuide, getMultiRoleClient }, { body }),
    ...routesOf(authenticated, { body, auth: 'wallet' }),
  };
}

function multiRoleHandlers(services: Services) {
  const { multiRoleLaunches } = services;
  /** Preflight and create need an open lane: its contracts bound and an active profile revision. */
  const requireLane = () => {
    const readiness = multiRoleReadiness(services.multiRoleDeployment);
    if (readiness.status !== 'ready') {
      throw new ApiError('MULTI_ROLE_LANE_UNAVAILABLE', {
        message: `The shared lane is unavailable here: ${readiness.reasons.join(', ')}.`,
      });
    }
  };
  return {
    getMultiRoleCapabilitiesV2: () => ({ status: 200, body: services.multiRoleCapabilities() }),
    getMultiRoleGuide: () => ({
      status: 200,
      text: multiRoleGuideBytes().toString('utf8'),
      contentType: 'text/markdown; charset=utf-8',
    }),
    getMultiRoleClient: () => ({
      status: 200,
      text: multiRoleClientBytes().toString('utf8'),
      contentType: 'text/javascript; charset=utf-8',
    }),
    preflightMultiRoleCustomLaunch: async (ctx) => {
      requireLane();
      return {
        status: 200,
        body: await services.preflightMultiRole(
          principalOf(ctx),
          ctx.body as MultiRoleCustomLaunchCreateRequestV2,
          rawBodyOf(ctx),
        ),
      };
    },
    createMultiRoleCustomLaunch: (ctx) => {
      requireLane();
      const answer = multiRoleLaunches.create(
        principalOf(ctx),
        ctx.body as MultiRoleCustomLaunchCreateRequestV2,
        rawBodyOf(ctx),
        idempotencyKeyOf(ctx),
      );
      return { status: answer.status, rawJson: answer.body };
    },
    listMultiRoleCustomLaunches: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: multiRoleLaunches.list(principalOf(ctx), limit, cursor) };
    },
    getMultiRoleCustomLaunch: (ctx) => ({
      status: 200,
      body: multiRoleLaunches.get(principalOf(ctx), String(ctx.params.launchId)),
    }),
  } satisfies Record<string, OperationHandler>;
}
