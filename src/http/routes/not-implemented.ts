import type { Config } from '../../config.ts';
import { jsonBody, type RouteTable } from '../operation.ts';

/**
 * The operations of the contract this deployment does not implement yet: no handler, so each answers 501
 * NOT_IMPLEMENTED, after the same body bound and authentication an implemented operation of its lane has.
 */
export function notImplementedRoutes(config: Config): RouteTable {
  const v4 = jsonBody(config.v4BodyLimitBytes);
  return {
    // spec/openapi/paths/v4-permit-reissue-disposition.yaml
    decidePermitReissueV4: { body: v4, auth: 'wallet' },
  };
}
