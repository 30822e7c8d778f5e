/*
 * The layout's two rules, checked over the TypeScript sources of `src/`:
 * - every import arrow points down (the table `forbidden` below: a folder never imports the folders listed for it);
 * - no function body is longer than `maxFunctionLines` lines.
 * `npx tsx scripts/check-architecture.ts` prints each violation and exits 1 when there is one; `make lint` runs it and
 * test/architecture.test.ts runs it on the tree and on planted violations.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const maxFunctionLines = 80;

/** Server-side folders of `src/` (and its two server files) that the client and the CLI never import. */
const serverSide = [
  'domain',
  'chain',
  'store',
  'http',
  'auth',
  'errors',
  'admin',
  'devnet',
  'cluster',
  'server',
  'observability',
  'config.ts',
  'main.ts',
] as const;

/**
 * For each top entry of `src/`, the top entries it must not import. The arrows that remain point down:
 * cli → client → core/solidity/spec; main → server → http → domain → chain/store → core; cluster (the process
 * lease and the cluster's route counters) sits beside store; nothing imports cli, server or main.
 */
export const forbidden: Record<string, readonly string[]> = {
  core: [...serverSide, 'client', 'cli', 'solidity', 'spec'],
  solidity: [...serverSide, 'client', 'cli', 'spec'],
  spec: [...serverSide, 'client', 'cli'],
  client: [...serverSide, 'cli'],
  cli: serverSide,
  chain: ['domain', 'http', 'store', 'auth', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  store: ['domain', 'chain', 'http', 'auth', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  errors: ['domain', 'chain', 'http', 'store', 'auth', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  auth: ['domain', 'chain', 'http', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  domain: ['http', 'admin', 'client', 'cli', 'server', 'main.ts'],
  devnet: ['domain', 'http', 'store', 'auth', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  http: ['admin', 'client', 'cli', 'server', 'main.ts'],
  cluster: ['domain', 'chain', 'http', 'auth', 'admin', 'client', 'cli', 'server', 'main.ts'],
  server: ['admin', 'client', 'cli', 'main.ts'],
  admin: ['http', 'client', 'cli', 'cluster', 'server', 'main.ts'],
  observability: [
    'domain',
    'chain',
    'store',
    'http',
    'auth',
    'errors',
    'admin',
    'devnet',
    'client',
    'cli',
    'cluster',
    'server',
    'config.ts',
    'main.ts',
  ],
  'config.ts': ['domain', 'http', 'store', 'auth', 'admin', 'client', 'cli', 'cluster', 'server', 'main.ts'],
};

/** npm packages a folder must not import (the web framework stays in `src/http` and `src/main.ts`). */
export const forbiddenPackages: Record<string, readonly string[]> = {
  core: ['express', 'express-openapi-validator', 'better-sqlite3'],
  domain: ['express', 'express-openapi-validator'],
  chain: ['express', 'express-openapi-validator', 'better-sqlite3'],
  client: ['express', 'express-openapi-validator', 'better-sqlite3'],
  cli: ['express', 'express-openapi-validator', 'better-sqlite3'],
};

export interface Violation {
  file: string;
  line: number;
  message: string;
}

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = normalize(join(here, '..'));

/** Every .ts and .mjs file under a folder. */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mjs)$/.test(name)) files.push(path);
  }
  return files;
}

/** The top entry of `src/` a path lies in (`domain`, `main.ts`), or null outside `src/`. */
function topOf(srcDir: string, path: string): string | null {
  const rel = relative(srcDir, path);
  if (rel.startsWith('..')) return null;
  return rel.split(sep)[0] ?? null;
}

/** The module specifiers a file imports or re-exports, with their lines (static and dynamic imports alike). */
function specifiersOf(sf: ts.SourceFile): Array<{ text: string; line: number }> {
  const found: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node) => {
    let spec: ts.Expression | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      spec = node.moduleSpecifier;
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      spec = node.arguments[0];
    }
    if (spec && ts.isStringLiteralLike(spec)) {
      found.push({ text: spec.text, line: sf.getLineAndCharacterOfPosition(spec.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function parse(path: string, text?: string): ts.SourceFile {
  return ts.createSourceFile(path, text ?? readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The import arrows that point the wrong way, in the files given (paths under `srcDir`). */
export function importViolations(srcDir: string, files: string[], read = (p: string) => readFileSync(p, 'utf8')) {
  const violations: Violation[] = [];
  for (const file of files) {
    const from = topOf(srcDir, file);
    if (!from) continue;
    for (const { text, line } of specifiersOf(parse(file, read(file)))) {
      const where = { file: relative(repoRoot, file), line };
      if (text.startsWith('.')) {
        const to = topOf(srcDir, join(dirname(file), text));
        if (to && to !== from && forbidden[from]?.includes(to)) {
          violations.push({ ...where, message: `src/${from} must not import src/${to} ('${text}')` });
        }
      } else {
        const pkg = text.startsWith('@') ? text.split('/').slice(0, 2).join('/') : (text.split('/')[0] ?? text);
        if (forbiddenPackages[from]?.includes(pkg)) {
          violations.push({ ...where, message: `src/${from} must not import the package ${pkg}` });
        }
      }
    }
  }
  return violations;
}

/** Functions (declarations, methods, arrows, expressions) whose body spans more than `maxFunctionLines` lines. */
export function longFunctions(files: string[], read = (p: string) => readFileSync(p, 'utf8')): Violation[] {
  const violations: Violation[] = [];
  for (const file of files.filter((f) => f.endsWith('.ts'))) {
    const sf = parse(file, read(file));
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const body = node.body as ts.Node;
        const first = sf.getLineAndCharacterOfPosition(body.getStart()).line;
        const last = sf.getLineAndCharacterOfPosition(body.getEnd()).line;
        const lines = last - first + 1;
        if (lines > maxFunctionLines) {
          const name = (node as { name?: ts.Node }).name?.getText(sf) ?? '(anonymous)';
          violations.push({
            file: relative(repoRoot, file),
            line: first + 1,
            message: `${name} is ${lines} lines long (at most ${maxFunctionLines})`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return violations;
}

/** Both checks over the repository's `src/`. */
export function checkArchitecture(): Violation[] {
  const srcDir = join(repoRoot, 'src');
  const files = sourceFiles(srcDir);
  return [...importViolations(srcDir, files), ...longFunctions(files)];
}

if (process.argv[1] && normalize(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const violations = checkArchitecture();
  for (const v of violations) console.error(`${v.file}:${v.line}: ${v.message}`);
  if (violations.length > 0) {
    console.error(`check-architecture: ${violations.length} violation(s)`);
    process.exit(1);
  }
  console.log('check-architecture: every import points down; no function is longer than 80 lines');
}
