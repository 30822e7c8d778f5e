import type { Config } from '../../config.ts';
import { getHistory, listHistory } from '../../domain/history/history-reads.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { jsonBody, type OperationHandler, pageOf, principalOf, type RouteTable, routesOf } from '../operation.ts';

/**
 * The V2 and V1 routes (spec/openapi/paths/v2-custom-launches.yaml, v1-custom-launches.yaml, v2-custom-launch.yaml,
 * v1-custom-launch.yaml): read-only history. POST is permanently refused (409, not retryable; a body is read within
 * the V4 bound). The GETs read the imported records with a wallet or partner key holding custom-launch:read and a
 * grant for chain 1.
 */
export function legacyRoutes(config: Config, db: Db): RouteTable {
  const body = jsonBody(config.v4BodyLimitBytes);
  return {
    createCustomLaunchV2: {
      body,
      handler: () => {
        throw new ApiError('CUSTOM_LAUNCH_V2_READ_ONLY');
      },
    },
    createCustomLaunchV1: {
      body,
      handler: () => {
        throw new ApiError('CUSTOM_LAUNCH_V1_READ_ONLY');
      },
    },
    ...routesOf(historyHandlers(db), { body, auth: 'wallet', laneChainId: '1' }),
  };
}

function historyHandlers(db: Db) {
  return {
    listCustomLaunchesV2: (ctx) => ({ status: 200, body: listHistory(db, 'v2', principalOf(ctx), pageOf(ctx)) }),
    getCustomLaunchV2: (ctx) => ({
      status: 200,
      body: getHistory(db, 'v2', principalOf(ctx), String(ctx.params.launchId)),
    }),
    listCustomLaunchesV1: (ctx) => ({ status: 200, body: listHistory(db, 'v1', principalOf(ctx), pageOf(ctx)) }),
    getCustomLaunchV1: (ctx) => ({
      status: 200,
      body: getHistory(db, 'v1', principalOf(ctx), String(ctx.params.launchId)),
    }),
  } satisfies Record<string, OperationHandler>;
}
