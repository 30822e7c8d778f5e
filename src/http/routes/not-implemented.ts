import type { Config } from '../../config.ts';
import { jsonBody, type RouteTable } from '../operation.ts';

/**
 * The operations of the contract this deployment does not implement yet: no handler, so each answers 501
 * NOT_IMPLEMENTED, after the same body bound and authentication an implemented operation of its lane has.
 */
export function notImplementedRoutes(config: Config): RouteTable {
  const v4 = jsonBody(config.v4BodyLimitBytes);
  return {
    // spec/openapi/paths/multi-role-*.yaml: the shared multi-role lane.
    getMultiRoleCapabilitiesV2: { body: v4 },
    getMultiRoleGuide: { body: v4 },
    getMultiRoleClient: { body: v4 },
    preflightMultiRoleCustomLaunch: { body: v4, auth: 'wallet' },
    listMultiRoleCustomLaunches: { body: v4, auth: 'wallet' },
    createMultiRoleCustomLaunch: { body: v4, auth: 'wallet' },
    getMultiRoleCustomLaunch: { body: v4, auth: 'wallet' },
    // spec/openapi/paths/v4-permit-reissue-disposition.yaml
    decidePermitReissueV4: { body: v4, auth: 'wallet' },
  };
}
