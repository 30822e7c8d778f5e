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
];
