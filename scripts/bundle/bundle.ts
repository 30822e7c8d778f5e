import { readFile, rename } from 'node:fs/promises';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = new URL('../..', import.meta.url).pathname;

/**
 * Each source file's `import.meta.url` is fixed to that file's own URL in the bundle, so the paths the code builds
 * from it (spec/schemas/, generated/, node_modules/ for solc and the Solidity imports) are the ones it reads when
 * run from src/ through tsx.
 */
const ownModuleUrl: Plugin = {
  name: 'own-module-url',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => {
      if (relative(root, args.path).startsWith('..') || args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/**
 * Packages a bundle that takes its dependencies in still loads from node_modules: solc, which the run's solc cache
 * (test/support/solc-cache.cjs) stands in for through require's cache, and better-sqlite3, a native addon.
 */
const keptOut = ['solc', 'better-sqlite3'];

/**
 * Bundles the TypeScript entry `entry` (relative to the repository) into the plain ES module `outfile`. Node then
 * starts it without loading TypeScript through tsx, which is most of a short CLI run. With `dependencies: 'inline'`
 * the packages it imports are bundled too (all but `keptOut`): node then reads one file rather than resolving and
 * compiling the hundreds of modules of viem and ajv, most of what is left of a short CLI run; otherwise they stay in
 * node_modules. `firstLine`, if given, is the bundle's first line, as a comment (scripts/bundle/fresh.mjs reads it).
 * Written beside and renamed into place, so a process starting it never reads half a file, and two processes
 * building it at once each rename a whole file.
 */
export async function bundle(
  entry: string,
  outfile: string,
  dependencies: 'inline' | 'external' = 'external',
  firstLine?: string,
): Promise<void> {
  const partial = `${outfile}.${process.pid}.partial`;
  const requireBanner =
    "import { createRequire as bundleRequire } from 'node:module';\nconst require = bundleRequire(import.meta.url);";
  const banner = [firstLine === undefined ? [] : [`// ${firstLine}`], dependencies === 'inline' ? [requireBanner] : []]
    .flat()
    .join('\n');
  await build({
    entryPoints: [`${root}${entry}`],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    ...(dependencies === 'inline'
      ? {
          external: keptOut,
        }
      : { packages: 'external' as const }),
    // The CommonJS packages taken in (ajv, say) call require(), which an ES module has no binding for.
    ...(banner === '' ? {} : { banner: { js: banner } }),
    plugins: [ownModuleUrl],
    logLevel: 'warning',
  });
  await rename(partial, outfile);
}
