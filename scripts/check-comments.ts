/*
 * The comment rules, checked over the TypeScript sources of `src/`:
 * - a doc comment (a `/**` block) stands right before the declaration it documents: never before an import, at the
 *   end of a block or file, or before another comment (two doc comments on one declaration are merged into one);
 * - a comment cites the spec (a file under spec/, an operationId) or states the rule in place: it never names a
 *   document outside the repository, a work-item number or a house-style habit number.
 * `npx tsx scripts/check-comments.ts [folder …]` prints each violation and exits 1 when there is one (default folder:
 * src); test/scripts/check-comments.test.ts runs it on the tree and on planted violations.
 */
import { readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { repoRoot, sourceFiles, type Violation } from './check-architecture.ts';

/** What a comment must not cite: the reference documents outside the repository, work items and habit numbers. */
export const forbiddenCitations: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: /launch-transport(\.md)?\b/, what: 'a document outside the repository (launch-transport.md)' },
  {
    pattern: /modules-subkeys-developer-api/,
    what: 'a document outside the repository (modules-subkeys-developer-api.md)',
  },
  { pattern: /CHAIN-NOTES/, what: 'a document outside the repository (CHAIN-NOTES.md)' },
  { pattern: /STYLE\.md|\bSTYLE habit|\b[Hh]abit \d/, what: 'a house-style habit' },
  { pattern: /\b[Ii]ssues? \d+\b|\bitems? \d+(,| and| of)/, what: 'a work item' },
];

/** The tokens of a file in source order, without JSDoc nodes (their text is trivia of the next token). */
function tokensOf(sf: ts.SourceFile): ts.Node[] {
  const tokens: ts.Node[] = [];
  const walk = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (node.kind <= ts.SyntaxKind.LastToken || node.kind === ts.SyntaxKind.EndOfFileToken) tokens.push(node);
    else for (const child of node.getChildren(sf)) walk(child);
  };
  walk(sf);
  return tokens;
}

/** The violations of one file's text; `file` names it in the report. */
export function commentViolations(file: string, text: string): Violation[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const violations: Violation[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const seen = new Set<number>();
  for (const token of tokensOf(sf)) {
    const comments = (ts.getLeadingCommentRanges(text, token.pos) ?? []).filter((c) => !seen.has(c.pos));
    for (const [i, c] of comments.entries()) {
      seen.add(c.pos);
      const body = text.slice(c.pos, c.end);
      for (const { pattern, what } of forbiddenCitations) {
        const match = pattern.exec(body);
        if (match) {
          const line = lineOf(c.pos + match.index);
          violations.push({ file, line, message: `a comment cites ${what}: '${match[0]}'` });
        }
      }
      if (!/^\/\*\*(?!\/)/.test(body)) continue;
      const next = comments[i + 1];
      if (next) {
        const stacked = text.startsWith('/**', next.pos) && !text.startsWith('/**/', next.pos);
        violations.push({
          file,
          line: lineOf(c.pos),
          message: stacked ? 'two doc comments on one declaration: merge them' : 'a doc comment before another comment',
        });
      } else if (token.kind === ts.SyntaxKind.ImportKeyword) {
        violations.push({ file, line: lineOf(c.pos), message: 'a doc comment before an import documents nothing' });
      } else if (token.kind === ts.SyntaxKind.CloseBraceToken || token.kind === ts.SyntaxKind.EndOfFileToken) {
        violations.push({ file, line: lineOf(c.pos), message: 'a doc comment with no declaration after it' });
      }
    }
  }
  return violations;
}

/** The rules over every .ts file under the folders given (relative to the repository root). */
export function checkComments(folders: readonly string[] = ['src']): Violation[] {
  return folders
    .flatMap((folder) => sourceFiles(join(repoRoot, folder)))
    .filter((path) => path.endsWith('.ts'))
    .flatMap((path) => commentViolations(relative(repoRoot, path), readFileSync(path, 'utf8')));
}

if (process.argv[1] && normalize(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folders = process.argv.slice(2);
  const violations = checkComments(folders.length > 0 ? folders : undefined);
  for (const v of violations) console.error(`${v.file}:${v.line}: ${v.message}`);
  if (violations.length > 0) {
    console.error(`check-comments: ${violations.length} violation(s)`);
    process.exit(1);
  }
  console.log('check-comments: every doc comment documents a declaration; no comment cites outside the repository');
}
