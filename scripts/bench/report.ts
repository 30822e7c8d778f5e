/*
 * The shape every `make bench` section reports in (scripts/bench/run.ts gathers them into build/bench.json and one
 * printed table). A figure always stands beside its baseline from the same run: a ratio names both figures. The
 * bench prints; it never asserts a number.
 */

/** One measured figure: a throughput, a latency, a CPU time, a size or a duration. */
export interface BenchFigure {
  /** Stable identifier within the run, e.g. `get.app`, `get.frameworkFloor`, `create.rawSqlite`. */
  id: string;
  /** What was measured, for the printed table. */
  label: string;
  value: number;
  unit: 'req/s' | 'ms' | 'MB/s' | 'MB' | 's' | 'calls' | 'rows/s';
  /** Further figures of the same measurement (p50, p99, errors, non-2xx, CPU ms per request ...). */
  detail?: Record<string, number>;
  /** An absolute target for `value` (`<= 250` for an RSS in MB), when the figure has no baseline to stand beside. */
  target?: string;
  /** Whether `value` meets `target` on this run (absent without a target). */
  met?: boolean;
  /** What makes the figure doubtful on this run (answers that were not 2xx, bodies made while timing ...). */
  warnings?: string[];
}

/** `figure / baseline` for two figures of the same run, beside the target it is read against (if any). */
export interface BenchRatio {
  id: string;
  label: string;
  figure: string;
  baseline: string;
  /** The quotient, from `figure` of `figure` over that of `baseline` (or of a named detail of each). */
  value: number;
  /** The target, e.g. `>= 0.9` or `<= 1.3`; absent when the ratio is shown for information. */
  target?: string;
  /** Whether `value` meets `target` on this run (absent without a target). */
  met?: boolean;
}

/** What one section of the bench (one scenario file) reports. */
export interface BenchSection {
  name: string;
  figures: BenchFigure[];
  ratios: BenchRatio[];
  /** Conditions of the run a reader needs (connections, seconds, body size, rows seeded ...). */
  notes: string[];
}

/** Builds a ratio of two figures (or of one named detail of each) and checks it against `target` when given. */
export function ratioOf(
  section: Pick<BenchSection, 'figures'>,
  id: string,
  label: string,
  figure: string,
  baseline: string,
  options: { detail?: string; target?: string } = {},
): BenchRatio {
  const pick = (figureId: string): number => {
    const f = section.figures.find((x) => x.id === figureId);
    if (!f) throw new Error(`bench ratio ${id}: no figure ${figureId}`);
    const v = options.detail ? f.detail?.[options.detail] : f.value;
    if (v === undefined) throw new Error(`bench ratio ${id}: figure ${figureId} has no ${options.detail}`);
    return v;
  };
  const a = pick(figure);
  const b = pick(baseline);
  const value = b === 0 ? Number.NaN : Math.round((a / b) * 1000) / 1000;
  const ratio: BenchRatio = { id, label, figure, baseline, value };
  if (options.target) {
    ratio.target = options.target;
    ratio.met = meets(value, options.target, `bench ratio ${id}`);
  }
  return ratio;
}

/** Whether `value` meets a target written `>= x` or `<= x`; `what` names the figure or ratio in the error. */
export function meets(value: number, target: string, what: string): boolean {
  const m = /^(>=|<=)\s*([0-9.]+)$/.exec(target);
  if (!m) throw new Error(`${what}: target must be ">= x" or "<= x", got ${target}`);
  return m[1] === '>=' ? value >= Number(m[2]) : value <= Number(m[2]);
}

/** A figure with an absolute target (no baseline), checked on this run. */
export function withTarget(figure: BenchFigure, target: string): BenchFigure {
  return { ...figure, target, met: meets(figure.value, target, `bench figure ${figure.id}`) };
}
