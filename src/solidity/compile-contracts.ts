import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SourceDescriptor } from '../../generated/types/service.ts';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));

/** One compiled contract: what deployment, encoding and the static checks need. */
export interface CompiledContract {
  sourcePath: string;
  abi: unknown[];
  /** Creation code (0x hex). */
  bytecode: string;
  /** Runtime code as compiled (0x hex); immutables are zero until deployment fills them. */
  deployedBytecode: string;
}

export interface CompiledContracts {
  /** solc long version, e.g. 0.8.37+commit.f401782d. */
  compilerVersion: string;
  /** sha256: digest of the exact standard-JSON compiler input (sources and settings). */
  compilerInputDigest: string;
  contracts: Record<string, CompiledContract>;
}

/** What one compilation read and produced: every source unit solc used (imports included), by source unit name. */
export interface SolidityBuild {
  compilerVersion: string;
  compilerInputDigest: string;
  /** The text of every source unit of the build, the given ones and those the import resolver supplied. */
  sources: Record<string, string>;
  /** Contracts with creation code, by source unit name, then contract name. */
  contracts: Record<string, Record<string, CompiledContract>>;
}

/** The compiler settings a build declares: the fields of a launch's sourceDescriptor that name them. */
export type SolidityBuildSettings = Pick<SourceDescriptor, 'optimizer' | 'evmVersion' | 'viaIR'>;

/** The one pinned build configuration of this project: solc-js from npm, optimizer on with 200 runs, cancun. */
export const solidityBuildSettings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  viaIR: false,
} as const satisfies SolidityBuildSettings;

/**
 * The exact standard-JSON compiler input: the sources and the settings (viaIR is written only when on, since off is
 * solc's default and the pinned builds' inputs never named it).
 */
function standardJsonInput(sources: Record<string, string>, settings: SolidityBuildSettings): string {
  return JSON.stringify({
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([path, content]) => [path, { content }])),
    settings: {
      optimizer: settings.optimizer,
      evmVersion: settings.evmVersion,
      ...(settings.viaIR ? { viaIR: true } : {}),
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  });
}

/** The solc long version without the Emscripten suffix, e.g. 0.8.37+commit.f401782d. */
function longVersion(version: string): string {
  return version.replace(/\.Emscripten.*$/, '');
}

/** Reads solc's standard-JSON output into a build; throws with solc's formatted messages when any error is reported. */
function buildOf(serialized: string, outputJson: string, version: string, read: Record<string, string>): SolidityBuild {
  const output = JSON.parse(outputJson);
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  }
  type SolcContract = { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } };
  const compiled = (output.contracts ?? {}) as Record<string, Record<string, SolcContract>>;
  const contracts: Record<string, Record<string, CompiledContract>> = {};
  for (const [sourcePath, byName] of Object.entries(compiled)) {
    for (const [name, c] of Object.entries(byName)) {
      if (c.evm.bytecode.object === '') continue; // interfaces and abstract contracts
      contracts[sourcePath] ??= {};
      contracts[sourcePath][name] = {
        sourcePath,
        abi: c.abi ?? [],
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  const used = Object.keys(output.sources ?? {});
  return {
    compilerVersion: longVersion(version),
    compilerInputDigest: `sha256:${createHash('sha256').update(serialized).digest('hex')}`,
    sources: Object.fromEntries(used.filter((p) => read[p] !== undefined).map((p) => [p, read[p] as string])),
    contracts,
  };
}

let pinnedVersion: string | undefined;

/**
 * The pinned solc-js build's long version (the only compiler a protected build uses). solc-js is asked in a worker
 * thread, once per process: loading it costs about 95 MB and two seconds of CPU, which the server's own thread never
 * pays (this thread waits for the answer; the worker and its memory are gone once it has answered).
 */
export function pinnedCompilerVersion(): string {
  pinnedVersion ??= versionInWorker();
  return pinnedVersion;
}

/** How long a version lookup may take before it is reported as failed (loading solc-js takes seconds). */
const versionTimeoutMs = 120_000;

function versionInWorker(): string {
  // Int32 0: 0 while waiting, 1 with the version, 2 with an error; Int32 1: the message's byte length; then its bytes.
  const shared = new SharedArrayBuffer(8 + 4096);
  const state = new Int32Array(shared, 0, 2);
  const worker = solcWorker({ version: shared });
  worker.on('error', () => {});
  worker.unref();
  if (Atomics.wait(state, 0, 0, versionTimeoutMs) === 'timed-out') {
    void worker.terminate();
    throw new Error(`solc-js did not report its version within ${versionTimeoutMs} ms`);
  }
  const text = Buffer.from(new Uint8Array(shared, 8, Atomics.load(state, 1))).toString('utf8');
  if (Atomics.load(state, 0) !== 1) throw new Error(`solc-js could not be loaded: ${text}`);
  return longVersion(text);
}

/**
 * A worker thread running solc-worker.mjs. It is plain JavaScript, so it starts without the parent's loader flags
 * (a TypeScript loader would add about 400 ms to every compilation's start).
 */
function solcWorker(workerData: object): Worker {
  return new Worker(new URL('./solc-worker.mjs', import.meta.url), { workerData, execArgv: [] });
}

/**
 * Compiles Solidity sources (by source unit name) with the pinned solc-js and the given settings (the pinned ones
 * unless named). `resolveImport` supplies the text of an imported unit or undefined when it does not exist; nothing
 * is fetched. Throws with solc's formatted messages when any error is reported.
 */
export function compileSolidity(
  sources: Record<string, string>,
  resolveImport: (path: string) => string | undefined,
  settings: SolidityBuildSettings = solidityBuildSettings,
): SolidityBuild {
  const solc = require('solc') as { compile(input: string, options?: object): string; version(): string };
  const read: Record<string, string> = { ...sources };
  const findImports = (path: string) => {
    const contents = resolveImport(path);
    if (contents === undefined) return { error: `not found: ${path}` };
    read[path] = contents;
    return { contents };
  };
  const serialized = standardJsonInput(sources, settings);
  return buildOf(serialized, solc.compile(serialized, { import: findImports }), solc.version(), read);
}

/**
 * Compiles a closed set of sources (imports resolve only among them) with the pinned solc-js in a worker thread, so
 * a long compilation never stalls the server's event loop. Rejects with solc's messages when the sources do not
 * compile.
 */
export function compileSolidityIsolated(
  sources: Record<string, string>,
  settings: SolidityBuildSettings,
): Promise<SolidityBuild> {
  return compileInWorker(standardJsonInput(sources, settings), sources);
}

/**
 * Compiles a serialized standard-JSON input in a worker thread; `read` is the text of its sources by unit name. With
 * `timeoutMs`, a compilation still running then is stopped and rejected.
 */
function compileInWorker(serialized: string, read: Record<string, string>, timeoutMs?: number): Promise<SolidityBuild> {
  return new Promise((resolve, reject) => {
    const worker = solcWorker({ input: serialized });
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => {
        reject(new Error(`the compilation ran longer than ${timeoutMs} ms`));
        void worker.terminate();
      }, timeoutMs);
      worker.once('exit', () => clearTimeout(timer));
    }
    worker.once('message', (m: { output: string; version: string }) => {
      try {
        resolve(buildOf(serialized, m.output, m.version, read));
      } catch (err) {
        reject(err);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the solc worker exited with code ${code}`));
    });
  });
}

/** A closed solc standard-JSON input as a request carries it (inline sources; the server picks outputSelection). */
export interface StandardJsonSources {
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
}

/** The exact compiler input the server builds a request's unit from: its own, with the server's outputSelection. */
export function serverStandardJson(input: StandardJsonSources): string {
  const selection = { '*': { '*': ['evm.bytecode.object', 'evm.deployedBytecode.object'] } };
  return JSON.stringify({ ...input, settings: { ...input.settings, outputSelection: selection } });
}

/**
 * Compiles a request's own standard-JSON input with the pinned solc-js in a worker thread, its settings as given
 * except outputSelection, which the server sets to the creation and runtime code only. Imports resolve only among
 * its sources. Rejects with solc's messages when the sources do not compile, or when `timeoutMs` passes first.
 */
export function compileStandardJsonIsolated(input: StandardJsonSources, timeoutMs?: number): Promise<SolidityBuild> {
  const serialized = serverStandardJson(input);
  const sources = Object.fromEntries(Object.entries(input.sources).map(([path, { content }]) => [path, content]));
  return compileInWorker(serialized, sources, timeoutMs);
}

/**
 * compileStandardJsonIsolated in this thread, for the client's pack (which is synchronous): the same exact input
 * (serverStandardJson), so the client computes each target's init code hash from the very build the server makes.
 */
export function compileStandardJson(input: StandardJsonSources): SolidityBuild {
  const solc = require('solc') as { compile(input: string): string; version(): string };
  const serialized = serverStandardJson(input);
  const sources = Object.fromEntries(Object.entries(input.sources).map(([path, { content }]) => [path, content]));
  return buildOf(serialized, solc.compile(serialized), solc.version(), sources);
}

/** One source unit's solc AST (compact JSON form), as solc's standard JSON output gives it. */
export type SolidityAst = Record<string, unknown>;

/**
 * Parses and analyses a closed set of sources (imports resolve only among them) with the pinned solc-js in a worker
 * thread and returns each unit's AST, with names resolved (an identifier's `referencedDeclaration` is negative for a
 * global builtin). No code is generated. Rejects with solc's messages when the sources do not analyse.
 */
export function solidityAstsIsolated(
  sources: Record<string, string>,
  settings: SolidityBuildSettings,
): Promise<Record<string, SolidityAst>> {
  const input = JSON.stringify({
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(sources).map(([path, content]) => [path, { content }])),
    settings: { evmVersion: settings.evmVersion, outputSelection: { '*': { '': ['ast'] } } },
  });
  return new Promise((resolve, reject) => {
    const worker = solcWorker({ input });
    worker.once('message', (m: { output: string }) => {
      const output = JSON.parse(m.output) as {
        errors?: Array<{ severity: string; formattedMessage: string }>;
        sources?: Record<string, { ast: SolidityAst }>;
      };
      const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
      if (errors.length > 0) reject(new Error(errors.map((e) => e.formattedMessage).join('\n')));
      else resolve(Object.fromEntries(Object.entries(output.sources ?? {}).map(([path, u]) => [path, u.ast])));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the solc worker exited with code ${code}`));
    });
  });
}

function solFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return solFiles(path);
    return e.name.endsWith('.sol') ? [path] : [];
  });
}

/** Each example project's contract folder (examples/<project>/contracts/). */
function exampleSourceDirs(): string[] {
  const examples = join(root, 'examples');
  if (!existsSync(examples)) return [];
  return readdirSync(examples, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(examples, e.name, 'contracts')))
    .map((e) => join(examples, e.name, 'contracts'))
    .sort();
}

function compileRepositoryDir(dir: string, exclude: string[] = []): SolidityBuild & { given: Set<string> } {
  const sources = Object.fromEntries(
    solFiles(dir)
      .filter((path) => !exclude.some((excluded) => path.startsWith(`${excluded}/`)))
      .sort()
      .map((path) => [relative(root, path), readFileSync(path, 'utf8')]),
  );
  const build = compileSolidity(sources, (path) => {
    const local = join(root, path.startsWith('@') ? `node_modules/${path}` : path);
    return existsSync(local) ? readFileSync(local, 'utf8') : undefined;
  });
  return { ...build, given: new Set(Object.keys(sources)) };
}

/**
 * Compiles the platform's chain-4663 contracts (contracts/ without contracts/base/ and contracts/multi-role/) with the
 * pinned build (its input digest is the one the chain deployment records), the base-layer contracts of
 * contracts/base/ and the shared lane's contracts of contracts/multi-role/ each as a build of their own (so adding to
 * them never moves that digest), and each example project's contracts/ as a build of its own, resolving
 * `@uniswap/v4-core/...` and `contracts/...` imports from the repository. `make generate` writes the result to
 * generated/contracts/; the devnets deploy from it and the server encodes and decodes calls with its ABIs.
 */
export function compileContracts(): CompiledContracts {
  const laneDirs = [join(root, 'contracts', 'base'), join(root, 'contracts', 'multi-role')];
  const platform = compileRepositoryDir(join(root, 'contracts'), laneDirs);
  const lanes = laneDirs.filter((dir) => existsSync(dir)).map((dir) => compileRepositoryDir(dir));
  const contracts: Record<string, CompiledContract> = {};
  for (const build of [platform, ...lanes, ...exampleSourceDirs().map((dir) => compileRepositoryDir(dir))]) {
    for (const [sourcePath, byName] of Object.entries(build.contracts)) {
      if (!build.given.has(sourcePath)) continue; // imported library code
      for (const [name, contract] of Object.entries(byName)) {
        const taken = contracts[name];
        if (taken) throw new Error(`two contracts named ${name}: ${taken.sourcePath} and ${sourcePath}`);
        contracts[name] = contract;
      }
    }
  }
  return { compilerVersion: platform.compilerVersion, compilerInputDigest: platform.compilerInputDigest, contracts };
}
