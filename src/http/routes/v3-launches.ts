import type {
  CustomLaunchCreateRequestV3,
  CustomLaunchFundingAuthorizationRequestV3,
} from '../../../generated/types/service.ts';
import { capabilitiesV3 } from '../../domain/public/capabilities-v3.ts';
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
 * Routes of the base-layer V3 lane (spec/openapi/paths/v3-capabilities.yaml, v3-custom-launches.yaml,
 * v3-custom-launches-preflight.yaml, v3-custom-launch.yaml, v3-custom-launch-funding-authorization.yaml,
 * v3-custom-launch-cancellation.yaml): JSON bodies within V3_BODY_LIMIT_BYTES; the authenticated operations need a
 * wallet or partner key with a grant for chain 1. The public capabilities read needs none.
 */
export function v3LaunchRoutes(services: Services): RouteTable {
  const { getCustomLaunchCapabilitiesV3, ...authenticated } = v3LaunchHandlers(services);
  const body = jsonBody(services.config.v3BodyLimitBytes);
  return {
    getCustomLaunchCapabilitiesV3: { handler: getCustomLaunchCapabilitiesV3, body },
    ...routesOf(authenticated, { body, auth: 'wallet', laneChainId: '1' }),
  };
}

function v3LaunchHandlers(services: Services) {
  const { baseLaunches, config } = services;
  /** Preflight and create need the lane's contracts: a deployment without them admits nothing. */
  const requireBaseLayer = () => {
    if (!services.baseDeployment) throw new ApiError('BASE_LAYER_NOT_CONFIGURED');
  };
  return {
    getCustomLaunchCapabilitiesV3: () => ({
      status: 200,
      body: capabilitiesV3(config, services.baseDeployment, services.compilerVersion()),
    }),
    preflightCustomLaunchV3: async (ctx) => {
      requireBaseLayer();
      return {
        status: 200,
        body: await services.preflightBaseLayer(
          principalOf(ctx),
          ctx.body as CustomLaunchCreateRequestV3,
          rawBodyOf(ctx),
        ),
      };
    },
    createCustomLaunchV3: (ctx) => {
      requireBaseLayer();
      const answer = baseLaunches.create(
        principalOf(ctx),
        ctx.body as CustomLaunchCreateRequestV3,
        rawBodyOf(ctx),
        idempotencyKeyOf(ctx),
      );
      return { status: answer.status, rawJson: answer.body };
    },
    listCustomLaunchesV3: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: baseLaunches.list(principalOf(ctx), limit, cursor) };
    },
    getCustomLaunchV3: (ctx) => ({
      status: 200,
      body: baseLaunches.get(principalOf(ctx), String(ctx.params.launchId)),
    }),
    submitFundingAuthorizationV3: async (ctx) => ({
      status: 200,
      body: await baseLaunches.submitFundingAuthorization(
        principalOf(ctx),
        String(ctx.params.launchId),
        (ctx.body as CustomLaunchFundingAuthorizationRequestV3).signature,
      ),
    }),
    cancelCustomLaunchV3: (ctx) => ({
      status: 200,
      body: baseLaunches.cancel(principalOf(ctx), String(ctx.params.launchId)),
    }),
  } satisfies Record<string, OperationHandler>;
}
