#!/usr/bin/env node
/**
 * Reference client of the MultiRole V2 shared lane on chain 4663 (release 2.0.0): one contract that is both the
 * ERC-20 token and the pool's v4 hook. Operations: spec/openapi/paths/multi-role-*.yaml; shapes:
 * spec/schemas/multi-role-*.json; journal: spec/schemas/multi-role-submit-journal.v1.schema.json.
 *
 * A standalone ECMAScript module with node built-ins only (Node 20 or later). It never signs and never broadcasts:
 * the controller reviews, signs and sends the wallet transaction in its own wallet.
 *
 * Command line:
 *   node client.mjs capabilities
 *   node client.mjs preflight <request.json>
 *   node client.mjs create <request.json> --journal <file> [--max-wait <seconds>]
 *   node client.mjs create --journal <file> [--max-wait <seconds>]        (resume: the journal's bytes and key)
 *   node client.mjs status <launchId>
 *   node client.mjs wait <launchId> --until authorized|finalized [--interval <seconds>] [--max-wait <seconds>]
 *   every command also takes --timeout-ms <n> (per request, default 30000)
 *
 * Environment:
 *   CUSTOM_LAUNCH_ORIGIN  the service origin (https, or http on localhost, 127.0.0.1 or [::1]); fixed for the run.
 *                         Every request goes there and nowhere else; redirects are refused, never followed.
 *   PLATFORM_API_KEY      the API key. Read only from here (never a flag, a body or a prompt) and never printed.
 *
 * Before every authenticated request the client reads the lane's capabilities with no key; when readiness.status is
 * not ready or readiness.publicWrites is false it stops (exit 4) before the key is sent anywhere.
 *
 * create writes its journal (mode 0600) before the first request: the origin, a fresh Idempotency-Key, a fingerprint
 * of the key and the exact request bytes. A timeout, a failed connection, a 429 and a 503 whose error.retryable is
 * true resend exactly those bytes with that key to that origin, after Retry-After (seconds or an HTTP date) or a
 * doubling backoff. A second create with the same journal resends the same bytes and gets the first answer (200).
 * The journal holds no key; a resume with another key is refused (idempotency is scoped to the credential).
 *
 * Output: the JSON result on stdout; messages and progress on stderr.
 *
 * Exit codes:
 *   0  done
 *   1  internal error of the client
 *   2  usage or configuration: bad arguments, PLATFORM_API_KEY or CUSTOM_LAUNCH_ORIGIN missing or refused, or a
 *      journal that is unusable or binds other bytes, another origin or another key
 *   3  a local check of the request file failed (unreadable, not JSON, not a MultiRole V2 chain-4663 request):
 *      nothing was sent
 *   4  stop: the capabilities cannot be read or say the lane is not ready or accepts no public writes; no
 *      authenticated request was made
 *   5  refused: a non-retryable ApiError, a redirect, or an answer that is not the chain-4663 shared-lane resource
 *      asked for
 *   6  unresolved: no definite answer within --max-wait, a 500, or a redirect during create; the launch may exist:
 *      run the same create --journal again (or wait again)
 *   7  needs action: the launch is action_required, needs_evidence or failed, so it cannot reach the goal
 */
import { createHash, randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const clientRelease = '2.0.0';
export const chainId = '4663';
export const lanePath = `/v4/chains/${chainId}/multi-role-custom-launches`;

export const exitCodes = Object.freeze({
  ok: 0,
  internal: 1,
  usage: 2,
  localCheck: 3,
  stop: 4,
  refused: 5,
  unresolved: 6,
  needsAction: 7,
});

const journalSchemaVersion = 'platform.multi-role-custom-launch-submit-journal.v1';
const requestSchemaVersion = 'platform.multi-role-custom-launch-create-request.v2';
const resourceSchemaVersion = 'platform.multi-role-custom-launch-resource.v2';
const capabilitiesSchemaVersion = 'platform.multi-role-custom-launch-capabilities.v2';
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The lane's statuses on the way to finality, in order; action_required, needs_evidence and failed are off it. */
export const statusOrder = Object.freeze([
  'received',
  'validating',
  'simulating',
  'authorized',
  'submitted',
  'finalized',
]);
const stuckStatuses = new Set(['action_required', 'needs_evidence', 'failed']);

/** Every failure of this client: `exit` is its exit code's name; `code` the service's or the client's public code. */
export class MultiRoleClientError extends Error {
  constructor(exit, message, facts = {}) {
    super(message);
    this.name = 'MultiRoleClientError';
    this.exit = exit;
    this.code = facts.code ?? null;
    this.status = facts.status ?? null;
    this.requestId = facts.requestId ?? null;
    this.launch = facts.launch;
  }
}

/** Checks the origin rule (https, or http on a loopback host; an origin only) and returns it normalized. */
export function checkOrigin(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    throw new MultiRoleClientError(
      'usage',
      `the origin must be an absolute URL such as https://api.example, got "${value}"`,
    );
  }
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname)))) {
    throw new MultiRoleClientError('usage', 'the origin must be https, or http on localhost, 127.0.0.1 or [::1]');
  }
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new MultiRoleClientError(
      'usage',
      'the origin must be an origin only: no credentials, path, query or fragment',
    );
  }
  return url.origin;
}

/**
 * A session: the one origin (fixed for the run) and the key, plus timing. `fetch` and `sleep` may be replaced;
 * `log` receives progress lines.
 */
export function session(options) {
  const apiKey = options.apiKey;
  if (apiKey !== undefined && !/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new MultiRoleClientError('usage', 'the API key must be a single token of printable characters');
  }
  return Object.freeze({
    origin: checkOrigin(options.origin),
    apiKey,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxWaitMs: options.maxWaitMs ?? 600_000,
    intervalMs: options.intervalMs ?? 2_000,
    fetch: options.fetch ?? globalThis.fetch,
    sleep: options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms))),
    now: options.now ?? Date.now,
    log: options.log ?? (() => {}),
  });
}

function requireKey(s) {
  if (!s.apiKey) throw new MultiRoleClientError('usage', 'set PLATFORM_API_KEY to the API key');
  return s.apiKey;
}

/** `sha256:` digest of exact bytes. */
export function bytesDigest(bytes) {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The journal's fingerprint of a key (never the key): SHA-256 over a label and the key, first 16 bytes, hex. */
export function credentialFingerprint(apiKey) {
  return createHash('sha256')
    .update(`custom-launch submit journal credential v1\0${apiKey}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** One exchange with the origin: an answer, a refused redirect, or no answer (timeout, network failure). */
async function exchange(s, { method, path, body, key, headers = {} }) {
  const sent = { Accept: 'application/json', ...headers };
  if (key) sent.Authorization = `Bearer ${key}`;
  if (body !== undefined) sent['Content-Type'] = 'application/json';
  let response;
  try {
    response = await s.fetch(new URL(path, s.origin), {
      method,
      headers: sent,
      ...(body !== undefined ? { body } : {}),
      // A redirect would carry the key elsewhere: it is never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(s.timeoutMs),
    });
  } catch (err) {
    const timedOut = err?.name === 'TimeoutError' || err?.name === 'AbortError';
    const why = timedOut
      ? `no answer within ${s.timeoutMs} ms`
      : `no answer (${err?.cause?.code ?? err?.message ?? 'network failure'})`;
    return { kind: 'no_answer', reason: why };
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'redirect', status: response.status };
  }
  let text;
  try {
    text = await response.text();
  } catch (err) {
    return { kind: 'no_answer', reason: `the answer was cut off (${err?.message ?? 'error'})` };
  }
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { kind: 'answer', status: response.status, headers: response.headers, text, json };
}

function apiErrorOf(reply) {
  const error = reply.json?.error;
  return error && typeof error === 'object' && typeof error.code === 'string' ? error : undefined;
}

/** Milliseconds to wait from a Retry-After header (seconds or an HTTP date), or undefined. */
export function retryAfterMs(header, now) {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const backoffMs = (attempt) => Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));

/** Whether an answer is one to resend unchanged: 429, or a 503 whose ApiError says retryable. */
function retryable(reply) {
  return (
    reply.kind === 'answer' && (reply.status === 429 || (reply.status === 503 && apiErrorOf(reply)?.retryable === true))
  );
}

/**
 * Sends one request and resends the identical request on no answer, 429 and retryable 503 while the next attempt
 * would start within maxWaitMs. Returns the definite exchange, or `gave_up`.
 */
async function sendResending(s, request, onAttempt = () => {}) {
  const started = s.now();
  for (let attempt = 1; ; attempt++) {
    const at = new Date(s.now()).toISOString();
    const reply = await exchange(s, request);
    await onAttempt(reply, at);
    if (reply.kind !== 'no_answer' && !retryable(reply)) return reply;
    const waitMs =
      reply.kind === 'no_answer'
        ? backoffMs(attempt)
        : (retryAfterMs(reply.headers.get('retry-after'), s.now()) ?? backoffMs(attempt));
    const why = reply.kind === 'no_answer' ? reply.reason : `${reply.status} ${apiErrorOf(reply)?.code ?? ''}`.trim();
    if (s.now() + waitMs - started > s.maxWaitMs) return { kind: 'gave_up', attempts: attempt, why };
    s.log(`attempt ${attempt}: ${why}; sending the same request again in ${(waitMs / 1000).toFixed(1)} s`);
    await s.sleep(waitMs);
  }
}

/** The error of a definite answer that is not the one wanted; the key is blanked from any quoted text. */
function refusal(s, reply, what) {
  if (reply.kind === 'redirect') {
    return new MultiRoleClientError(
      'refused',
      `${what}: the origin answered ${reply.status} with a redirect; redirects are refused, so the key goes nowhere else`,
      {
        code: 'REDIRECT_REFUSED',
        status: reply.status,
      },
    );
  }
  if (reply.kind === 'gave_up') {
    return new MultiRoleClientError(
      'unresolved',
      `${what}: no definite answer after ${reply.attempts} attempts (last: ${reply.why})`,
    );
  }
  const error = apiErrorOf(reply);
  const text = (error?.message ?? reply.text.slice(0, 200)).split(s.apiKey || '\0').join('[redacted]');
  const exit = reply.status === 500 ? 'unresolved' : 'refused';
  return new MultiRoleClientError(exit, `${what}: ${reply.status} ${error?.code ?? 'NOT_AN_API_ERROR'}: ${text}`, {
    code: error?.code ?? 'NOT_AN_API_ERROR',
    status: reply.status,
    requestId: error?.requestId ?? reply.headers?.get('x-request-id') ?? null,
  });
}

/**
 * GET .../multi-role-custom-launches/capabilities (getMultiRoleCapabilitiesV2), without a key. Returns the
 * capabilities document; throws `stop` when it cannot be read or is not this lane's on chain 4663.
 */
export async function readCapabilities(s) {
  const where = `${s.origin}${lanePath}/capabilities`;
  const reply = await sendResending(s, { method: 'GET', path: `${lanePath}/capabilities` });
  if (reply.kind !== 'answer' || reply.status !== 200) {
    const cause = refusal(s, reply, `GET ${where}`);
    throw new MultiRoleClientError('stop', `${cause.message}; stopping before any authenticated request`, cause);
  }
  const caps = reply.json;
  if (caps?.schemaVersion !== capabilitiesSchemaVersion || caps?.chainId !== chainId) {
    throw new MultiRoleClientError(
      'stop',
      `${where} is not the shared lane's capabilities of chain ${chainId}; stopping`,
    );
  }
  return caps;
}

/**
 * The write gate: reads the capabilities (no key) and throws `stop` unless readiness.status is ready and
 * readiness.publicWrites is true. Called before every authenticated request.
 */
export async function requireReady(s) {
  const caps = await readCapabilities(s);
  const { status, publicWrites, reasons } = caps.readiness ?? {};
  if (status !== 'ready' || publicWrites !== true) {
    const why = Array.isArray(reasons) && reasons.length > 0 ? ` (${reasons.join(', ')})` : '';
    throw new MultiRoleClientError(
      'stop',
      `the shared lane at ${s.origin} is ${status ?? 'unknown'}${why} with publicWrites ${publicWrites}; stopping before any authenticated request`,
    );
  }
  return caps;
}

/** Checks request bytes locally: JSON, a MultiRole V2 create request of chain 4663. Returns the parsed request. */
export function checkRequestBytes(bytes) {
  let request;
  try {
    request = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new MultiRoleClientError('localCheck', `the request is not JSON: ${err.message}`, {
      code: 'REQUEST_UNREADABLE',
    });
  }
  if (request?.schemaVersion !== requestSchemaVersion || request?.chainId !== chainId) {
    throw new MultiRoleClientError('localCheck', `the request is not a ${requestSchemaVersion} of chain ${chainId}`, {
      code: 'REQUEST_INVALID',
    });
  }
  return request;
}

/** Reads a request file's exact bytes (never re-serialized) and checks them (checkRequestBytes). */
export async function readRequestFile(path) {
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new MultiRoleClientError('localCheck', `cannot read ${path}: ${err.code ?? 'error'}`, {
      code: 'REQUEST_UNREADABLE',
    });
  }
  checkRequestBytes(bytes);
  return bytes;
}

/**
 * POST .../multi-role-custom-launches/preflight (preflightMultiRoleCustomLaunch) with the exact bytes, after the
 * write gate. Persists nothing on the service; returns the preflight result (disposition and findings).
 */
export async function preflight(s, bytes) {
  checkRequestBytes(bytes);
  const key = requireKey(s);
  await requireReady(s);
  const reply = await sendResending(s, { method: 'POST', path: `${lanePath}/preflight`, body: bytes, key });
  if (reply.kind !== 'answer' || reply.status !== 200) throw refusal(s, reply, 'preflight');
  if (reply.json?.chainId !== chainId || typeof reply.json?.disposition !== 'string') {
    throw new MultiRoleClientError('refused', 'preflight: the answer is not a shared-lane preflight of chain 4663', {
      code: 'PINNED_RESOURCE_MISMATCH',
      status: 200,
    });
  }
  return reply.json;
}

async function writePrivate(path, text, flags) {
  const handle = await open(path, flags, 0o600);
  try {
    // open() applies the mode only to a file it creates.
    await handle.chmod(0o600);
    await handle.truncate(0);
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDir(path) {
  const handle = await open(dirname(resolve(path)), 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function saveJournal(path, journal) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writePrivate(temporary, `${JSON.stringify(journal, null, 2)}\n`, 'w');
  await rename(temporary, path);
  await syncDir(path);
}

/** Creates the journal exclusively (mode 0600, fsynced) before the first request; an existing file is refused. */
async function startJournal(s, path, bytes) {
  const journal = {
    schemaVersion: journalSchemaVersion,
    origin: s.origin,
    apiVersion: 4,
    chainId,
    idempotencyKey: `custom-launch.${randomUUID()}`,
    credentialFingerprint: credentialFingerprint(requireKey(s)),
    requestSha256: bytesDigest(bytes),
    requestBytesBase64: Buffer.from(bytes).toString('base64'),
    createdAt: new Date(s.now()).toISOString(),
    outcome: { state: 'pending', launchId: null, httpStatus: null, code: null, requestId: null },
    attempts: [],
  };
  try {
    await mkdir(dirname(resolve(path)), { recursive: true });
    await writePrivate(path, `${JSON.stringify(journal, null, 2)}\n`, 'wx');
    await syncDir(path);
  } catch (err) {
    throw new MultiRoleClientError('usage', `cannot create the journal ${path}: ${err.code ?? err.message}`);
  }
  return journal;
}

/**
 * Reads an existing journal: mode 0600, this lane's journal, bound to this origin and this key, with bytes that
 * match their digest. Returns the journal and its exact bytes.
 */
export async function openJournal(s, path) {
  let text;
  try {
    const mode = (await stat(path)).mode & 0o777;
    if (mode !== 0o600)
      throw new MultiRoleClientError('usage', `${path} has mode ${mode.toString(8)}; a journal must be 0600`);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof MultiRoleClientError) throw err;
    throw new MultiRoleClientError('usage', `cannot read the journal ${path}: ${err.code ?? 'error'}`);
  }
  let journal;
  try {
    journal = JSON.parse(text);
  } catch {
    throw new MultiRoleClientError('usage', `${path} is not a shared-lane submit journal: not JSON`);
  }
  if (
    journal?.schemaVersion !== journalSchemaVersion ||
    journal.chainId !== chainId ||
    !Array.isArray(journal.attempts)
  ) {
    throw new MultiRoleClientError('usage', `${path} is not a ${journalSchemaVersion} of chain ${chainId}`);
  }
  if (journal.origin !== s.origin) {
    throw new MultiRoleClientError(
      'usage',
      `${path} binds the origin ${journal.origin}, not ${s.origin}; its bytes go only there`,
    );
  }
  if (journal.credentialFingerprint !== credentialFingerprint(requireKey(s))) {
    throw new MultiRoleClientError(
      'usage',
      `${path} was started with another API key; idempotency is per credential, so this key could create a second launch`,
    );
  }
  const bytes = Buffer.from(journal.requestBytesBase64, 'base64');
  if (bytesDigest(bytes) !== journal.requestSha256) {
    throw new MultiRoleClientError(
      'usage',
      `${path}: the request bytes do not match requestSha256; the journal is damaged`,
    );
  }
  return { journal, bytes };
}

function attemptOf(reply, at) {
  if (reply.kind === 'no_answer') return { at, result: 'no_answer', detail: reply.reason.slice(0, 512) };
  if (reply.kind === 'redirect') return { at, result: 'redirect', httpStatus: reply.status };
  const error = apiErrorOf(reply);
  return {
    at,
    result: 'answer',
    httpStatus: reply.status,
    ...(error ? { code: String(error.code).slice(0, 128), requestId: String(error.requestId).slice(0, 128) } : {}),
  };
}

/** Whether a file exists (a journal to resume). */
async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if (err.code === 'ENOENT') return false;
    throw new MultiRoleClientError('usage', `cannot read the journal ${path}: ${err.code ?? 'error'}`);
  }
}

/**
 * POST .../multi-role-custom-launches (createMultiRoleCustomLaunch) through the journal at `journalPath`. A new
 * journal binds `bytes`; an existing one is resumed and only its bytes, with its Idempotency-Key, are ever sent
 * (given `bytes` must be the same). Returns `{ httpStatus: 202 | 200, launch, journal }`.
 */
export async function create(s, { bytes, journalPath }) {
  if (!journalPath) throw new MultiRoleClientError('usage', 'create needs a journal path');
  const key = requireKey(s);
  let journal;
  let sent;
  if (await exists(journalPath)) {
    ({ journal, bytes: sent } = await openJournal(s, journalPath));
    if (bytes !== undefined && !Buffer.from(bytes).equals(sent)) {
      throw new MultiRoleClientError(
        'usage',
        `${journalPath} binds other bytes; a changed request is a new submission with a new journal`,
      );
    }
    if (journal.outcome.state === 'refused') {
      throw new MultiRoleClientError(
        'refused',
        `${journalPath} records a refusal: ${journal.outcome.httpStatus} ${journal.outcome.code}; a changed request needs a new journal`,
        { code: journal.outcome.code, status: journal.outcome.httpStatus, requestId: journal.outcome.requestId },
      );
    }
    s.log(`resuming ${journalPath}: the same bytes with idempotency key ${journal.idempotencyKey}`);
  } else {
    if (bytes === undefined)
      throw new MultiRoleClientError('usage', `no journal at ${journalPath} and no request to start one`);
    checkRequestBytes(bytes);
    sent = Buffer.from(bytes);
  }
  await requireReady(s);
  if (!journal) {
    journal = await startJournal(s, journalPath, sent);
    s.log(
      `journal ${journalPath} (mode 0600) binds idempotency key ${journal.idempotencyKey} and ${journal.requestSha256}`,
    );
  }
  const reply = await sendResending(
    s,
    { method: 'POST', path: lanePath, body: sent, key, headers: { 'Idempotency-Key': journal.idempotencyKey } },
    async (each, at) => {
      journal.attempts.push(attemptOf(each, at));
      if (journal.attempts.length > 1000) journal.attempts.splice(0, journal.attempts.length - 1000);
      await saveJournal(journalPath, journal);
    },
  );
  return settle(s, journalPath, journal, reply);
}

async function settle(s, journalPath, journal, reply) {
  const again = `run create --journal ${journalPath} again`;
  if (reply.kind === 'gave_up' || reply.kind === 'redirect') {
    const cause = refusal(s, reply, 'create');
    throw new MultiRoleClientError('unresolved', `${cause.message}; the launch may exist: ${again}`, cause);
  }
  if (reply.status === 202 || reply.status === 200) {
    const launch = reply.json;
    if (
      launch?.schemaVersion !== resourceSchemaVersion ||
      launch?.chainId !== chainId ||
      !uuidPattern.test(launch?.launchId ?? '')
    ) {
      throw new MultiRoleClientError(
        'unresolved',
        `create: the ${reply.status} answer is not a shared-lane launch; ${again}`,
      );
    }
    journal.outcome = {
      state: 'accepted',
      launchId: launch.launchId,
      httpStatus: reply.status,
      code: null,
      requestId: reply.headers.get('x-request-id'),
    };
    await saveJournal(journalPath, journal);
    return { httpStatus: reply.status, launch, journal };
  }
  const cause = refusal(s, reply, 'create');
  if (reply.status === 500)
    throw new MultiRoleClientError('unresolved', `${cause.message}; the launch may exist: ${again}`, cause);
  journal.outcome = {
    state: 'refused',
    launchId: null,
    httpStatus: reply.status,
    code: cause.code,
    requestId: cause.requestId,
  };
  await saveJournal(journalPath, journal);
  throw cause;
}

function checkLaunchId(launchId) {
  if (!uuidPattern.test(launchId ?? '')) {
    throw new MultiRoleClientError(
      'usage',
      `"${launchId}" is not a launchId (a lowercase UUID; a requestId is never one)`,
    );
  }
}

/**
 * GET .../multi-role-custom-launches/{launchId} (getMultiRoleCustomLaunch), after the write gate. A 429, a retryable
 * 503 and no answer are read again; an answer that is not this launch on chain 4663 is refused.
 */
export async function status(s, launchId, { gate = true } = {}) {
  checkLaunchId(launchId);
  const key = requireKey(s);
  if (gate) await requireReady(s);
  const reply = await sendResending(s, { method: 'GET', path: `${lanePath}/${launchId}`, key });
  if (reply.kind !== 'answer' || reply.status !== 200) throw refusal(s, reply, 'status');
  const launch = reply.json;
  if (launch?.schemaVersion !== resourceSchemaVersion || launch?.chainId !== chainId || launch?.launchId !== launchId) {
    throw new MultiRoleClientError(
      'refused',
      `status: the answer is not the shared-lane launch ${launchId} of chain 4663`,
      {
        code: 'PINNED_RESOURCE_MISMATCH',
        status: 200,
      },
    );
  }
  return launch;
}

/** Whether `current` has reached `goal` on the way to finality. */
export function reached(current, goal) {
  const at = statusOrder.indexOf(current);
  return at >= 0 && at >= statusOrder.indexOf(goal);
}

/**
 * Polls a launch (status) until it reaches `until` (authorized or finalized) and returns it; throws `needsAction`
 * when it is action_required, needs_evidence or failed, `unresolved` when maxWaitMs passes first.
 */
export async function waitFor(s, launchId, until) {
  if (until !== 'authorized' && until !== 'finalized') {
    throw new MultiRoleClientError('usage', `--until must be authorized or finalized, got "${until}"`);
  }
  checkLaunchId(launchId);
  await requireReady(s);
  const started = s.now();
  for (;;) {
    const launch = await status(s, launchId, { gate: false });
    s.log(`launch ${launchId}: ${launch.status} after ${Math.round((s.now() - started) / 1000)} s`);
    if (reached(launch.status, until)) return launch;
    if (stuckStatuses.has(launch.status)) {
      throw new MultiRoleClientError('needsAction', `launch ${launchId} is ${launch.status}: ${remedy(launch)}`, {
        launch,
      });
    }
    if (s.now() - started + s.intervalMs > s.maxWaitMs) {
      throw new MultiRoleClientError(
        'unresolved',
        `launch ${launchId} is ${launch.status}, not ${until} within the max wait; wait again`,
        { launch },
      );
    }
    await s.sleep(s.intervalMs);
  }
}

function remedy(launch) {
  if (launch.status === 'needs_evidence') {
    return `missing verification: ${launch.missingVerificationRequirements.join(', ')}; fix the source or economics and submit a new request with a new journal`;
  }
  if (launch.status === 'failed') return `${launch.failure?.code}: ${launch.failure?.remediation}`;
  return `findings ${launch.findingCodes.join(', ')}; rebuild and submit a new request with a new journal`;
}

const usage = `usage:
  node client.mjs capabilities
  node client.mjs preflight <request.json>
  node client.mjs create [<request.json>] --journal <file> [--max-wait <seconds>]
  node client.mjs status <launchId>
  node client.mjs wait <launchId> --until authorized|finalized [--interval <seconds>] [--max-wait <seconds>]
  (every command: --timeout-ms <n>; CUSTOM_LAUNCH_ORIGIN and PLATFORM_API_KEY from the environment)`;

function secondsFlag(value, name, fallback) {
  if (value === undefined) return fallback;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || Number(value) <= 0) {
    throw new MultiRoleClientError('usage', `--${name} must be a positive number of seconds`);
  }
  return Math.round(Number(value) * 1000);
}

function sessionFromEnvironment(env, values, withKey) {
  if (!env.CUSTOM_LAUNCH_ORIGIN)
    throw new MultiRoleClientError('usage', 'set CUSTOM_LAUNCH_ORIGIN to the service origin');
  const timeout = values['timeout-ms'] ?? '30000';
  if (!/^[0-9]+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 120_000) {
    throw new MultiRoleClientError('usage', '--timeout-ms must be an integer from 1 to 120000');
  }
  if (withKey && !env.PLATFORM_API_KEY) {
    throw new MultiRoleClientError(
      'usage',
      'set PLATFORM_API_KEY to the API key; it is read only from the environment',
    );
  }
  return session({
    origin: env.CUSTOM_LAUNCH_ORIGIN,
    apiKey: withKey ? env.PLATFORM_API_KEY : undefined,
    timeoutMs: Number(timeout),
    maxWaitMs: secondsFlag(values['max-wait'], 'max-wait', 600_000),
    intervalMs: secondsFlag(values.interval, 'interval', 2_000),
    log: (line) => process.stderr.write(`${line}\n`),
  });
}

const commands = {
  capabilities: async (s) => {
    const caps = await readCapabilities(s);
    return { result: caps, exit: caps.readiness.status === 'ready' && caps.readiness.publicWrites ? 'ok' : 'stop' };
  },
  preflight: async (s, [path]) => {
    const report = await preflight(s, await readRequestFile(path));
    for (const f of report.findings) {
      const missing =
        f.missingVerificationRequirements.length > 0
          ? ` (missing: ${f.missingVerificationRequirements.join(', ')})`
          : '';
      s.log(`  ${f.severity}: ${f.code}${missing}`);
    }
    s.log(`preflight: ${report.disposition}; nothing was stored`);
    return { result: report };
  },
  create: async (s, [path], values) => {
    const bytes = path === undefined ? undefined : await readRequestFile(path);
    const done = await create(s, { bytes, journalPath: values.journal });
    s.log(
      `${done.httpStatus === 202 ? 'accepted' : 'already accepted (exact replay)'}: launch ${done.launch.launchId}, ${done.launch.status}`,
    );
    return { result: { httpStatus: done.httpStatus, journal: values.journal, launch: done.launch } };
  },
  status: async (s, [launchId]) => ({ result: await status(s, launchId) }),
  wait: async (s, [launchId], values) => ({ result: await waitFor(s, launchId, values.until) }),
};

const arity = { capabilities: [0, 0], preflight: [1, 1], create: [0, 1], status: [1, 1], wait: [1, 1] };

/** Runs one command line; returns the exit code. The key comes only from env.PLATFORM_API_KEY. */
export async function main(argv, env = process.env) {
  try {
    if (argv.some((a) => /^--?(api-?key|key|token|secret|bearer)(=|$)/i.test(a))) {
      throw new MultiRoleClientError('usage', 'the API key is read only from PLATFORM_API_KEY, never from a flag');
    }
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        journal: { type: 'string' },
        until: { type: 'string' },
        interval: { type: 'string' },
        'max-wait': { type: 'string' },
        'timeout-ms': { type: 'string' },
      },
    });
    const [name, ...args] = positionals;
    const run = commands[name];
    const [min, max] = arity[name] ?? [0, 0];
    if (!run || args.length < min || args.length > max) throw new MultiRoleClientError('usage', usage);
    const s = sessionFromEnvironment(env, values, name !== 'capabilities');
    const { result, exit = 'ok' } = await run(s, args, values);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return exitCodes[exit];
  } catch (err) {
    if (err instanceof MultiRoleClientError) {
      if (err.launch) process.stdout.write(`${JSON.stringify(err.launch, null, 2)}\n`);
      const support =
        err.status !== null
          ? ` (support: requestId ${err.requestId ?? 'none'}, HTTP ${err.status}, ${new Date().toISOString()}, ${err.code ?? 'no code'})`
          : '';
      process.stderr.write(`client.mjs: ${err.message}${support}\n`);
      return exitCodes[err.exit] ?? exitCodes.internal;
    }
    if (err?.code?.startsWith?.('ERR_PARSE_ARGS')) {
      process.stderr.write(`client.mjs: ${err.message}\n${usage}\n`);
      return exitCodes.usage;
    }
    process.stderr.write(`client.mjs: internal error: ${err?.stack ?? err}\n`);
    return exitCodes.internal;
  }
}

function runDirectly() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1]);
  } catch {
    return false;
  }
}

if (runDirectly()) {
  process.exitCode = await main(process.argv.slice(2));
}
