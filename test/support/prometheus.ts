/**
 * A strict parser of the Prometheus text exposition format, version 0.0.4 (the format prom-client writes and
 * Prometheus scrapes): `# HELP` and `# TYPE` lines, samples with optional labels and an optional timestamp, label
 * values with their three escapes (`\\`, `\"`, `\n`), HELP text with its two (`\\`, `\n`). It throws, naming the
 * line, on anything the format does not allow: a malformed name, label or value, a label named twice, a series
 * given twice, a TYPE after its family's samples or given twice, a family whose lines are not together, a histogram
 * or summary sample of a suffix its type has not, a text that does not end with a line feed.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: the family's, or with a suffix (`_bucket`, `_sum`, `_count`, `_total`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string | null;
  type: MetricType;
  samples: Sample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const types: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const suffixes: Record<MetricType, readonly string[]> = {
  counter: ['', '_total'],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function unescapeHelp(text: string, line: number): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    throw new Error(`line ${line}: HELP escape \\${c} is not \\\\ or \\n`);
  });
}

/** A value as Go's strconv.ParseFloat reads it (the format's definition): decimal, or NaN and Inf in any case. */
function parseValue(text: string, line: number): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) {
    if (special[2]?.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: "${text}" is no value`);
  return Number(text);
}

/** The labels between `{` at `start` and the matching `}`: the labels and the index after the brace. */
function parseLabels(text: string, start: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq === -1) throw new Error(`line ${line}: a label without =`);
    const name = text.slice(i, eq).trim();
    if (!labelName.test(name)) throw new Error(`line ${line}: "${name}" is no label name`);
    if (name in labels) throw new Error(`line ${line}: label ${name} given twice`);
    i = eq + 1;
    if (text[i] !== '"') throw new Error(`line ${line}: the value of ${name} is not quoted`);
    let value = '';
    for (i += 1; ; i++) {
      const c = text[i];
      if (c === undefined) throw new Error(`line ${line}: the value of ${name} is not closed`);
      if (c === '"') break;
      if (c === '\\') {
        const next = text[++i];
        if (next === '\\' || next === '"') value += next;
        else if (next === 'n') value += '\n';
        else throw new Error(`line ${line}: label escape \\${next} is not \\\\, \\" or \\n`);
      } else value += c;
    }
    labels[name] = value;
    i += 1;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') throw new Error(`line ${line}: "${text[i]}" after the value of ${name}`);
  }
}

function parseSample(text: string, line: number): Sample {
  const nameEnd = text.search(/[{ ]/);
  if (nameEnd <= 0) throw new Error(`line ${line}: no sample`);
  const name = text.slice(0, nameEnd);
  if (!metricName.test(name)) throw new Error(`line ${line}: "${name}" is no metric name`);
  let rest = nameEnd;
  let labels: Record<string, string> = {};
  if (text[nameEnd] === '{') ({ labels, end: rest } = parseLabels(text, nameEnd, line));
  if (text[rest] !== ' ') throw new Error(`line ${line}: no space before the value`);
  const fields = text.slice(rest + 1).split(' ');
  if (fields.length > 2 || fields.some((f) => f === '')) throw new Error(`line ${line}: "${text}" is malformed`);
  const value = parseValue(fields[0] as string, line);
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`line ${line}: bad timestamp`);
  return { name, labels, value };
}

/** The family a sample belongs to: the current family when its name and type allow the sample's name. */
function familyOf(current: MetricFamily | undefined, name: string): MetricFamily | undefined {
  return current && suffixes[current.type].some((suffix) => name === `${current.name}${suffix}`) ? current : undefined;
}

/** Parses a whole exposition into its families, by name. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const families = new Map<string, MetricFamily>();
  const series = new Set<string>();
  let current: MetricFamily | undefined;
  const open = (name: string, line: number): MetricFamily => {
    if (current?.name === name) return current;
    if (families.has(name)) throw new Error(`line ${line}: family ${name} is not together`);
    current = { name, help: null, type: 'untyped', samples: [] };
    families.set(name, current);
    return current;
  };
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw);
      if (!m) return;
      const [, keyword, name = '', rest = ''] = m;
      if (!metricName.test(name)) throw new Error(`line ${line}: "${name}" is no metric name`);
      const family = open(name, line);
      if (keyword === 'HELP') {
        if (family.help !== null) throw new Error(`line ${line}: a second HELP for ${name}`);
        family.help = unescapeHelp(rest, line);
      } else {
        if (!types.includes(rest as MetricType)) throw new Error(`line ${line}: "${rest}" is no type`);
        if (family.samples.length > 0 || family.type !== 'untyped') {
          throw new Error(`line ${line}: TYPE of ${name} after its samples or a second time`);
        }
        family.type = rest as MetricType;
      }
      return;
    }
    const sample = parseSample(raw, line);
    const family = familyOf(current, sample.name) ?? open(sample.name, line);
    if (family.type === 'histogram' && sample.name.endsWith('_bucket') && !('le' in sample.labels)) {
      throw new Error(`line ${line}: a bucket without le`);
    }
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (series.has(key)) throw new Error(`line ${line}: series ${key} given twice`);
    series.add(key);
    family.samples.push(sample);
  });
  return families;
}
