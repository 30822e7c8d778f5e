/*
 * The clients scenario (conformance/clients/README.md) in TypeScript: openapi-fetch over the `paths` that
 * openapi-typescript generated from the spec (generated/types/service.ts), nothing of this repository's own client.
 * Reads CLIENTS_BASE_URL, CLIENTS_API_KEY (never printed) and CLIENTS_INPUTS; one line a step; exit 1 at the first
 * mismatch.
 */
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import type { components, paths } from '../../../generated/types/service.ts';

type CreateRequest = components['schemas']['CustomLaunchCreateRequestV4'];
type Launch = components['schemas']['CustomLaunchResourceV4'];
type ApiError = components['schemas']['ApiError'];
type WalletTransaction = NonNullable<Launch['walletTransaction']>;

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
};
const inputs = JSON.parse(readFileSync(env('CLIENTS_INPUTS'), 'utf8')) as {
  idempotencyKey: string;
  request: CreateRequest;
  otherRequest: CreateRequest;
  sourceFiles: Array<{ sha256: string; path: string }>;
};
const baseUrl = env('CLIENTS_BASE_URL');
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${env('CLIENTS_API_KEY')}` } });
const publicClient = createClient<paths>({ baseUrl });
const chain = { chainId: '4663' } as const;

function step(name: string, line: string): void {
  console.log(`${name}: ${line}`);
}
function mismatch(name: string, what: string): never {
  console.log(`${name}: MISMATCH ${what}`);
  process.exit(1);
}
const show = (body: unknown) => JSON.stringify(body).slice(0, 400);

const capabilities = await client.GET('/v4/chains/{chainId}/capabilities', { params: { path: chain } });
if (!capabilities.data)
  mismatch('capabilities', `200, got ${capabilities.response.status} ${show(capabilities.error)}`);
const profiles = capabilities.data.profiles.map((p) => `${p.profile} ${p.state}`);
if (capabilities.data.chainId !== '4663' || !capabilities.data.profiles.some((p) => p.profile === '4.1.0'))
  mismatch('capabilities', `chain 4663 with profile 4.1.0, got ${show(capabilities.data)}`);
step(
  'capabilities',
  `${capabilities.response.status}, chain ${capabilities.data.chainId}, profiles ${profiles.join(', ')}`,
);

const preflight = await client.POST('/v4/chains/{chainId}/custom-launches/preflight', {
  params: { path: chain },
  body: inputs.request,
});
if (!preflight.data) mismatch('preflight', `200, got ${preflight.response.status} ${show(preflight.error)}`);
if (preflight.data.launchIntentHash !== inputs.request.launchIntentHash)
  mismatch('preflight', `launchIntentHash ${inputs.request.launchIntentHash}, got ${preflight.data.launchIntentHash}`);
step(
  'preflight',
  `${preflight.response.status}, disposition ${preflight.data.disposition}, ${preflight.data.blockingFindingCodes.length} blocking, ${preflight.data.warningFindingCodes.length} warning findings`,
);

const create = (body: CreateRequest) =>
  client.POST('/v4/chains/{chainId}/custom-launches', {
    params: { path: chain, header: { 'Idempotency-Key': inputs.idempotencyKey } },
    body,
  });
const created = await create(inputs.request);
if (created.response.status !== 202 || !created.data)
  mismatch('create', `202, got ${created.response.status} ${show(created.error)}`);
const launchId = created.data.launchId;
step('create', `${created.response.status}, launchId ${launchId}, status ${created.data.status}`);

const replayed = await create(inputs.request);
if (replayed.response.status !== 200 || replayed.data?.launchId !== launchId)
  mismatch(
    'replay',
    `200 with launchId ${launchId}, got ${replayed.response.status} ${show(replayed.data ?? replayed.error)}`,
  );
step('replay', `${replayed.response.status}, the same launchId ${replayed.data.launchId}`);

const conflict = await create(inputs.otherRequest);
const error: ApiError | undefined = conflict.error;
if (
  conflict.response.status !== 409 ||
  error?.error.code !== 'IDEMPOTENCY_CONFLICT' ||
  !error.error.requestId ||
  error.error.retryable !== false
)
  mismatch(
    'conflict',
    `409 IDEMPOTENCY_CONFLICT, not retryable, got ${conflict.response.status} ${show(conflict.error)}`,
  );
step(
  'conflict',
  `${conflict.response.status} ${error.error.code}, requestId ${error.error.requestId}, retryable false`,
);

const delivered: number[] = [];
for (const file of inputs.sourceFiles) {
  const put = await client.PUT('/v4/chains/{chainId}/custom-launches/{launchId}/source-files/{sha256}', {
    params: { path: { ...chain, launchId, sha256: file.sha256 } },
    // The body is the file's raw bytes: openapi-fetch would JSON-encode it unless told otherwise.
    body: readFileSync(file.path) as unknown as string,
    bodySerializer: (bytes) => bytes,
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  if (put.response.status !== 201 && put.response.status !== 200)
    mismatch('sources', `201 for ${file.sha256}, got ${put.response.status} ${show(put.error)}`);
  delivered.push(put.response.status);
}
step('sources', `${delivered.length} files delivered (${delivered.join(' ')})`);

const started = Date.now();
let launch: Launch | undefined;
for (;;) {
  const read = await client.GET('/v4/chains/{chainId}/custom-launches/{launchId}', {
    params: { path: { ...chain, launchId } },
  });
  if (!read.data) mismatch('authorized', `200, got ${read.response.status} ${show(read.error)}`);
  launch = read.data;
  if (launch.status === 'authorized' || launch.status === 'awaiting_wallet_signature') break;
  if (['action_required', 'failed', 'cancelled', 'expired'].includes(launch.status))
    mismatch('authorized', `authorized, got ${launch.status}: ${show(launch.findings)}`);
  if (Date.now() - started > 90_000) mismatch('authorized', `authorized within 90 s, still ${launch.status}`);
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const tx: WalletTransaction | undefined = launch.walletTransaction ?? undefined;
if (
  tx?.chainId !== '4663' ||
  tx.from.toLowerCase() !== inputs.request.launchWallet.toLowerCase() ||
  !/^0x[0-9a-fA-F]{40}$/.test(tx.to) ||
  !/^[0-9]+$/.test(tx.valueWei) ||
  !/^0x([0-9a-f]{2})+$/i.test(tx.data)
)
  mismatch('authorized', `a walletTransaction from ${inputs.request.launchWallet} on chain 4663, got ${show(tx)}`);
step(
  'authorized',
  `${launch.status} after ${((Date.now() - started) / 1000).toFixed(1)} s; walletTransaction to ${tx.to}, valueWei ${tx.valueWei}, gasLimit ${tx.gasLimit}, data ${(tx.data.length - 2) / 2} bytes`,
);

const seen = new Set<string>();
let cursor: string | undefined;
let pages = 0;
let onPage = 0;
do {
  const page = await client.GET('/v4/chains/{chainId}/custom-launches', {
    params: { path: chain, query: cursor ? { limit: 1, cursor } : { limit: 1 } },
  });
  if (!page.data) mismatch('list', `200, got ${page.response.status} ${show(page.error)}`);
  pages++;
  if (page.data.launches.length > 1) mismatch('list', `at most 1 launch a page, got ${page.data.launches.length}`);
  for (const listed of page.data.launches) {
    if (seen.has(listed.launchId)) mismatch('list', `each launch once, got ${listed.launchId} twice`);
    seen.add(listed.launchId);
    if (listed.launchId === launchId) onPage = pages;
  }
  cursor = page.data.nextCursor ?? undefined;
} while (cursor);
if (pages < 2 || onPage === 0) mismatch('list', `at least 2 pages with launch ${launchId}, got ${pages} pages`);
step('list', `${pages} pages of limit=1, launch ${launchId} on page ${onPage}`);

const feed = await publicClient.GET('/v4/chains/{chainId}/finalized-custom-launches', { params: { path: chain } });
if (!feed.data) mismatch('finalized feed', `200, got ${feed.response.status} ${show(feed.error)}`);
const [first] = feed.data.launches;
if (!first || feed.data.launches.some((l) => l.chainId !== '4663' || !l.transactionHash || !l.sourceVerification))
  mismatch('finalized feed', `at least one finalized launch with its sourceVerification, got ${show(feed.data)}`);
step(
  'finalized feed',
  `${feed.response.status}, ${feed.data.launches.length} launches, first ${first.launchId} (block ${first.blockNumber}, source verification ${first.sourceVerification.status})`,
);
