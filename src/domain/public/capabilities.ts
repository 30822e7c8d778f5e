import type { CustomLaunchCapabilitiesV2 } from '../../../generated/types/service.ts';
import type { Config } from '../../config.ts';
import { clientReleases } from '../../core/client-releases.ts';
import { type RunningGates, writesGate } from './running-gates.ts';

/**
 * getCustomLaunchCapabilitiesV4: the exact chain capabilities of this deployment, built from its configuration and
 * what runs; writes are disabled, with the reason, when no chain gates run or their deployment evidence is not
 * verified (writesGate). Spec: spec/openapi/paths/v4-capabilities.yaml,
 * spec/schemas/custom-launch-capabilities.v2.schema.json (limits, feePolicy, writes).
 */
export function capabilitiesV4(config: Config, gates: RunningGates): CustomLaunchCapabilitiesV2 {
  const writes = writesGate(gates);
  return {
    schemaVersion: 'platform.custom-launch-capabilities.v2',
    apiVersion: 4,
    chainId: '4663',
    caip2: 'eip155:4663',
    profiles: [
      { profile: '4.1.0', state: 'current', fundingPlanRequired: true, clientRelease: clientReleases['4.1.0'] },
      { profile: '4.0.0', state: 'frozen', fundingPlanRequired: false, clientRelease: clientReleases['4.0.0'] },
    ],
    writes: { enabled: writes.open, reasons: writes.reasons },
    limits: {
      pageSize: { default: 10, minimum: 1, maximum: 25 },
      cursorLength: { minimum: 16, maximum: 512 },
      idempotencyKeyLength: { minimum: 16, maximum: 128 },
      graphTargets: { minimum: 3, maximum: 16 },
      hookPermissionMask: { minimum: 0, maximum: 16383 },
      initialBuy: { minimumUsd: 1, quoteMaxAgeSeconds: 60, staleFallback: false, appliesToProfile: '4.1.0' },
      permit: { maxLifetimeSeconds: 3600 },
      admission: {
        newRequestsPerHour: config.admissionPerHour,
        newRequestsPerDay: config.admissionPerDay,
        exactReplaysConsume: false,
      },
    },
    feePolicy: {
      policyId: 'Native20',
      feeBps: 20,
      basis: 'gross_native_amount',
      rounding: 'up_to_next_wei',
      chargedPer: 'successful_buy_or_sell',
      chargedOn: 'launch_stamp_router_trades',
      recipient: config.platformFeeRecipient,
      creatorFeesAdditional: true,
      lpFeesAdditional: true,
      claimableByApiKey: false,
      admissionProvesRevenue: false,
    },
    claims: { safetyClaim: false, feeBehaviorClaim: false },
    scopes: {
      preflight: 'custom-launch:create',
      create: 'custom-launch:create',
      list: 'custom-launch:read',
      read: 'custom-launch:read',
      reservedDisabled: ['fees:claim', 'buybacks:manage'],
    },
  } as CustomLaunchCapabilitiesV2;
}
