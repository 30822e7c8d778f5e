/**
 * Operator command. `npm run admin -- keys create --wallet <0x address> --scopes <comma list> --chains 4663`
 * mints a wallet-bound key and prints one JSON object with `apiKey` once; only its hash is stored.
 */
import { parseArgs } from 'node:util';
import { grantableScopes, mintWalletKey } from '../auth/keys.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../store/db.ts';

const usage = `usage:
  npm run admin -- keys create --wallet <0x address> --scopes <comma list> --chains <comma list>

scopes: ${grantableScopes.join(', ')}
chains: 4663 (V4 lane), 1 (base layer)
The database is DATABASE_PATH (default var/custom-launch.sqlite). The key is printed once and never stored.`;

function fail(message: string): never {
  console.error(`error: ${message}\n\n${usage}`);
  process.exit(2);
}

const [group, action, ...rest] = process.argv.slice(2);
if (group !== 'keys' || action !== 'create')
  fail(group ? `unknown command "${[group, action].join(' ')}"` : 'no command');
let values: { wallet?: string; scopes?: string; chains?: string };
try {
  ({ values } = parseArgs({
    args: rest,
    options: { wallet: { type: 'string' }, scopes: { type: 'string' }, chains: { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (!values.wallet || !values.scopes || !values.chains) fail('--wallet, --scopes and --chains are all required');
const split = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const db = openDatabase(loadConfig().databasePath);
try {
  const { apiKey, principal } = mintWalletKey(db, {
    wallet: values.wallet,
    scopes: split(values.scopes),
    chains: split(values.chains),
  });
  console.log(
    JSON.stringify({
      apiKey,
      keyId: principal.keyId,
      wallet: principal.wallet,
      scopes: principal.scopes,
      chains: principal.chains,
    }),
  );
} catch (err) {
  fail((err as Error).message);
} finally {
  db.close();
}
