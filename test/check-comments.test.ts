import { describe, expect, it } from 'vitest';
import { checkComments, commentViolations } from '../scripts/check-comments.ts';

// scripts/check-comments.ts: doc comments document a declaration, and no comment cites outside the repository.
describe('check-comments', () => {
  const cases: Array<[name: string, source: string, want: string[]]> = [
    ['a doc comment on its declaration', '/** The answer. */\nexport const answer = 42;\n', []],
    ['a plain block header before the imports', "/*\n * The file.\n */\nimport { a } from './a.ts';\n", []],
    [
      'a doc comment before an import',
      "/** The file. */\nimport { a } from './a.ts';\nexport const b = a;\n",
      ['1: a doc comment before an import documents nothing'],
    ],
    [
      'two doc comments on one declaration',
      '/** One. */\n/** Two. */\nexport const x = 1;\n',
      ['1: two doc comments on one declaration: merge them'],
    ],
    [
      'a doc comment before a line comment',
      '/** One. */\n// Two.\nexport const x = 1;\n',
      ['1: a doc comment before another comment'],
    ],
    [
      'a doc comment at the end of a block',
      'export function f() {\n  return 1;\n  /** Nothing. */\n}\n',
      ['3: a doc comment with no declaration after it'],
    ],
    [
      'a doc comment at the end of the file',
      'export const x = 1;\n/** Nothing. */\n',
      ['2: a doc comment with no declaration after it'],
    ],
    ['a glob in a string is no comment', "export const files = ['src/**/*.ts'];\n", []],
    [
      'a document outside the repository',
      '// As launch-transport.md says.\nexport const x = 1;\n',
      ["1: a comment cites a document outside the repository (launch-transport.md): 'launch-transport.md'"],
    ],
    [
      'a work item',
      '/** Added for issue 7 item 5. */\nexport const x = 1;\n',
      ["1: a comment cites a work item: 'issue 7'"],
    ],
    [
      'a house-style habit',
      '// STYLE habit 3.\nexport const x = 1;\n',
      ["1: a comment cites a house-style habit: 'STYLE habit'"],
    ],
    ['the word in a string is no citation', "export const s = 'issue 1000';\n", []],
  ];
  it.each(cases)('%s', (_name, source, want) => {
    expect(commentViolations('x.ts', source).map((v) => `${v.line}: ${v.message}`)).toEqual(want);
  });

  it('finds none in src/', () => {
    expect(checkComments(['src'])).toEqual([]);
  });

  it('finds none in test/, conformance/ and scripts/', () => {
    expect(checkComments(['test', 'conformance', 'scripts'])).toEqual([]);
  });
});
