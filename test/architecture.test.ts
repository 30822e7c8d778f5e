import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkArchitecture,
  importViolations,
  longFunctions,
  maxFunctionLines,
  sourceFiles,
} from '../scripts/check-architecture.ts';

/** A throwaway `src/` tree with the given files, for planting violations. */
function plant(files: Record<string, string>): { srcDir: string; files: string[] } {
  const srcDir = join(mkdtempSync(join(tmpdir(), 'arch-')), 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(srcDir, path)), { recursive: true });
    writeFileSync(join(srcDir, path), text);
  }
  return { srcDir, files: sourceFiles(srcDir) };
}

const messagesOf = (tree: ReturnType<typeof plant>) => importViolations(tree.srcDir, tree.files).map((v) => v.message);

describe('the layout keeps one direction for every arrow', () => {
  it('the repository has no import pointing the wrong way and no function over the line limit', () => {
    expect(checkArchitecture()).toEqual([]);
  });

  it.each([
    ['client', 'client/a.ts', "import { x } from '../domain/b.ts';", 'src/client must not import src/domain'],
    ['client', 'client/a.ts', "import { x } from '../store/db.ts';", 'src/client must not import src/store'],
    ['client', 'client/a.ts', "import { x } from '../http/app.ts';", 'src/client must not import src/http'],
    ['client', 'client/a.ts', "import { x } from '../chain/c.ts';", 'src/client must not import src/chain'],
    ['cli', 'cli/a.ts', "import { x } from '../domain/b.ts';", 'src/cli must not import src/domain'],
    ['cli', 'cli/a.ts', "export { x } from '../chain/c.ts';", 'src/cli must not import src/chain'],
    ['chain', 'chain/a.ts', "import type { X } from '../domain/b.ts';", 'src/chain must not import src/domain'],
    ['chain', 'chain/a.ts', "const m = await import('../domain/b.ts');", 'src/chain must not import src/domain'],
    ['domain', 'domain/x/a.ts', "import { x } from '../../http/app.ts';", 'src/domain must not import src/http'],
    ['domain', 'domain/x/a.ts', "import express from 'express';", 'src/domain must not import the package express'],
    ['core', 'core/a.ts', "import { x } from '../domain/b.ts';", 'src/core must not import src/domain'],
  ])('refuses a planted %s arrow: %s', (_area, path, source, message) => {
    expect(messagesOf(plant({ [path]: `${source}\nexport const y = 1;\n` }))).toEqual([
      expect.stringContaining(message),
    ]);
  });

  it.each([
    ['cli', 'cli/a.ts', "import { x } from '../client/b.ts';"],
    ['client', 'client/a.ts', "import { x } from '../core/b.ts';"],
    ['domain', 'domain/x/a.ts', "import { x } from '../../chain/c.ts';"],
    ['http', 'http/a.ts', "import { x } from '../domain/b.ts';"],
    ['chain', 'chain/a.ts', "import { x } from '../core/b.ts';"],
  ])('admits a downward %s arrow: %s', (_area, path, source) => {
    expect(messagesOf(plant({ [path]: `${source}\nexport const y = 1;\n` }))).toEqual([]);
  });

  it(`refuses a function body of ${maxFunctionLines + 1} lines and admits one of ${maxFunctionLines}`, () => {
    const body = (lines: number) => `export function f() {\n${'  void 0;\n'.repeat(lines - 2)}}\n`;
    const tree = plant({ 'domain/long.ts': body(maxFunctionLines + 1), 'domain/short.ts': body(maxFunctionLines) });
    const found = longFunctions(tree.files);
    expect(found.map((v) => v.message)).toEqual([
      `f is ${maxFunctionLines + 1} lines long (at most ${maxFunctionLines})`,
    ]);
    expect(found[0]?.file).toMatch(/long\.ts$/);
  });
});
