/** One `selfdestruct(...)` call found in a source unit. */
export interface SourceSelfdestruct {
  /** The source unit (a path of the launch's sourceBundleManifest). */
  path: string;
  /** 1-based line and column of the call in the unit's text. */
  line: number;
  column: number;
}

interface AstNode {
  nodeType?: unknown;
  src?: unknown;
  expression?: unknown;
  name?: unknown;
  referencedDeclaration?: unknown;
}

/**
 * Finds every source-level SELFDESTRUCT: a `FunctionCall` whose callee, through any parentheses, is the identifier
 * `selfdestruct` resolved to solc's global builtin (a negative `referencedDeclaration`). Only the analysed AST counts, so the word in a
 * comment, a string, an event or a user function that shadows the builtin (positive `referencedDeclaration`) never
 * matches. Runtime or source SELFDESTRUCT hard-blocks deployment (spec/schemas/custom-launch-preflight.v2.schema.json);
 * spec/openapi/paths/v4-custom-launch-source-file.yaml (when the server evaluates it).
 *
 * @param asts Each source unit's AST by path (`solidityAstsIsolated`).
 * @param sources Each unit's text by path, to turn byte offsets into lines and columns.
 * @returns The calls sorted by path (UTF-16 code units), line and column.
 */
export function findSourceSelfdestructs(
  asts: Record<string, unknown>,
  sources: Record<string, string>,
): SourceSelfdestruct[] {
  const found: SourceSelfdestruct[] = [];
  for (const [path, ast] of Object.entries(asts)) {
    const text = Buffer.from(sources[path] ?? '', 'utf8');
    const stack: unknown[] = [ast];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (Array.isArray(node)) {
        stack.push(...node);
        continue;
      }
      if (node === null || typeof node !== 'object') continue;
      const n = node as AstNode;
      if (n.nodeType === 'FunctionCall' && isBuiltinSelfdestruct(n.expression)) {
        found.push({ path, ...position(text, n.src) });
      }
      stack.push(...Object.values(node));
    }
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return found.sort((a, b) => order(a.path, b.path) || a.line - b.line || a.column - b.column);
}

function isBuiltinSelfdestruct(expression: unknown): boolean {
  if (expression === null || typeof expression !== 'object') return false;
  const e = expression as AstNode & { components?: unknown };
  // `(selfdestruct)(...)` calls the builtin too: a parenthesised callee is a one-component TupleExpression.
  if (e.nodeType === 'TupleExpression' && Array.isArray(e.components) && e.components.length === 1) {
    return isBuiltinSelfdestruct(e.components[0]);
  }
  return (
    e.nodeType === 'Identifier' &&
    e.name === 'selfdestruct' &&
    typeof e.referencedDeclaration === 'number' &&
    e.referencedDeclaration < 0
  );
}

/** solc's `src` is `start:length:unit` in bytes of the UTF-8 text. */
function position(text: Buffer, src: unknown): { line: number; column: number } {
  const start = typeof src === 'string' ? Number(src.split(':')[0]) : Number.NaN;
  if (!Number.isInteger(start) || start < 0) return { line: 0, column: 0 };
  const before = text.subarray(0, start).toString('utf8');
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}
