import type { CustomLaunchResourceV4 } from '../../generated/types/service.ts';

/** A V4 launch status (spec/schemas/custom-launch-resource.v4.schema.json status). */
export type LaunchStatusV4 = CustomLaunchResourceV4['status'];

/**
 * The statuses of an authorized launch, in lifecycle order: from the permit issued, through the wallet handoff and
 * the chain's confirmations, to finality. The server's tracker follows all but the last; a client waiting for
 * `authorized` is done at any of them.
 */
export const authorizedOnward = [
  'authorized',
  'awaiting_wallet_signature',
  'wallet_action_required',
  'submitted',
  'sequencer_soft_confirmed',
  'ethereum_posted',
  'finalized',
] as const satisfies readonly LaunchStatusV4[];
