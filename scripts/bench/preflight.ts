/*
 * Section `preflight`: preflightCustomLaunchV4 (spec/openapi/paths/v4-custom-launches-preflight.yaml) of a maximal
 * request, 16 graph targets of 24 KiB runtime code each (the EIP-170 limit), on the app as its own process: at 1
 * connection (p50, p99) and at 32, each BENCH_SECONDS, with the server process's CPU milliseconds per request.
 */
import { type Hex, keccak256 } from 'viem';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { connections, exampleCreate, loadFigure, seconds } from './harness.ts';
import { type BenchFigure, type BenchSection, withTarget } from './report.ts';
import { inBenchFolder, startAppServer, v4 } from './servers.ts';

/** Runtime code bytes of each target: 24 KiB, the EIP-170 limit. */
export const runtimeBytes = 24_576;

/** 24 KiB of code-shaped bytes: PUSH immediates, arithmetic, jump destinations; deterministic per target. */
export function runtimeCode(seed: number): Hex {
  const out = Buffer.alloc(runtimeBytes);
  let x = seed * 2654435761;
  let i = 0;
  while (i < runtimeBytes) {
    x = (x * 1103515245 + 12345) >>> 0;
    const pick = x % 4;
    if (pick === 0 && i + 33 <= runtimeBytes) {
      out[i] = 0x7f; // PUSH32 and its immediate
      for (let k = 1; k <= 32; k++) out[i + k] = (x >>> (k % 24)) & 0xff;
      i += 33;
    } else {
      out[i] = [0x01, 0x5b, 0x50, 0x60][pick] ?? 0x00;
      if (out[i] === 0x60 && i + 1 < runtimeBytes) out[++i] = x & 0xff;
      i++;
    }
  }
  return `0x${out.toString('hex')}` as Hex;
}

/**
 * The maximal preflight request: the spec's V4 example grown to 16 graph targets, each of 24 KiB of runtime code,
 * every hash bound again (about 806 KB of JSON).
 */
export function maximalRequest(): string {
  const request: CustomLaunchCreateRequestV4 = structuredClone(exampleCreate);
  const targets = request.graphBundle.targets;
  for (let i = targets.length; i < 16; i++) {
    targets.push({ targetId: `auxiliary-${i}`, role: 'auxiliary', runtimeBytecode: '0x00', runtimeCodeHash: '0x' });
  }
  targets.forEach((target, i) => {
    target.runtimeBytecode = runtimeCode(i + 1);
    target.runtimeCodeHash = keccak256(target.runtimeBytecode as Hex);
  });
  return JSON.stringify(bindRequestHashes(request));
}

/** Maximal preflights sent one at a time before the figures are taken. */
const warmupRequests = 8;

/** Server CPU milliseconds per answered request over several loads together. */
function cpuPerRequest(loads: BenchFigure[]): number {
  let cpuMs = 0;
  let requests = 0;
  for (const { detail } of loads) {
    cpuMs += detail?.cpuMs ?? 0;
    requests += detail?.requests ?? 0;
  }
  return requests === 0 ? Number.NaN : Math.round((cpuMs / requests) * 100) / 100;
}

/** Runs the section: the 1-connection figure, then the 32-connection one, then the two targets read from them. */
export function run(): Promise<BenchSection> {
  return inBenchFolder('preflight', async (dir, keep) => {
    const app = keep(await startAppServer(dir));
    const body = maximalRequest();
    const load = (n: number) => ({
      url: `${app.url}${v4}/preflight`,
      connections: n,
      duration: seconds,
      method: 'POST',
      headers: { Authorization: `Bearer ${app.walletKey}`, 'Content-Type': 'application/json' },
      body,
    });
    // A warm-up by count, not by time: at a few hundred ms each, a second of warm-up would be only a few requests.
    for (let i = 0; i < warmupRequests; i++) {
      const answer = await fetch(`${app.url}${v4}/preflight`, { method: 'POST', headers: load(1).headers, body });
      if (answer.status !== 200) throw new Error(`preflight warm-up answered ${answer.status}: ${await answer.text()}`);
    }
    const one = await loadFigure('preflight.one', 'preflight maximal: 1 connection', app, load(1));
    const many = await loadFigure(
      'preflight.many',
      `preflight maximal: ${connections} connections`,
      app,
      load(connections),
    );
    const cpu = cpuPerRequest([one, many]);
    const figures: BenchFigure[] = [
      one,
      many,
      withTarget({ id: 'preflight.cpu', label: 'preflight: server CPU per request', value: cpu, unit: 'ms' }, '<= 15'),
      withTarget(
        {
          id: 'preflight.p99',
          label: 'preflight: p99 at 1 connection',
          value: one.detail?.p99 ?? Number.NaN,
          unit: 'ms',
        },
        '<= 25',
      ),
    ];
    return {
      name: 'preflight',
      figures,
      ratios: [],
      notes: [
        `maximal request: 16 targets x ${runtimeBytes} bytes of runtime code, ${Buffer.byteLength(body)} bytes of JSON; ${seconds} s per load`,
        'CPU per request: server process utime+stime over the requests answered in both loads',
      ],
    };
  });
}
