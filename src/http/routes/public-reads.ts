import { listFinalized, listMultiRoleFinalized } from '../../domain/launches/finalized-feed.ts';
import { listFinalizedV3 } from '../../domain/launches/finalized-feed-v3.ts';
import { capabilitiesV4 } from '../../domain/public/capabilities.ts';
import { discoveryManifest } from '../../domain/public/discovery-manifest.ts';
import { launchCoverageV4 } from '../../domain/public/launch-coverage.ts';
import { launchGuideV4 } from '../../domain/public/launch-guide.ts';
import { readiness } from '../../domain/public/readiness.ts';
import { type RunningGates, runningGates } from '../../domain/public/running-gates.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Services } from '../../services.ts';
import { migrations } from '../../store/migrations.ts';
import { jsonBody, type OperationHandler, pageOf, type RouteTable, routesOf } from '../operation.ts';

/**
 * Routes of the unauthenticated reads (spec/openapi/paths: readyz, discovery-manifest, v4-capabilities,
 * v4-launch-guide, v4-launch-coverage, the finalized feeds, v4-initial-buy-quote). None reads a body; one sent
 * anyway meets the JSON bound of its lane.
 */
export function publicReadRoutes(deps: Services): RouteTable {
  const { listFinalizedCustomLaunchesV3, ...v4Reads } = publicReadHandlers(deps);
  return {
    ...routesOf(v4Reads, { body: jsonBody(deps.config.v4BodyLimitBytes) }),
    listFinalizedCustomLaunchesV3: {
      handler: listFinalizedCustomLaunchesV3,
      body: jsonBody(deps.config.v3BodyLimitBytes),
    },
  };
}

function publicReadHandlers(deps: Services) {
  const { db, config, now, priceFeed } = deps;
  const evidence = () => deps.evidence?.() ?? null;
  const latestMigration = migrations.at(-1)?.version ?? 0;
  const gates = (): RunningGates => runningGates(config, deps.evidence?.(), priceFeed !== null);

  return {
    getReadiness: () => {
      const doc = readiness(db, latestMigration, now(), evidence());
      if (doc.status === 'ready') return { status: 200, body: doc };
      return { status: 503, body: doc, headers: { 'Retry-After': '5' } };
    },
    getDiscoveryManifest: (ctx) => ({ status: 200, body: discoveryManifest(config, gates(), now(), ctx.listenOrigin) }),
    getCustomLaunchCapabilitiesV4: () => ({ status: 200, body: capabilitiesV4(config, gates()) }),
    getLaunchGuideV4: () => ({ status: 200, body: launchGuideV4(gates()) }),
    getLaunchCoverageV4: () => ({
      status: 200,
      body: launchCoverageV4(now(), readiness(db, latestMigration, now(), evidence()).status === 'ready', gates()),
    }),
    listMultiRoleFinalizedCustomLaunches: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: listMultiRoleFinalized(db, String(ctx.params.chainId), limit, cursor) };
    },
    listFinalizedCustomLaunchesV3: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: listFinalizedV3(db, limit, cursor) };
    },
    listFinalizedCustomLaunchesV4: (ctx) => {
      const { limit, cursor } = pageOf(ctx);
      return { status: 200, body: listFinalized(db, String(ctx.params.chainId), limit, cursor) };
    },
    // No price source configured: never a made-up price, a retryable 503.
    getL2InitialBuyUsdQuoteV1: async () => {
      if (!priceFeed) {
        throw new ApiError('PRICE_SOURCE_UNAVAILABLE', {
          message: 'No price source is configured (CHAIN_4663_RPC_URLS and PRICE_FEED_ADDRESS); no price is made up.',
          retryAfterSeconds: config.quoteRetryAfterSeconds,
        });
      }
      return { status: 200, body: await priceFeed.quote(now()) };
    },
  } satisfies Record<string, OperationHandler>;
}
