import { existsSync } from 'node:fs';
import type { ModuleIntakeReceipt } from '../../../generated/types/service.ts';
import { credentialFingerprint, idempotencyKeyPattern, JournalError } from '../core/journal-file.ts';
import { type AuthenticatedModuleCall, exchangeJson, resolveCall, responseLimitBytes } from './call.ts';
import { requireUploadCapabilities } from './capabilities.ts';
import { clientFailure, type ModuleFailure, type ModuleResult } from './errors.ts';
import {
  createModuleJournal,
  type ModuleSubmitAttempt,
  type ModuleSubmitJournal,
  openModuleJournal,
  saveModuleJournal,
} from './journal.ts';
import { bindSubmitReceipt, submissionsPath } from './receipt.ts';
import { checkModuleRequest, checkPublishedLimits } from './request-file.ts';

/** The answer of one upload: the receipt that binds the request (201 new draft, 200 exact replay). */
export interface ModuleSubmitted {
  receipt: ModuleIntakeReceipt;
  httpStatus: 200 | 201;
}

/**
 * Sends one upload (POST /v1/modules/submissions, `modules:submit`; spec submitModule): the exact bytes with the
 * given Idempotency-Key, and checks that the receipt binds them (bindSubmitReceipt). No capabilities gate: callers
 * use submitModuleRequest or submitWithModuleJournal. A failure with `submissionMayExist` keeps the pair for the retry.
 */
export async function postSubmission(
  call: AuthenticatedModuleCall,
  idempotencyKey: string,
  requestBytes: Uint8Array,
): Promise<ModuleResult<ModuleSubmitted>> {
  if (!idempotencyKeyPattern.test(idempotencyKey)) {
    throw new TypeError('idempotencyKey must be 16 to 128 of letters, digits, dots, underscores, colons or hyphens');
  }
  const reply = await exchangeJson(
    call,
    {
      method: 'POST',
      path: submissionsPath,
      apiKey: call.apiKey,
      headers: { 'Idempotency-Key': idempotencyKey },
      body: requestBytes,
      limitBytes: responseLimitBytes,
    },
    [200, 201],
  );
  if (reply.error) return reply;
  const bound = bindSubmitReceipt(reply.data.json, requestBytes, reply.httpStatus);
  if (bound.error) return bound;
  return { data: { receipt: bound.data, httpStatus: reply.httpStatus as 200 | 201 }, httpStatus: reply.httpStatus };
}

/** How an upload ended; `stage: 'capabilities'` means the gate stopped it and neither key nor source was sent. */
export type ModuleSubmitResult<T> =
  | { data: T; httpStatus: number; error?: undefined }
  | { data?: undefined; error: ModuleFailure; stage: 'capabilities' | 'submit' };

/**
 * One upload with a caller-kept pair (spec/openapi/paths/modules-submissions.yaml, submitModule): checks the
 * request locally (LocalCheckError), reads the public capabilities without the key and stops unless they allow this
 * client's formats, checks the request against the intake limits they publish (LocalCheckError), then posts. Keep
 * `idempotencyKey` and `requestBytes` together and resend both unchanged when the failure says `submissionMayExist`.
 */
export async function submitModuleRequest(
  call: AuthenticatedModuleCall & { idempotencyKey: string; requestBytes: Uint8Array },
): Promise<ModuleSubmitResult<ModuleSubmitted>> {
  resolveCall(call);
  checkModuleRequest(call.requestBytes);
  const gate = await requireUploadCapabilities({ origin: call.origin, timeoutMs: call.timeoutMs, fetch: call.fetch });
  if (gate.error) return { error: gate.error, stage: 'capabilities' };
  const published = gate.data.moduleContributions.limits;
  if (published) checkPublishedLimits(call.requestBytes, published);
  const sent = await postSubmission(call, call.idempotencyKey, call.requestBytes);
  return sent.error ? { error: sent.error, stage: 'submit' } : sent;
}

/** Options of submitWithModuleJournal. */
export interface JournalSubmitOptions extends AuthenticatedModuleCall {
  journalPath: string;
  /** The exact request bytes: required to start a journal; when resuming, they must equal the journal's. */
  requestBytes?: Uint8Array;
  now?: () => number;
  /** Messages for a person: a new journal, a resume. */
  onNote?: (message: string) => void;
}

/** What submitWithModuleJournal returns: the result, and the journal as it stands (absent if never created). */
export type JournalSubmitResult = ModuleSubmitResult<ModuleSubmitted & { journal: ModuleSubmitJournal }> & {
  journal?: ModuleSubmitJournal;
};

function checkResume(doc: ModuleSubmitJournal, bytes: Buffer, options: JournalSubmitOptions, origin: string): void {
  const path = options.journalPath;
  if (doc.origin !== origin) {
    throw new JournalError(
      `${path} binds the origin ${doc.origin}, not the configured ${origin}; its bytes go only there`,
    );
  }
  if (options.requestBytes !== undefined && !bytes.equals(Buffer.from(options.requestBytes))) {
    throw new JournalError(`${path} binds other bytes; a changed request is a new submission: use a new journal`);
  }
  if (doc.credentialFingerprint !== credentialFingerprint(options.apiKey)) {
    throw new JournalError(
      `${path} was started with another API key; idempotency is per principal, so another key could store a second draft`,
    );
  }
}

/**
 * Uploads through a journal (the original idempotency key and immutable request are kept and retried as a
 * pair; a new key is never generated automatically). A new journal is written (mode 0600) only after the capabilities
 * gate passes and the request fits the intake limits they publish (LocalCheckError otherwise), and before the first
 * POST; an existing one is resumed and only its bytes with its key are ever sent.
 * A journal holding a definite refusal sends nothing. Every attempt and the outcome are recorded before returning.
 * Throws JournalError when the journal is unusable or binds another origin, key or request; LocalCheckError when
 * the request fails its local checks.
 */
export async function submitWithModuleJournal(options: JournalSubmitOptions): Promise<JournalSubmitResult> {
  const { origin } = resolveCall(options);
  const now = options.now ?? Date.now;
  let journal: ModuleSubmitJournal | undefined;
  let bytes: Buffer;
  if (existsSync(options.journalPath)) {
    const resumed = resumeModuleJournal(options, origin);
    if (resumed.stop) return resumed.stop;
    ({ journal, bytes } = resumed);
  } else {
    if (options.requestBytes === undefined) {
      throw new JournalError(`no journal at ${options.journalPath} and no request to start one`);
    }
    bytes = Buffer.from(options.requestBytes);
  }
  checkModuleRequest(bytes);

  const gate = await requireUploadCapabilities({ origin, timeoutMs: options.timeoutMs, fetch: options.fetch });
  if (gate.error) return { error: gate.error, stage: 'capabilities', ...(journal ? { journal } : {}) };

  if (!journal) {
    // A resumed pair may already be stored (its replay is answered before any rule), so only a new upload is held to
    // the limits the deployment publishes now.
    const published = gate.data.moduleContributions.limits;
    if (published) checkPublishedLimits(bytes, published);
    journal = createModuleJournal(options.journalPath, { origin, apiKey: options.apiKey, bytes, now: now() });
    options.onNote?.(
      `journal ${options.journalPath} (mode 0600) binds Idempotency-Key ${journal.idempotencyKey} to ${journal.requestSha256}`,
    );
  }
  const at = new Date(now()).toISOString();
  const sent = await postSubmission(options, journal.idempotencyKey, bytes);
  return recordSubmission(options.journalPath, journal, sent, at);
}

/**
 * Opens an existing journal for a resume: checked against the origin, key and request, with a note of what is
 * resent. A journal that holds a definite refusal answers that refusal and nothing is sent.
 */
function resumeModuleJournal(
  options: JournalSubmitOptions,
  origin: string,
): { journal: ModuleSubmitJournal; bytes: Buffer; stop?: undefined } | { stop: JournalSubmitResult } {
  const { doc: journal, bytes } = openModuleJournal(options.journalPath);
  checkResume(journal, bytes, options, origin);
  if (journal.outcome.state === 'refused') {
    const failure = clientFailure(
      (journal.outcome.code ?? 'MODULE_API_RESPONSE') as ModuleFailure['code'],
      'a definite refusal recorded in the journal; nothing was sent. A changed request is a new submission with a new journal',
      { httpStatus: journal.outcome.httpStatus },
    );
    const error = {
      ...failure,
      source: 'service' as const,
      requestId: journal.outcome.requestId,
      at: journal.attempts.at(-1)?.at ?? failure.at,
    };
    return { stop: { error, stage: 'submit', journal } };
  }
  options.onNote?.(
    journal.outcome.state === 'received'
      ? `${options.journalPath} holds receipt ${journal.outcome.submissionId}; resending the pair reconciles (exact replay)`
      : `resuming ${options.journalPath}: the same bytes with the same Idempotency-Key ${journal.idempotencyKey}`,
  );
  return { journal, bytes };
}

/** Records one upload's attempt and outcome in the journal (saved before returning) and answers its result. */
function recordSubmission(
  journalPath: string,
  journal: ModuleSubmitJournal,
  sent: Awaited<ReturnType<typeof postSubmission>>,
  at: string,
): JournalSubmitResult {
  const attempt: ModuleSubmitAttempt = {
    at,
    result: sent.error && sent.error.httpStatus === null ? 'no_answer' : 'answer',
    httpStatus: sent.error ? sent.error.httpStatus : sent.httpStatus,
    code: sent.error ? sent.error.code : null,
    requestId: sent.error ? sent.error.requestId : null,
  };
  journal.attempts.push(attempt);
  const outcome = journal.outcome;
  if (!sent.error) {
    const earlier = outcome.submissionId;
    if (earlier !== null && earlier !== sent.data.receipt.submissionId) {
      saveModuleJournal(journalPath, journal);
      const failure = clientFailure(
        'MODULE_API_RECEIPT_MISMATCH',
        `the replay names submission ${sent.data.receipt.submissionId}, the journal holds ${earlier}`,
        { httpStatus: sent.httpStatus, submissionMayExist: true },
      );
      return { error: failure, stage: 'submit', journal };
    }
    journal.outcome = {
      state: 'received',
      submissionMayExist: true,
      httpStatus: sent.httpStatus,
      code: null,
      requestId: null,
      submissionId: sent.data.receipt.submissionId,
    };
    journal.receipt = sent.data.receipt;
    saveModuleJournal(journalPath, journal);
    return { data: { ...sent.data, journal }, httpStatus: sent.httpStatus };
  }
  const failure = sent.error;
  const mayExist = outcome.submissionMayExist || failure.submissionMayExist;
  // A definite refusal ends the journal only while no attempt may have persisted the draft; otherwise the pair stays
  // pending so that the next run reconciles with the same key.
  const definite = !mayExist && !failure.retryable && failure.source === 'service' && failure.httpStatus !== 429;
  journal.outcome = {
    state: definite ? 'refused' : outcome.state === 'received' ? 'received' : 'pending',
    submissionMayExist: mayExist,
    httpStatus: failure.httpStatus,
    code: failure.code,
    requestId: failure.requestId,
    submissionId: outcome.submissionId,
  };
  saveModuleJournal(journalPath, journal);
  return { error: { ...failure, submissionMayExist: mayExist }, stage: 'submit', journal };
}
