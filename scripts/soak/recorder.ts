/*
 * What the soak counts: every request by kind and status (class, exact status, the ApiError code), its latency, and
 * the full answer of each 5xx and each request that got no answer, so a breach can be reported with its requestId.
 */

/** The class of an answer: its status class, or `network` when no answer came. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'network';

interface KindFigures {
  total: number;
  classes: Record<StatusClass, number>;
  statuses: Record<string, number>;
  codes: Record<string, number>;
  latenciesMs: number[];
}

/** One kind's figures in the report. */
export interface KindSummary {
  requests: number;
  requestsPerSecond: number;
  classes: Record<StatusClass, number>;
  statuses: Record<string, number>;
  codes: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

/** A 5xx or an unanswered request, kept whole for the report. */
export interface Breach {
  kind: string;
  method: string;
  path: string;
  status: number | null;
  requestId: string | null;
  body: string;
  at: string;
}

/** The fields of the answers the soak reads (each optional: an answer carries those of its operation). */
export interface AnswerBody {
  launchId?: string;
  status?: string;
  walletTransaction?: { to: string; valueWei: string; data: string; gasLimit: string } | null;
  lifecycleQueue?: { state?: string; lastErrorCode?: string | null } | null;
  nextCursor?: string | null;
  subkeyId?: string;
  apiKey?: string;
  submissionId?: string;
  requestId?: string;
  error?: { code?: string; requestId?: string };
}

/** An answer as the traffic reads it. */
export interface Answer {
  status: number;
  json: AnswerBody;
  text: string;
}

const emptyClasses = (): Record<StatusClass, number> => ({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, network: 0 });

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** How long a request may go unanswered before it counts as a breach (SOAK_REQUEST_TIMEOUT_SECONDS, default 30). */
const timeoutMs = Number(process.env.SOAK_REQUEST_TIMEOUT_SECONDS || '30') * 1000;

/** Counts requests; `send` is the one way the soak talks to the server. */
export class Recorder {
  readonly kinds = new Map<string, KindFigures>();
  readonly breaches: Breach[] = [];
  readonly classes = emptyClasses();
  /** Totals by class at the last interval mark, for the per-minute lines. */
  private mark = emptyClasses();

  private figures(kind: string): KindFigures {
    let f = this.kinds.get(kind);
    if (!f) {
      f = { total: 0, classes: emptyClasses(), statuses: {}, codes: {}, latenciesMs: [] };
      this.kinds.set(kind, f);
    }
    return f;
  }

  private count(kind: string, status: number | null, code: string | null, ms: number): void {
    const f = this.figures(kind);
    const statusClass: StatusClass = status === null ? 'network' : (`${Math.floor(status / 100)}xx` as StatusClass);
    f.total += 1;
    f.classes[statusClass] += 1;
    this.classes[statusClass] += 1;
    const s = status === null ? 'network' : String(status);
    f.statuses[s] = (f.statuses[s] ?? 0) + 1;
    if (code) f.codes[code] = (f.codes[code] ?? 0) + 1;
    f.latenciesMs.push(ms);
  }

  /** Sends one request (bounded by the timeout), counts it under `kind`, and keeps it whole when it is a 5xx or unanswered. */
  async send(
    kind: string,
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
  ): Promise<Answer | null> {
    const method = init.method ?? 'GET';
    const path = new URL(url).pathname;
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method,
        headers: init.headers,
        body: init.body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let json: AnswerBody = {};
      try {
        json = text ? (JSON.parse(text) as AnswerBody) : {};
      } catch {
        // Not JSON: kept as text.
      }
      const code = json.error?.code ?? null;
      this.count(kind, res.status, code, performance.now() - started);
      if (res.status >= 500) {
        const requestId = res.headers.get('x-request-id') ?? json.error?.requestId ?? json.requestId ?? null;
        this.breaches.push({
          kind,
          method,
          path,
          status: res.status,
          requestId,
          body: text.slice(0, 2000),
          at: new Date().toISOString(),
        });
      }
      return { status: res.status, json, text };
    } catch (err) {
      this.count(kind, null, null, performance.now() - started);
      this.breaches.push({
        kind,
        method,
        path,
        status: null,
        requestId: null,
        body: String(err),
        at: new Date().toISOString(),
      });
      return null;
    }
  }

  /** Requests by class since the previous call, and the totals. */
  interval(): { since: Record<StatusClass, number>; total: Record<StatusClass, number> } {
    const since = emptyClasses();
    for (const c of Object.keys(since) as StatusClass[]) since[c] = this.classes[c] - this.mark[c];
    this.mark = { ...this.classes };
    return { since, total: { ...this.classes } };
  }

  /** Per kind: requests, requests per second over `seconds`, classes, statuses, ApiError codes, p50 and p99. */
  summary(seconds: number): Record<string, KindSummary> {
    const out: Record<string, KindSummary> = {};
    for (const [kind, f] of [...this.kinds.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const sorted = [...f.latenciesMs].sort((a, b) => a - b);
      out[kind] = {
        requests: f.total,
        requestsPerSecond: Math.round((f.total / seconds) * 100) / 100,
        classes: f.classes,
        statuses: f.statuses,
        codes: f.codes,
        p50Ms: Math.round(percentile(sorted, 50) ?? 0),
        p99Ms: Math.round(percentile(sorted, 99) ?? 0),
      };
    }
    return out;
  }
}
