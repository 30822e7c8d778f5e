import { describe, expectTypeOf, it } from 'vitest';
import type { LaunchSubmitJournalV1 } from '../../generated/schemas/launch-submit-journal.v1.ts';
import type { ApiError, ApiErrorCode, CustomLaunchResourceV4 } from '../../generated/types/service.ts';
import { type CustomLaunchCreateRequestV4, createLaunchClient, type LaunchClient } from '../../src/client/index.ts';
import type { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import type { waitForLaunch } from '../../src/client/launches/poll.ts';
import type { submitWithJournal } from '../../src/client/launches/submit.ts';

// Type tests: the client's shapes come from the spec, and its wrong paths and bodies do not compile.
type GetResult = Awaited<ReturnType<LaunchClient['get']>>;

declare const client: LaunchClient;
declare const body: CustomLaunchCreateRequestV4;

describe('client types', () => {
  it('types get() data as the V4 resource and its error as the ApiError body', () => {
    expectTypeOf<GetResult['data']>().toEqualTypeOf<CustomLaunchResourceV4 | undefined>();
    expectTypeOf<NonNullable<GetResult['data']>['status']>().toEqualTypeOf<
      | 'received'
      | 'validating'
      | 'action_required'
      | 'authorized'
      | 'awaiting_wallet_signature'
      | 'wallet_action_required'
      | 'submitted'
      | 'sequencer_soft_confirmed'
      | 'ethereum_posted'
      | 'finalized'
      | 'failed'
    >();
    expectTypeOf<GetResult['error']>().toEqualTypeOf<ApiError | undefined>();
    expectTypeOf<NonNullable<GetResult['error']>['error']['code']>().toEqualTypeOf<ApiErrorCode>();
  });

  it('types create() data as the V4 resource', () => {
    expectTypeOf<Awaited<ReturnType<LaunchClient['create']>>['data']>().toEqualTypeOf<
      CustomLaunchResourceV4 | undefined
    >();
    expectTypeOf(createLaunchClient).parameter(0).toHaveProperty('baseUrl').toEqualTypeOf<string>();
  });

  it('rejects wrong calls at compile time', () => {
    // Type-only: the lambdas are never run.
    void (() => {
      // @ts-expect-error create needs an idempotency key
      client.create(body);
      // @ts-expect-error a body missing required fields is not a create request
      client.create({}, 'idempotency-key-0001');
      // @ts-expect-error no such path in the spec
      client.raw.GET('/v4/chains/{chainId}/no-such-thing', { params: { path: { chainId: '4663' } } });
      client.raw.GET('/v4/chains/{chainId}/custom-launches/{launchId}', {
        // @ts-expect-error the launchId path parameter is required
        params: { path: { chainId: '4663' } },
      });
      // @ts-expect-error the V4 lane's chainId is the const '4663'
      client.raw.GET('/v4/chains/{chainId}/custom-launches', { params: { path: { chainId: '1' } } });
      // @ts-expect-error limit is a number
      client.list({ limit: '10' });
    });
  });

  it('accepts the right calls', () => {
    void (() => {
      client.create(body, 'idempotency-key-0001');
      client.list({ limit: 10 });
      client.raw.GET('/v4/chains/{chainId}/custom-launches/{launchId}', {
        params: { path: { chainId: '4663', launchId: '00000000-0000-4000-8000-000000000000' } },
      });
    });
  });
});

describe('client flow types', () => {
  it('types an accepted submission as the V4 resource and a refusal with its support fields', () => {
    type Result = Awaited<ReturnType<typeof submitWithJournal>>;
    type Failure = NonNullable<Result['error']>;
    expectTypeOf<Extract<Result, { data: object }>['data']['launch']>().toEqualTypeOf<CustomLaunchResourceV4>();
    expectTypeOf<Extract<Result, { data: object }>['data']['status']>().toEqualTypeOf<200 | 202>();
    expectTypeOf<Extract<Failure, { kind: 'refused' }>['requestId']>().toEqualTypeOf<string | null>();
    expectTypeOf<Failure['kind']>().toEqualTypeOf<'refused' | 'unresolved'>();
    expectTypeOf<Extract<Result, { error: object }>['data']>().toEqualTypeOf<undefined>();
    expectTypeOf<Extract<Result, { data: object }>['error']>().toEqualTypeOf<undefined>();
  });

  it('waits only for authorized or finalized, and types the project manifest and journal from spec/', () => {
    type Waited = Awaited<ReturnType<typeof waitForLaunch>>;
    expectTypeOf<Extract<Waited, { data: object }>['data']['launch']>().toEqualTypeOf<CustomLaunchResourceV4>();
    expectTypeOf<NonNullable<Waited['error']>['kind']>().toEqualTypeOf<'stuck' | 'refused' | 'timeout'>();
    type Until = Parameters<typeof waitForLaunch>[0]['until'];
    expectTypeOf<Until>().toEqualTypeOf<'authorized' | 'finalized'>();
    // @ts-expect-error a wait for a state other than authorized or finalized does not compile
    const until: Until = 'submitted';
    void until;
    expectTypeOf<ReturnType<typeof packLaunchProject>['request']>().toEqualTypeOf<CustomLaunchCreateRequestV4>();
    expectTypeOf<LaunchSubmitJournalV1['outcome']['state']>().toEqualTypeOf<'pending' | 'accepted' | 'refused'>();
  });
});
