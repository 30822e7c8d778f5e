import { describe, expectTypeOf, it } from 'vitest';
import type { MultiRoleSubmitJournalV1 } from '../../generated/schemas/multi-role-submit-journal.v1.ts';
import type {
  MultiRoleCustomLaunchCapabilitiesV2,
  MultiRoleCustomLaunchPreflightV2,
  MultiRoleCustomLaunchResourceV2,
} from '../../generated/types/service.ts';
import {
  type MultiRoleWaitGoal,
  preflightMultiRoleLaunch,
  type readMultiRoleCapabilities,
  type readMultiRoleLaunch,
  requireMultiRoleWrites,
  type submitMultiRoleWithJournal,
  type waitForMultiRoleLaunch,
} from '../../src/client/index.ts';

// Type tests of the shared-lane (MultiRole V2) client: its shapes come from the spec, every network call is
// `{ data } | { error }`, and wrong calls do not compile.

type DataOf<R> = Extract<Awaited<R>, { data: object }>['data'];
type ErrorOf<R> = NonNullable<Extract<Awaited<R>, { error: object }>['error']>;

describe('shared-lane client types', () => {
  it('types each call as data or error, never both', () => {
    expectTypeOf<
      DataOf<ReturnType<typeof readMultiRoleCapabilities>>['capabilities']
    >().toEqualTypeOf<MultiRoleCustomLaunchCapabilitiesV2>();
    expectTypeOf<
      DataOf<ReturnType<typeof preflightMultiRoleLaunch>>['report']
    >().toEqualTypeOf<MultiRoleCustomLaunchPreflightV2>();
    expectTypeOf<
      DataOf<ReturnType<typeof readMultiRoleLaunch>>['launch']
    >().toEqualTypeOf<MultiRoleCustomLaunchResourceV2>();
    expectTypeOf<ErrorOf<ReturnType<typeof preflightMultiRoleLaunch>>['kind']>().toEqualTypeOf<
      'refused' | 'no_answer'
    >();
    expectTypeOf<ErrorOf<ReturnType<typeof readMultiRoleLaunch>>['kind']>().toEqualTypeOf<'refused' | 'retry'>();
    type Submitted = Awaited<ReturnType<typeof submitMultiRoleWithJournal>>;
    expectTypeOf<DataOf<Submitted>['status']>().toEqualTypeOf<200 | 202>();
    expectTypeOf<DataOf<Submitted>['launch']>().toEqualTypeOf<MultiRoleCustomLaunchResourceV2>();
    expectTypeOf<ErrorOf<Submitted>['kind']>().toEqualTypeOf<'refused' | 'unresolved'>();
    expectTypeOf(requireMultiRoleWrites).returns.resolves.toEqualTypeOf<MultiRoleCustomLaunchCapabilitiesV2>();
  });

  it('waits for a status on the way to finality and stops at the terminal alternatives', () => {
    expectTypeOf<ErrorOf<ReturnType<typeof waitForMultiRoleLaunch>>['kind']>().toEqualTypeOf<
      'stuck' | 'refused' | 'timeout'
    >();
    expectTypeOf<MultiRoleWaitGoal>().toEqualTypeOf<
      'received' | 'validating' | 'simulating' | 'authorized' | 'submitted' | 'finalized'
    >();
    // @ts-expect-error a wait cannot wait for a terminal alternative
    const until: MultiRoleWaitGoal = 'needs_evidence';
    void until;
    expectTypeOf<MultiRoleSubmitJournalV1['apiVersion']>().toEqualTypeOf<4>();
    expectTypeOf<MultiRoleSubmitJournalV1['chainId']>().toEqualTypeOf<'4663'>();
  });

  it('refuses a preflight without the exact bytes', () => {
    // @ts-expect-error the request goes as its exact bytes, never as an object to serialize
    void preflightMultiRoleLaunch({ origin: 'https://api.example', apiKey: 'k', timeoutMs: 1, request: {} });
  });
});
