/**
 * The intent claims of one lane's launch table (version 15): the two claim columns, filled for the earliest launch of
 * each intent only, and their unique indexes, per chain where the table holds several (`chain`).
 */
function intentClaimsSql(table: string, chain: string | null): string {
  const scope = chain === null ? '' : `${chain}, `;
  const nonce = `CASE WHEN json_valid(CAST(request_bytes AS TEXT)) THEN json_extract(CAST(request_bytes AS TEXT), '$.nonce') END`;
  return `
      ALTER TABLE ${table} ADD COLUMN intent_claim TEXT;
      ALTER TABLE ${table} ADD COLUMN wallet_nonce TEXT;
      UPDATE ${table} SET intent_claim = f.claim FROM
        (SELECT min(seq) AS first_seq, launch_intent_hash AS claim FROM ${table} GROUP BY ${scope}launch_intent_hash) AS f
        WHERE ${table}.seq = f.first_seq;
      UPDATE ${table} SET wallet_nonce = f.claim FROM
        (SELECT min(seq) AS first_seq, lower(launch_wallet) || ':' || (${nonce}) AS claim FROM ${table}
          GROUP BY ${scope}claim) AS f
        WHERE ${table}.seq = f.first_seq;
      CREATE UNIQUE INDEX ${table}_intent_claim ON ${table} (${scope}intent_claim);
      CREATE UNIQUE INDEX ${table}_wallet_nonce ON ${table} (${scope}wallet_nonce);`;
}

/**
 * Versioned schema migrations, applied in order inside one transaction each. Never edit a released migration;
 * add a new one.
 */
export const migrations: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'keys, launches, idempotency, admissions',
    sql: `
      CREATE TABLE api_keys (
        key_id      TEXT PRIMARY KEY,
        key_hash    TEXT NOT NULL UNIQUE,
        kind        TEXT NOT NULL CHECK (kind IN ('wallet', 'partner-root', 'subkey')),
        wallet      TEXT,
        scopes      TEXT NOT NULL,
        chains      TEXT NOT NULL,
        lineage_id  TEXT NOT NULL,
        partner_id  TEXT,
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
      ) STRICT;

      CREATE TABLE launches (
        seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id           TEXT NOT NULL UNIQUE,
        chain_id            TEXT NOT NULL,
        lineage_id          TEXT NOT NULL,
        partner_id          TEXT,
        owner_key_id        TEXT NOT NULL REFERENCES api_keys (key_id),
        profile             TEXT NOT NULL,
        status              TEXT NOT NULL,
        launch_wallet       TEXT NOT NULL,
        request_digest      TEXT NOT NULL,
        launch_intent_hash  TEXT NOT NULL,
        request_bytes       BLOB NOT NULL,
        created_at          TEXT NOT NULL,
        updated_at          TEXT NOT NULL
      ) STRICT;
      CREATE INDEX launches_lineage ON launches (chain_id, lineage_id, seq);
      CREATE INDEX launches_partner ON launches (chain_id, partner_id, seq);
      CREATE INDEX launches_status ON launches (chain_id, status, seq);

      CREATE TABLE idempotency_records (
        key_id          TEXT NOT NULL,
        operation       TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        request_digest  TEXT NOT NULL,
        response_status INTEGER NOT NULL,
        response_body   TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        PRIMARY KEY (key_id, operation, idempotency_key)
      ) STRICT;

      CREATE TABLE admissions (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        admitted_ms INTEGER NOT NULL,
        launch_id   TEXT NOT NULL
      ) STRICT;
      CREATE INDEX admissions_time ON admissions (admitted_ms);

      -- One row per finalized router-backed launch, written by the finality tracker; the public feed pages over it.
      CREATE TABLE finalized_feed (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        chain_id     TEXT NOT NULL,
        launch_id    TEXT NOT NULL UNIQUE,
        item_json    TEXT NOT NULL,
        finalized_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX finalized_feed_chain ON finalized_feed (chain_id, seq);
    `,
  },
  {
    version: 2,
    name: 'lifecycle queue, transitions, admission results',
    sql: `
      -- One durable job per launch. The queue schedules and retries work; only a lifecycle step changes a status.
      CREATE TABLE lifecycle_jobs (
        launch_id        TEXT PRIMARY KEY REFERENCES launches (launch_id),
        state            TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'retry_wait', 'idle', 'exhausted')),
        attempt          INTEGER NOT NULL DEFAULT 0,
        max_attempts     INTEGER NOT NULL,
        next_attempt_ms  INTEGER,
        lease_owner      TEXT,
        lease_expires_ms INTEGER,
        last_error_code  TEXT,
        updated_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX lifecycle_jobs_due ON lifecycle_jobs (state, next_attempt_ms);

      -- Every status change, once: the audit that a resumed worker did nothing twice.
      CREATE TABLE launch_transitions (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id   TEXT NOT NULL REFERENCES launches (launch_id),
        from_status TEXT NOT NULL,
        to_status   TEXT NOT NULL,
        worker      TEXT NOT NULL,
        at          TEXT NOT NULL
      ) STRICT;

      ALTER TABLE launches ADD COLUMN findings_json TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE launches ADD COLUMN remediation_json TEXT;
      ALTER TABLE launches ADD COLUMN failure_json TEXT;
    `,
  },
  {
    version: 3,
    name: 'the exact wallet transaction bound at authorized',
    sql: `
      ALTER TABLE launches ADD COLUMN wallet_transaction_json TEXT;
    `,
  },
  {
    version: 4,
    name: 'post-authorization tracking: chain evidence and the scan cursor',
    sql: `
      -- The observed exact wallet transaction (chainEvidence) and the last block the tracker scanned for it.
      ALTER TABLE launches ADD COLUMN chain_evidence_json TEXT;
      ALTER TABLE launches ADD COLUMN tracked_to_block INTEGER;
      CREATE INDEX launches_tracked ON launches (status) WHERE status IN ('authorized', 'awaiting_wallet_signature',
        'wallet_action_required', 'submitted', 'sequencer_soft_confirmed', 'ethereum_posted');
    `,
  },
  {
    version: 5,
    name: 'the base-layer finalized feed',
    sql: `
      -- Stored rows of the base-layer (V3, V2 history) finalized feed; each page validates them before publishing.
      CREATE TABLE v3_finalized_feed (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id    TEXT NOT NULL UNIQUE,
        item_json    TEXT NOT NULL,
        finalized_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 6,
    name: 'the shared lane finalized feed',
    sql: `
      -- The shared token-and-hook lane's own finalized feed, never mixed with the V4 feed.
      CREATE TABLE multi_role_finalized_feed (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        chain_id     TEXT NOT NULL,
        launch_id    TEXT NOT NULL UNIQUE,
        item_json    TEXT NOT NULL,
        finalized_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX multi_role_finalized_feed_chain ON multi_role_finalized_feed (chain_id, seq);
    `,
  },
  {
    version: 7,
    name: 'source verification: delivered source files and the verifier schedule',
    sql: `
      -- Delivered source-file bytes, content-addressed (one row per distinct SHA-256, shared by launches).
      CREATE TABLE source_blobs (
        sha256 TEXT PRIMARY KEY,
        bytes  BLOB NOT NULL
      ) STRICT;
      -- Which manifest files (by hash) a launch's controller delivered.
      CREATE TABLE launch_source_files (
        launch_id   TEXT NOT NULL REFERENCES launches (launch_id),
        sha256      TEXT NOT NULL REFERENCES source_blobs (sha256),
        received_at TEXT NOT NULL,
        PRIMARY KEY (launch_id, sha256)
      ) STRICT, WITHOUT ROWID;
      -- When the source verifier next looks at a finalized launch (null once every component is final), and how
      -- many attempts it made (the retry delay doubles with each).
      ALTER TABLE finalized_feed ADD COLUMN verify_next_at TEXT;
      ALTER TABLE finalized_feed ADD COLUMN verify_attempts INTEGER NOT NULL DEFAULT 0;
      UPDATE finalized_feed SET verify_next_at = json_extract(item_json, '$.sourceVerification.updatedAt')
        WHERE json_extract(item_json, '$.sourceVerification.status') IN ('queued', 'retrying');
      CREATE INDEX finalized_feed_verify ON finalized_feed (verify_next_at) WHERE verify_next_at IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'module intake: immutable drafts',
    sql: `
      -- One immutable draft per accepted module submission (submitModule, spec/openapi/paths/modules-submissions.yaml):
      -- the exact request bytes and the receipt answered at creation. Never updated.
      CREATE TABLE module_submissions (
        seq                      INTEGER PRIMARY KEY AUTOINCREMENT,
        submission_id            TEXT NOT NULL UNIQUE,
        author                   TEXT NOT NULL,
        key_id                   TEXT NOT NULL,
        family_id                TEXT NOT NULL,
        package_id               TEXT NOT NULL,
        name                     TEXT NOT NULL,
        version                  TEXT NOT NULL,
        supersedes_submission_id TEXT UNIQUE REFERENCES module_submissions (submission_id),
        request_bytes            BLOB NOT NULL,
        receipt_json             TEXT NOT NULL,
        created_at               TEXT NOT NULL
      ) STRICT;
      CREATE INDEX module_submissions_author ON module_submissions (author, seq);
      CREATE INDEX module_submissions_family ON module_submissions (family_id, version);
    `,
  },
  {
    version: 9,
    name: 'module review: the durable review job of each submission',
    sql: `
      -- One durable review job per submission, created in the submit transaction (a submission without one answers
      -- MODULE_REVIEW_JOB_UNAVAILABLE). revision counts state changes; attempt counts build attempts.
      CREATE TABLE module_reviews (
        submission_id   TEXT PRIMARY KEY REFERENCES module_submissions (submission_id),
        state           TEXT NOT NULL,
        revision        INTEGER NOT NULL,
        attempt         INTEGER NOT NULL,
        plan_json       TEXT,
        last_error_json TEXT,
        build_json      TEXT,
        decision_json   TEXT,
        lease_owner     TEXT,
        lease_expires_ms INTEGER,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      ) STRICT;
      CREATE INDEX module_reviews_state ON module_reviews (state) WHERE state IN ('awaiting_plan', 'queued', 'running');
    `,
  },
  {
    version: 10,
    name: 'partners: partner roots and their subkeys, with expiry, budgets and lineage',
    sql: `
      -- A partner is its root key's partner_id (its name is the root's display_name, its wallet the root's wallet).
      -- Partner roots and subkeys carry an expiry and their budgets; a subkey names the root that issued it, the
      -- subkey it replaced (rotation keeps lineage_id), and why it stopped (revoked_at with revoke_reason).
      ALTER TABLE api_keys ADD COLUMN display_name TEXT;
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN prepare_per_hour INTEGER;
      ALTER TABLE api_keys ADD COLUMN read_per_minute INTEGER;
      ALTER TABLE api_keys ADD COLUMN subkey_admin_per_hour INTEGER;
      ALTER TABLE api_keys ADD COLUMN issuer_key_id TEXT REFERENCES api_keys (key_id);
      ALTER TABLE api_keys ADD COLUMN rotated_from_key_id TEXT REFERENCES api_keys (key_id);
      ALTER TABLE api_keys ADD COLUMN revoke_reason TEXT CHECK (revoke_reason IN ('revoked', 'rotated'));
      CREATE INDEX api_keys_issuer ON api_keys (issuer_key_id, created_at) WHERE issuer_key_id IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: 'lifecycle: the validation deadline replaces the attempt bound',
    sql: `
      -- When a launch still in received/validating stops waiting out transient failures (epoch ms). Launches accepted
      -- before this migration take the default deadline, 24 hours after acceptance. max_attempts is no longer read.
      ALTER TABLE lifecycle_jobs ADD COLUMN deadline_ms INTEGER;
      UPDATE lifecycle_jobs SET deadline_ms =
        (SELECT CAST(strftime('%s', l.created_at) AS INTEGER) * 1000 + 86400000 FROM launches l
          WHERE l.launch_id = lifecycle_jobs.launch_id);
    `,
  },
  {
    version: 12,
    name: 'the base-layer V3 lane: launches, their lifecycle jobs and transitions, and the admission rule set',
    sql: `
      -- One row per base-layer (chain 1) launch: the exact request bytes and what the lifecycle bound to them. Kept
      -- apart from the chain-4663 launches, whose workers never see these rows.
      CREATE TABLE v3_launches (
        seq                         INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id                   TEXT NOT NULL UNIQUE,
        lineage_id                  TEXT NOT NULL,
        partner_id                  TEXT,
        owner_key_id                TEXT NOT NULL REFERENCES api_keys (key_id),
        profile_version             TEXT NOT NULL,
        funding_mode                TEXT NOT NULL CHECK (funding_mode IN ('native', 'eip3009')),
        status                      TEXT NOT NULL,
        launch_wallet               TEXT NOT NULL,
        request_hash                TEXT NOT NULL,
        launch_intent_hash          TEXT NOT NULL,
        request_bytes               BLOB NOT NULL,
        partner_attribution_json    TEXT,
        finding_codes_json          TEXT NOT NULL DEFAULT '[]',
        fee_certification_json      TEXT,
        funding_authorization_json  TEXT,
        build_json                  TEXT,
        wallet_transaction_json     TEXT,
        public_output_json          TEXT,
        chain_evidence_json         TEXT,
        failure_json                TEXT,
        rule_set_revision           INTEGER,
        tracked_to_block            INTEGER,
        created_at                  TEXT NOT NULL,
        updated_at                  TEXT NOT NULL
      ) STRICT;
      CREATE INDEX v3_launches_lineage ON v3_launches (lineage_id, seq);
      CREATE INDEX v3_launches_partner ON v3_launches (partner_id, seq);
      CREATE INDEX v3_launches_status ON v3_launches (status, seq);

      -- One durable job per base-layer launch; only a lifecycle step changes a status.
      CREATE TABLE v3_lifecycle_jobs (
        launch_id        TEXT PRIMARY KEY REFERENCES v3_launches (launch_id),
        state            TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'retry_wait', 'idle', 'done')),
        attempt          INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms  INTEGER,
        lease_owner      TEXT,
        lease_expires_ms INTEGER,
        last_error_code  TEXT,
        updated_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX v3_lifecycle_jobs_due ON v3_lifecycle_jobs (state, next_attempt_ms);

      -- Every status change of a base-layer launch, once.
      CREATE TABLE v3_launch_transitions (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id   TEXT NOT NULL REFERENCES v3_launches (launch_id),
        from_status TEXT NOT NULL,
        to_status   TEXT NOT NULL,
        worker      TEXT NOT NULL,
        at          TEXT NOT NULL
      ) STRICT;
      CREATE INDEX v3_launch_transitions_launch ON v3_launch_transitions (launch_id, seq);

      -- The operator's admission rule set: each revision lists the static-baseline hard-block rules it retires.
      -- Revision 0 (no row) retires none.
      CREATE TABLE v3_rule_sets (
        revision       INTEGER PRIMARY KEY,
        retired_rules  TEXT NOT NULL,
        reason         TEXT NOT NULL,
        created_at     TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 13,
    name: 'the MultiRole V2 shared lane: launches, their lifecycle jobs and transitions',
    sql: `
      -- One row per shared-lane (MultiRole V2, chain 4663) launch: the exact request bytes and what the lifecycle
      -- bound to them. Kept apart from the V4 launches, whose workers and feed never see these rows.
      CREATE TABLE multi_role_launches (
        seq                         INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id                   TEXT NOT NULL UNIQUE,
        lineage_id                  TEXT NOT NULL,
        partner_id                  TEXT,
        owner_key_id                TEXT NOT NULL REFERENCES api_keys (key_id),
        profile_revision            INTEGER NOT NULL,
        status                      TEXT NOT NULL,
        launch_wallet               TEXT NOT NULL,
        request_hash                TEXT NOT NULL,
        launch_intent_hash          TEXT NOT NULL,
        request_bytes               BLOB NOT NULL,
        partner_attribution_json    TEXT,
        finding_codes_json          TEXT NOT NULL DEFAULT '[]',
        missing_verification_json   TEXT NOT NULL DEFAULT '[]',
        build_json                  TEXT,
        wallet_transaction_json     TEXT,
        permit_expires_at           TEXT,
        public_output_json          TEXT,
        chain_evidence_json         TEXT,
        failure_json                TEXT,
        tracked_to_block            INTEGER,
        created_at                  TEXT NOT NULL,
        updated_at                  TEXT NOT NULL
      ) STRICT;
      CREATE INDEX multi_role_launches_lineage ON multi_role_launches (lineage_id, seq);
      CREATE INDEX multi_role_launches_partner ON multi_role_launches (partner_id, seq);
      CREATE INDEX multi_role_launches_status ON multi_role_launches (status, seq);

      -- One durable job per shared-lane launch; only a lifecycle step changes a status.
      CREATE TABLE multi_role_lifecycle_jobs (
        launch_id        TEXT PRIMARY KEY REFERENCES multi_role_launches (launch_id),
        state            TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'retry_wait', 'idle', 'done')),
        attempt          INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms  INTEGER,
        lease_owner      TEXT,
        lease_expires_ms INTEGER,
        last_error_code  TEXT,
        updated_at       TEXT NOT NULL
      ) STRICT;
      CREATE INDEX multi_role_lifecycle_jobs_due ON multi_role_lifecycle_jobs (state, next_attempt_ms);

      -- Every status change of a shared-lane launch, once.
      CREATE TABLE multi_role_launch_transitions (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        launch_id   TEXT NOT NULL REFERENCES multi_role_launches (launch_id),
        from_status TEXT NOT NULL,
        to_status   TEXT NOT NULL,
        worker      TEXT NOT NULL,
        at          TEXT NOT NULL
      ) STRICT;
      CREATE INDEX multi_role_launch_transitions_launch ON multi_role_launch_transitions (launch_id, seq);
    `,
  },
  {
    version: 14,
    name: 'permit reissue, the public launch registry, and V2/V1 history',
    sql: `
      -- A V4 launch whose permit expired before broadcast: the pending decision (expiry seen, decision deadline) and
      -- the decisions made (decidePermitReissueV4); null while its permit never expired.
      ALTER TABLE launches ADD COLUMN permit_reissue_json TEXT;

      -- The public registry the developer API reads: one row per finalized launch of every lane with its token,
      -- written in the same transaction as the lane's finalized-feed row (or the history import). Never updated or
      -- deleted, so the token list only grows. token_decimals is null when the token did not answer decimals();
      -- such a token stays out of the token list.
      CREATE TABLE public_launches (
        seq               INTEGER PRIMARY KEY AUTOINCREMENT,
        lane              TEXT NOT NULL CHECK (lane IN ('v4', 'multi-role', 'v3', 'v2', 'v1')),
        launch_id         TEXT NOT NULL UNIQUE,
        chain_id          TEXT NOT NULL CHECK (chain_id IN ('4663', '1')),
        token_address     TEXT NOT NULL,
        token_name        TEXT NOT NULL,
        token_symbol      TEXT NOT NULL,
        token_decimals    INTEGER,
        transaction_hash  TEXT NOT NULL,
        block_number      TEXT NOT NULL,
        finalized_at      TEXT NOT NULL,
        listed_at         TEXT NOT NULL
      ) STRICT;
      CREATE INDEX public_launches_newest ON public_launches (finalized_at, seq);

      -- Imported V2 and V1 history (read-only lanes): one validated record per launch, never changed after import.
      CREATE TABLE history_launches (
        seq           INTEGER PRIMARY KEY AUTOINCREMENT,
        lane          TEXT NOT NULL CHECK (lane IN ('v2', 'v1')),
        launch_id     TEXT NOT NULL UNIQUE,
        launch_wallet TEXT NOT NULL,
        status        TEXT NOT NULL,
        record_json   TEXT NOT NULL,
        import_id     TEXT NOT NULL,
        imported_at   TEXT NOT NULL
      ) STRICT;
      CREATE INDEX history_launches_wallet ON history_launches (lane, launch_wallet, seq);

      -- V3 finalized-feed rows brought in by the history import (null for rows this service finalized).
      ALTER TABLE v3_finalized_feed ADD COLUMN imported_at TEXT;
    `,
  },
  {
    version: 15,
    name: 'one launch per intent on every lane, and the wallet as the principal of wallet keys',
    sql: `
      -- Each lane holds one launch per intent: intent_claim is the launchIntentHash and wallet_nonce the lower-cased
      -- launchWallet with the nonce (wallet:nonce), both written at create; a unique index on each (per chain on
      -- V4) refuses a second launch of the same intent. Rows stored before this migration keep their claim only on
      -- the earliest launch of each intent: a later duplicate keeps its columns and stays readable, its claims NULL
      -- (as is the wallet_nonce of a row whose bytes hold no nonce).
      ${intentClaimsSql('launches', 'chain_id')}
      ${intentClaimsSql('v3_launches', null)}
      ${intentClaimsSql('multi_role_launches', null)}

      -- Every key of a wallet reads the wallet's own launches (those no partner made), on every lane.
      CREATE INDEX launches_wallet ON launches (chain_id, lower(launch_wallet), seq) WHERE partner_id IS NULL;
      CREATE INDEX v3_launches_wallet ON v3_launches (lower(launch_wallet), seq) WHERE partner_id IS NULL;
      CREATE INDEX multi_role_launches_wallet ON multi_role_launches (lower(launch_wallet), seq)
        WHERE partner_id IS NULL;
    `,
  },
  {
    version: 16,
    name: 'partner budget windows shared by every server process on the file',
    sql: `
      -- The fixed window of one partner budget (src/http/rate-limit.ts PartnerBudgets): one row per budget and
      -- lineage (prepare, read) or root (subkey admin), counted by one UPSERT per request, so every process serving
      -- this file spends the same budget.
      CREATE TABLE partner_budget_windows (
        budget_key TEXT PRIMARY KEY,
        start_ms   INTEGER NOT NULL,
        length_ms  INTEGER NOT NULL,
        count      INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 17,
    name: 'process leases: one process on the file runs the background work',
    sql: `
      -- A named lease (src/cluster/lease.ts): the owner (host:pid:uuid) runs the background workers until expires_ms,
      -- renewing it a third of a lease before; another process takes it once it has expired, or at once when the
      -- owner was a process of this host that no longer exists.
      CREATE TABLE process_leases (
        name       TEXT PRIMARY KEY,
        owner      TEXT NOT NULL,
        expires_ms INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 18,
    name: 'indexes of the hot reads: launches by status, the listable tokens',
    sql: `
      -- The V4 tracker's selection and the undecided permit reissues read launches by status (bound as parameters,
      -- which the partial launches_tracked index of version 4 cannot serve: every poll scanned the whole table). The
      -- lanes' tables have had (status, seq) since versions 12 and 13; this gives V4 the same and drops the index no
      -- query used.
      CREATE INDEX launches_status_seq ON launches (status, seq);
      DROP INDEX launches_tracked;
      -- The developer token list walks the registry rows whose token answered decimals(), in finalization order.
      CREATE INDEX public_launches_listable ON public_launches (finalized_at, seq) WHERE token_decimals IS NOT NULL;
    `,
  },
  {
    version: 19,
    name: 'lease indexes of the lifecycle claims',
    sql: `
      -- A lifecycle claim reads the running jobs whose lease expired (a worker that died mid-step) in lease order; the
      -- scheduled and retrying ones come by (state, next_attempt_ms). Only running jobs are in these indexes: a few
      -- per worker, so they cost nothing to keep.
      CREATE INDEX lifecycle_jobs_lease ON lifecycle_jobs (lease_expires_ms) WHERE state = 'running';
      CREATE INDEX v3_lifecycle_jobs_lease ON v3_lifecycle_jobs (lease_expires_ms) WHERE state = 'running';
      CREATE INDEX multi_role_lifecycle_jobs_lease ON multi_role_lifecycle_jobs (lease_expires_ms)
        WHERE state = 'running';
    `,
  },
  {
    version: 20,
    name: 'admission times that never decrease along seq',
    sql: `
      -- The admission quota counts a window by seq (src/domain/launches/admission-quota.ts), which needs the times
      -- never to decrease along seq: from now on each admission is recorded no earlier than the one before it. A row
      -- an earlier process dated before its predecessor (a clock set back) takes its predecessor's time.
      UPDATE admissions SET admitted_ms = running.admitted_ms
        FROM (SELECT seq, max(admitted_ms) OVER (ORDER BY seq) AS admitted_ms FROM admissions) AS running
        WHERE running.seq = admissions.seq AND running.admitted_ms <> admissions.admitted_ms;
    `,
  },
];
