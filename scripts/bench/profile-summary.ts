/*
 * `npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top]`: where a `node --cpu-prof` profile spent its
 * time, by self time per function and per source (a package under node_modules, a file under src/, node's
 * internals), as the breakdowns in docs/performance.md are read. Prints; never fails on a figure.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The source a frame belongs to: `pkg:<name>` under node_modules, the repository path under src/ or scripts/. */
export function sourceOf(url: string): string {
  if (url === '') return '(native/gc/idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  const local = /\/((?:src|scripts|generated|test)\/.*)$/.exec(url);
  if (local) return local[1] as string;
  if (url.startsWith('node:')) return 'node:internals';
  return url;
}

/** Self time in ms per function and per source of one profile, highest first. */
export function summarize(profile: CpuProfile): {
  totalMs: number;
  byFunction: [string, number][];
  bySource: [string, number][];
} {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const bySource = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') return;
    total += ms;
    const source = sourceOf(url);
    const fn = `${functionName || '(anonymous)'} ${source}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    bySource.set(source, (bySource.get(source) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { totalMs: total, byFunction: sorted(byFunction), bySource: sorted(bySource) };
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  const top = Number(topArg ?? 25);
  const { totalMs, byFunction, bySource } = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const pct = (ms: number) => `${((ms / totalMs) * 100).toFixed(1).padStart(5)}%`;
  console.log(`busy CPU time (idle and (program) excluded): ${totalMs.toFixed(0)} ms`);
  console.log('\nby source (self time)');
  for (const [s, ms] of bySource.slice(0, top)) console.log(`${pct(ms)} ${ms.toFixed(1).padStart(9)} ms  ${s}`);
  console.log('\nby function (self time)');
  for (const [f, ms] of byFunction.slice(0, top)) console.log(`${pct(ms)} ${ms.toFixed(1).padStart(9)} ms  ${f}`);
}
