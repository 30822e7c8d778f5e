import { describe, expectTypeOf, it } from 'vitest';
import type { BaseLayerSubmitJournalV1 } from '../../generated/schemas/launch-submit-journal-v3.v1.ts';
import type {
  CustomLaunchCapabilitiesV3,
  CustomLaunchCreateRequestV3,
  CustomLaunchFundingTypedDataV3,
  CustomLaunchPreflightV3,
  CustomLaunchResourceV3,
} from '../../generated/types/service.ts';
import {
  type BaseLayerWaitGoal,
  type cancelBaseLayerLaunch,
  fundingTypedDataOf,
  packBaseLayerLaunch,
  preflightBaseLayerLaunch,
  type readBaseLayerCapabilities,
  type readBaseLayerLaunch,
  sendFundingSignature,
  type submitBaseLayerWithJournal,
  type waitForBaseLayerLaunch,
} from '../../src/client/index.ts';

// Type tests of the base-layer (V3) client: its shapes come from the spec, every network call is `{ data } | { error }`,
// and wrong calls do not compile.

type DataOf<R> = Extract<Awaited<R>, { data: object }>['data'];
type ErrorOf<R> = NonNullable<Extract<Awaited<R>, { error: object }>['error']>;

describe('base-layer client types', () => {
  it('types pack as the V3 create request with the predicted addresses', () => {
    type Packed = ReturnType<typeof packBaseLayerLaunch>;
    expectTypeOf<Packed['request']>().toEqualTypeOf<CustomLaunchCreateRequestV3>();
    expectTypeOf<Packed['predicted']>().toEqualTypeOf<{
      token: `0x${string}`;
      hook: `0x${string}`;
      poolId: `0x${string}`;
    }>();
    expectTypeOf(packBaseLayerLaunch).parameter(1).toHaveProperty('launchWallet').toEqualTypeOf<string>();
  });

  it('types each call as data or error, never both', () => {
    expectTypeOf<
      DataOf<ReturnType<typeof readBaseLayerCapabilities>>['capabilities']
    >().toEqualTypeOf<CustomLaunchCapabilitiesV3>();
    expectTypeOf<
      DataOf<ReturnType<typeof preflightBaseLayerLaunch>>['report']
    >().toEqualTypeOf<CustomLaunchPreflightV3>();
    expectTypeOf<DataOf<ReturnType<typeof readBaseLayerLaunch>>['launch']>().toEqualTypeOf<CustomLaunchResourceV3>();
    expectTypeOf<DataOf<ReturnType<typeof sendFundingSignature>>['launch']>().toEqualTypeOf<CustomLaunchResourceV3>();
    expectTypeOf<DataOf<ReturnType<typeof cancelBaseLayerLaunch>>['launch']>().toEqualTypeOf<CustomLaunchResourceV3>();
    expectTypeOf<ErrorOf<ReturnType<typeof sendFundingSignature>>['kind']>().toEqualTypeOf<'refused' | 'no_answer'>();
    expectTypeOf<ErrorOf<ReturnType<typeof readBaseLayerLaunch>>['kind']>().toEqualTypeOf<'refused' | 'retry'>();
    type Submitted = Awaited<ReturnType<typeof submitBaseLayerWithJournal>>;
    expectTypeOf<DataOf<Submitted>['status']>().toEqualTypeOf<200 | 202>();
    expectTypeOf<ErrorOf<Submitted>['kind']>().toEqualTypeOf<'refused' | 'unresolved'>();
    expectTypeOf<Extract<Submitted, { data: object }>['error']>().toEqualTypeOf<undefined>();
    expectTypeOf<Extract<Submitted, { error: object }>['data']>().toEqualTypeOf<undefined>();
  });

  it('waits for a lifecycle status and stops at the funding signature, cancellation or failure', () => {
    type Waited = ReturnType<typeof waitForBaseLayerLaunch>;
    expectTypeOf<ErrorOf<Waited>['kind']>().toEqualTypeOf<'stuck' | 'awaiting_signature' | 'refused' | 'timeout'>();
    expectTypeOf<BaseLayerWaitGoal>().toEqualTypeOf<
      | 'received'
      | 'validating'
      | 'pending_review'
      | 'awaiting_funding_authorization'
      | 'funding_authorization_verified'
      | 'prepared'
      | 'simulating'
      | 'authorized'
      | 'submitted'
      | 'finalized'
    >();
    // @ts-expect-error a wait cannot wait for a terminal alternative
    const until: BaseLayerWaitGoal = 'cancelled';
    void until;
    expectTypeOf(fundingTypedDataOf).returns.toEqualTypeOf<CustomLaunchFundingTypedDataV3 | null>();
    expectTypeOf<BaseLayerSubmitJournalV1['apiVersion']>().toEqualTypeOf<3>();
    expectTypeOf<BaseLayerSubmitJournalV1['chainId']>().toEqualTypeOf<'1'>();
  });

  it('rejects wrong calls at compile time', () => {
    void (() => {
      const base = { origin: 'http://127.0.0.1:1', apiKey: 'k', timeoutMs: 1 };
      // @ts-expect-error the funding signature call needs the signature
      sendFundingSignature({ ...base, launchId: 'x' });
      // @ts-expect-error the signature is a string, never a signing key object
      sendFundingSignature({ ...base, launchId: 'x', signature: { privateKey: '0x' } });
      // @ts-expect-error preflight sends exact bytes, not an object
      preflightBaseLayerLaunch({ ...base, bytes: {} as CustomLaunchCreateRequestV3 });
      // @ts-expect-error pack needs the lane
      packBaseLayerLaunch('dir', { launchWallet: '0x' });
    });
  });
});
