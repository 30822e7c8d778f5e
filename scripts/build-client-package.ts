/*
 * Builds the npm package of the typed client and the `custom-launch` CLI into packages/client/dist/ (docs/clients.md):
 * `make client-package`, or `npx tsx scripts/build-client-package.ts`; then `npm pack` in packages/client.
 *  - dist/index.js (the library, src/client/index.ts) and dist/cli.js (the CLI, src/cli/bin.ts, which the package's
 *    bin/custom-launch.js starts): plain ES modules bundled by esbuild from src/ (the types of generated/ are
 *    erased), sharing their code in chunks beside them. The npm packages they import stay `dependencies` of the package, at the versions the
 *    root lock resolves (checked here): the declarations name viem's and openapi-fetch's types, and solc-js must be
 *    the exact build the service pins, loaded from node_modules as in the repository.
 *  - dist/types/: the declarations of the library entry (tsc, packages/client/tsconfig.json), in the repository's
 *    layout.
 *  - dist/spec/schemas/ and dist/src/solidity/solc-worker.mjs: the files the bundled code reads at run time (the
 *    JSON Schemas of spec/schemas that every request, journal and manifest is checked against; the solc worker).
 *    Each bundled module's `import.meta.url` is its own path under dist/ (`mirrorModuleUrl`), so the paths it
 *    builds from it land on these copies as they land on the originals in the repository.
 * It refuses to build when packages/client/package.json drifts: its version must be the client release the CLI
 * reports (src/core/client-releases.ts) and each dependency the version the root lock resolves.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { clientReleases } from '../src/core/client-releases.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The package's folder, where `npm pack` runs. */
export const packageDir = join(root, 'packages/client');
/** The package's own files beside what the build writes into dist/. */
const packageFiles = ['package.json', 'README.md', 'bin'];

interface PackageJson {
  name: string;
  version: string;
  dependencies: Record<string, string>;
}

/** The package's manifest (packages/client/package.json). */
export function packageManifest(): PackageJson {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageJson;
}

/**
 * What packages/client/package.json gets wrong: a version other than the CLI's client release, a dependency at
 * another version than the root lock's, or an npm package the bundles import that it does not list.
 */
export function manifestDrift(imported: readonly string[]): string[] {
  const manifest = packageManifest();
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const problems: string[] = [];
  const release = clientReleases['4.1.0'];
  if (manifest.version !== release) {
    problems.push(`version is ${manifest.version}; the CLI reports client release ${release} (--version)`);
  }
  for (const [name, version] of Object.entries(manifest.dependencies)) {
    const locked = lock.packages[`node_modules/${name}`]?.version;
    if (version !== locked) problems.push(`dependency ${name} is ${version}; the root lock resolves ${locked}`);
  }
  for (const name of imported) {
    if (!(name in manifest.dependencies)) problems.push(`the bundles import ${name}, which is not a dependency`);
  }
  return problems;
}

/**
 * Each source file's `import.meta.url` is the URL its own path would have under dist/, resolved from the chunk it is
 * bundled into (every chunk lies in dist/ itself): `new URL('../../spec/schemas/', import.meta.url)` in
 * src/spec/schema-registry.ts reaches dist/spec/schemas/ wherever the package is installed.
 */
const mirrorModuleUrl: Plugin = {
  name: 'mirror-module-url',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => {
      const path = relative(root, args.path);
      if (path.startsWith('..') || path.includes('node_modules')) return undefined;
      const text = await readFile(args.path, 'utf8');
      const url = `new URL(${JSON.stringify(`./${path}`)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/** The npm package a bare import specifier names (`ajv/dist/2020.js` is ajv). */
const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? specifier);

/** Bundles the library and the CLI into `dist`; returns the npm packages they import (the runtime's `require` too). */
async function bundleJavaScript(dist: string): Promise<string[]> {
  const result = await build({
    entryPoints: { index: join(root, 'src/client/index.ts'), cli: join(root, 'src/cli/bin.ts') },
    outdir: dist,
    // In dist/ itself, beside the entries: mirrorModuleUrl resolves every module's path from its chunk's folder.
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    plugins: [mirrorModuleUrl],
    metafile: true,
    logLevel: 'warning',
  });
  const imported = new Set<string>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const i of output.imports) if (i.external && !i.path.startsWith('node:')) imported.add(packageOf(i.path));
  }
  // src/solidity/compile-contracts.ts and its worker load solc-js with require(), which the metafile does not see.
  imported.add('solc');
  return [...imported].sort();
}

/** The declarations of the library entry into `dist`/types, by tsc (packages/client/tsconfig.json). */
function emitDeclarations(dist: string): Promise<void> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const args = [tsc, '-p', join(packageDir, 'tsconfig.json'), '--outDir', join(dist, 'types')];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: root }, (err, stdout, stderr) => {
      if (err) reject(new Error(`tsc could not emit the declarations:\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

/** The files the bundles read at run time, at their paths under `dist` (see mirrorModuleUrl). */
function copyRuntimeFiles(dist: string): void {
  const schemas = join(root, 'spec/schemas');
  mkdirSync(join(dist, 'spec/schemas'), { recursive: true });
  for (const file of readdirSync(schemas).filter((f) => f.endsWith('.schema.json'))) {
    copyFileSync(join(schemas, file), join(dist, 'spec/schemas', file));
  }
  mkdirSync(join(dist, 'src/solidity'), { recursive: true });
  copyFileSync(join(root, 'src/solidity/solc-worker.mjs'), join(dist, 'src/solidity/solc-worker.mjs'));
}

/**
 * Builds the package's dist/ from scratch in packages/client, or in `folder` (a copy of the package's own files is
 * made there first, so a test builds and packs without touching the working tree). Throws, naming what to fix, when
 * the package's manifest drifts.
 */
export async function buildClientPackage(folder = packageDir): Promise<void> {
  if (folder !== packageDir) {
    for (const file of packageFiles) cpSync(join(packageDir, file), join(folder, file), { recursive: true });
  }
  const dist = join(folder, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const imported = await bundleJavaScript(dist);
  const drift = manifestDrift(imported);
  if (drift.length > 0) {
    throw new Error(`packages/client/package.json: ${drift.join('; ')}`);
  }
  copyRuntimeFiles(dist);
  await emitDeclarations(dist);
}

if (process.argv[1] && normalize(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const startedAt = Date.now();
  await buildClientPackage();
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  console.log(
    `${relative(root, join(packageDir, 'dist'))} built in ${seconds} s (npm pack in packages/client makes the tarball)`,
  );
}
