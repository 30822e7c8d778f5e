import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/db.ts';
import { migrations } from '../../src/store/migrations.ts';
import { databaseBefore } from '../support/migrations.ts';

describe('the deadline migration: the validation deadline of jobs accepted before it (docs/configuration.md)', () => {
  it('gives a job written before it the default deadline, 24 hours after its launch was accepted', () => {
    const db = databaseBefore('lifecycle: the validation deadline');
    db.prepare(
      "INSERT INTO api_keys (key_id, key_hash, kind, wallet, scopes, chains, lineage_id, created_at) VALUES ('k', 'h', 'wallet', '0x', '[]', '[]', 'l', '2026-11-01T00:00:00.000Z')",
    ).run();
    db.prepare(
      `INSERT INTO launches (launch_id, chain_id, lineage_id, owner_key_id, profile, status, launch_wallet, request_digest,
         launch_intent_hash, request_bytes, created_at, updated_at)
       VALUES ('a', '4663', 'l', 'k', '4.1.0', 'validating', '0x', 'd', 'i', X'00', '2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z')`,
    ).run();
    db.prepare(
      "INSERT INTO lifecycle_jobs (launch_id, state, attempt, max_attempts, next_attempt_ms, updated_at) VALUES ('a', 'retry_wait', 4, 5, 0, '2026-11-22T10:00:00.000Z')",
    ).run();
    expect(migrate(db)).toBe(migrations.at(-1)?.version);
    const job = db.prepare("SELECT deadline_ms FROM lifecycle_jobs WHERE launch_id = 'a'").get() as {
      deadline_ms: number;
    };
    expect(new Date(job.deadline_ms).toISOString()).toBe('2026-11-23T10:00:00.000Z');
    db.close();
  });
});
