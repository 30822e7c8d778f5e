/*
 * Preflight throughput and p99 for a maximal request: 16 graph targets of 24 KiB runtime code each (the EIP-170
 * limit), on loopback with 32 connections for BENCH_SECONDS (default 10). Prints figures; never fails on them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Hex, keccak256 } from 'viem';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { loadConfig } from '../../src/config.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { connections, measure, seconds, startApp } from './harness.ts';

const runtimeBytes = 24_576;

/** 24 KiB of code-shaped bytes: PUSH immediates, arithmetic, jump destinations; deterministic per target. */
function runtimeCode(seed: number): Hex {
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

function maximalRequest(): string {
  const request = JSON.parse(
    readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
  ) as CustomLaunchCreateRequestV4;
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

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-bench-preflight-'));
const config = {
  ...loadConfig({}),
  databasePath: join(dir, 'bench.sqlite'),
  validateResponses: false,
  routeBudgetPerMinute: 1_000_000_000,
};
const app = await startApp(config);
try {
  const { apiKey } = mintWalletKey(app.db, {
    wallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    scopes: ['custom-launch:create'],
    chains: ['4663'],
  });
  const body = maximalRequest();
  console.log(
    `preflight of a maximal request: 16 targets x ${runtimeBytes} bytes of runtime code, ${Buffer.byteLength(body)} bytes of JSON; ` +
      `${connections} connections, ${seconds} s, response validation off`,
  );
  const figure = await measure('app POST preflight (maximal request)', {
    url: `${app.url}/v4/chains/4663/custom-launches/preflight`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body,
  });
  console.log(
    `${figure.scenario}: ${figure.requestsPerSecond} req/s, p99 ${figure.p99Ms} ms, ` +
      `average ${figure.averageLatencyMs} ms, ${figure.total} requests, ${figure.errors} errors, ${figure.non2xx} non-2xx`,
  );
  console.log(JSON.stringify({ bodyBytes: Buffer.byteLength(body), ...figure }));
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
