import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { createDeveloperApp, developerCorsHeaders } from '../../src/http/developer-app.ts';
import { buildServices } from '../../src/services.ts';
import { type Db, openReadOnlyDatabase } from '../../src/store/db.ts';
import { listenOnLoopback, type TestServer } from './server.ts';

/** The developer API over real HTTP on 127.0.0.1, reading a test server's database through its own read-only connection. */
export interface DeveloperServer {
  url: string;
  /** The developer API's read-only connection. */
  db: Db;
  close(): Promise<void>;
}

/** Starts createDeveloperApp beside `service` (startServer), as src/main.ts does beside the service. */
export async function startDeveloperServer(service: TestServer, now?: () => number): Promise<DeveloperServer> {
  const db = openReadOnlyDatabase(service.config.databasePath, { busyTimeoutMs: service.config.busyTimeoutMs });
  const services = buildServices({ db: service.db, config: service.config, now: now ?? Date.now });
  const app = createDeveloperApp({ db, config: service.config, services, ...(now ? { now } : {}) });
  const { server, url } = await listenOnLoopback(app, {
    timeouts: service.config.http,
    errorHeaders: developerCorsHeaders,
  });
  return {
    url,
    db,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      db.close();
    },
  };
}

const packageSchema = JSON.parse(
  readFileSync(new URL('../../node_modules/@uniswap/token-lists/src/tokenlist.schema.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);

/**
 * Validates a served token list with the schema the @uniswap/token-lists package ships (draft-07, with formats), as a
 * wallet loading the list would; its `errors` name what failed.
 */
export const validateTokenList = ajv.compile(packageSchema);
