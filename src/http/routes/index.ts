import type { Config } from '../../config.ts';
import { buildServices, type ServiceInputs, type Services } from '../../services.ts';
import { type BodyPolicy, jsonBody, type OperationHandler, type RouteTable } from '../operation.ts';
import { contractDocumentRoutes } from './contract-documents.ts';
import { legacyRoutes } from './legacy.ts';
import { moduleRoutes } from './modules.ts';
import { multiRoleLaunchRoutes } from './multi-role-launches.ts';
import { partnerSubkeyRoutes } from './partner-subkeys.ts';
import { publicReadRoutes } from './public-reads.ts';
import { v3LaunchRoutes } from './v3-launches.ts';
import { v4LaunchRoutes } from './v4-launches.ts';

/**
 * The route of every operation of the service spec by its operationId. An operation without a handler answers
 * 501 NOT_IMPLEMENTED and is listed in docs/operations.md as not yet implemented.
 */
export function buildRoutes(services: Services): RouteTable {
  return {
    ...publicReadRoutes(services),
    ...contractDocumentRoutes(services.config),
    ...v4LaunchRoutes(services),
    ...v3LaunchRoutes(services),
    ...multiRoleLaunchRoutes(services),
    ...legacyRoutes(services.config, services.db),
    ...moduleRoutes(services),
    ...partnerSubkeyRoutes(services.subkeys),
  };
}

/** A request that names no operation of the spec still has its body read (within the V4 bound) before its 404. */
export function unmatchedBody(config: Config): BodyPolicy {
  return jsonBody(config.v4BodyLimitBytes);
}

/** Every implemented operation's handler by its spec operationId. */
export function buildOperations(inputs: ServiceInputs): Record<string, OperationHandler> {
  const handlers: Record<string, OperationHandler> = {};
  for (const [operationId, route] of Object.entries(buildRoutes(buildServices(inputs)))) {
    if (route.handler) handlers[operationId] = route.handler;
  }
  return handlers;
}
