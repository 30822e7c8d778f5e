/*
 * `make bench` (`npx tsx scripts/bench/run.ts`): runs every section of the bench in order, prints one table (each
 * figure, then each ratio of a figure over its baseline from the same run, with its target and whether this run met
 * it) and writes build/bench.json ({ machine, startedAt, finishedAt, sections }, scripts/bench/report.ts). Sections
 * are modules of scripts/bench exporting `run(): Promise<BenchSection>`; a section whose file is absent is skipped.
 * BENCH_ONLY=get,create runs only those; BENCH_SECONDS (default 10) is each load's duration. A section that fails is
 * reported and the others still run; the exit code is then 1. Figures are printed, never asserted.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSection } from './report.ts';

/** Every section, in the order it runs; each is scripts/bench/<name>.ts. */
const sectionNames = ['get', 'create', 'preflight', 'scanner', 'workers', 'million', 'rss', 'startup'] as const;

function selected(): string[] {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !(sectionNames as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_ONLY names no section: ${unknown.join(', ')} (sections: ${sectionNames.join(', ')})`);
  return only.length > 0 ? sectionNames.filter((name) => only.includes(name)) : [...sectionNames];
}

async function runSection(name: string): Promise<BenchSection | null> {
  const file = new URL(`./${name}.ts`, import.meta.url);
  if (!existsSync(file)) {
    process.stderr.write(`section ${name}: scripts/bench/${name}.ts is absent, skipped\n`);
    return null;
  }
  process.stderr.write(`section ${name} ...\n`);
  const started = performance.now();
  const module = (await import(file.href)) as { run(): Promise<BenchSection> };
  const section = await module.run();
  section.notes.push(`section took ${Math.round((performance.now() - started) / 1000)} s`);
  return section;
}

const round = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toString() : String(Math.round(n * 100) / 100));

/** A figure's value with its unit and the details a reader needs first (latency, non-2xx, CPU per request). */
function describe(f: BenchFigure, detail?: string): string {
  if (detail) return `${round(f.detail?.[detail] ?? Number.NaN)} ms ${detail}`;
  const d = f.detail ?? {};
  const parts = [`${round(f.value)} ${f.unit}`];
  if (d.p50 !== undefined) parts.push(`p50 ${round(d.p50)} ms`);
  if (d.p99 !== undefined) parts.push(`p99 ${round(d.p99)} ms`);
  if (d.cpuMsPerRequest !== undefined) parts.push(`cpu ${round(d.cpuMsPerRequest)} ms/req`);
  if (d.status202 !== undefined) parts.push(`202: ${d.status202}, non-2xx: ${d.non2xx ?? 0}`);
  else if (d.non2xx) parts.push(`${d.non2xx} non-2xx`);
  return parts.join(', ');
}

function printTable(sections: BenchSection[]): void {
  const rows: string[][] = [['figure', 'value / baseline', 'ratio', 'target', 'met']];
  for (const section of sections) {
    rows.push([`[${section.name}]`, '', '', '', '']);
    const byId = new Map(section.figures.map((f) => [f.id, f]));
    for (const f of section.figures) {
      // A figure with warnings is flagged in the table; the warnings follow it.
      const label = f.warnings?.length ? `! ${f.label}` : f.label;
      rows.push([label, describe(f), '', f.target ?? '', f.met === undefined ? '' : f.met ? 'yes' : 'NO']);
    }
    for (const r of section.ratios) {
      const a = byId.get(r.figure);
      const b = byId.get(r.baseline);
      const detail = r.id.endsWith('.p99') ? 'p99' : undefined;
      const pair = a && b ? `${describe(a, detail).split(',')[0]} / ${describe(b, detail).split(',')[0]}` : '';
      rows.push([r.label, pair, round(r.value), r.target ?? '', r.met === undefined ? '' : r.met ? 'yes' : 'NO']);
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  for (const row of rows)
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  for (const section of sections) {
    for (const note of section.notes) console.log(`  ${section.name}: ${note}`);
    for (const f of section.figures) for (const w of f.warnings ?? []) console.log(`! ${f.id}: ${w}`);
  }
}

/**
 * The machine's speed at the start and the end of the run: MB/s of sha256 over 64 MB, and millions of iterations per
 * second of a plain integer loop, each one core. The same 2-vCPU machine has measured twice as fast on one day as on
 * another: every CPU time and throughput of a run scales with these, ratios of figures of one run hardly do.
 */
function speedGauge(): { sha256MBps: number; loopMips: number } {
  const bytes = Buffer.alloc(64 << 20, 7);
  let started = performance.now();
  createHash('sha256').update(bytes).digest();
  const sha256MBps = Math.round(64 / ((performance.now() - started) / 1000));
  started = performance.now();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x = (x + i * 7) % 1_000_003;
  // x is read here, so the loop cannot be optimized away (it is never negative).
  const loopMips = Math.round(100 / ((performance.now() - started) / 1000)) + (x < 0 ? 1 : 0);
  return { sha256MBps, loopMips };
}

const names = selected();
const startedAt = new Date().toISOString();
const machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  loadavg: loadavg(),
  speed: speedGauge(),
};
const sections: BenchSection[] = [];
let failed = false;
for (const name of names) {
  try {
    const section = await runSection(name);
    if (section) sections.push(section);
  } catch (err) {
    failed = true;
    const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`section ${name} failed: ${message}\n`);
    sections.push({ name, figures: [], ratios: [], notes: [`FAILED: ${message.split('\n')[0]}`] });
  }
}
const report = {
  machine: { ...machine, loadavgEnd: loadavg(), speedEnd: speedGauge() },
  startedAt,
  finishedAt: new Date().toISOString(),
  sections,
};
const out = fileURLToPath(new URL('../../build/bench.json', import.meta.url));
mkdirSync(fileURLToPath(new URL('../../build', import.meta.url)), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log('');
console.log(
  `custom-launch-api bench: ${machine.cpus} x ${machine.model}, node ${machine.node}, ` +
    `load ${machine.loadavg.map((l) => l.toFixed(2)).join(' ')} at start, ${report.machine.loadavgEnd.map((l) => l.toFixed(2)).join(' ')} at end`,
);
const gauge = (g: { sha256MBps: number; loopMips: number }) => `sha256 ${g.sha256MBps} MB/s, loop ${g.loopMips} M/s`;
console.log(`machine speed (one core): ${gauge(machine.speed)} at start, ${gauge(report.machine.speedEnd)} at end`);
printTable(sections);
console.log(`written: build/bench.json`);
if (failed) process.exit(1);
