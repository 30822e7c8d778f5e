import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findSourceSelfdestructs } from '../../src/domain/static-baseline/source-selfdestruct.ts';
import { solidityAstsIsolated, solidityBuildSettings } from '../../src/solidity/compile-contracts.ts';

const pragma = '// SPDX-License-Identifier: Apache-2.0\npragma solidity ^0.8.26;\n';

/** The source SELFDESTRUCT hard block over solc's analysed AST (paths/v4-custom-launch-source-file.yaml in spec/). */
const cases: Array<[name: string, sources: Record<string, string>, want: string[]]> = [
  [
    'a call of the builtin',
    {
      'contracts/Token.sol': `${pragma}contract Token {\n    function retire() external {\n        selfdestruct(payable(msg.sender));\n    }\n}\n`,
    },
    ['contracts/Token.sol:5:9'],
  ],
  [
    'a call of the builtin inside an imported unit, attributed to that unit',
    {
      'contracts/Hook.sol': `${pragma}import {Exit} from "./lib/Exit.sol";\ncontract Hook {\n    function close() external { Exit.leave(); }\n}\n`,
      'contracts/lib/Exit.sol': `${pragma}library Exit {\n    function leave() internal { selfdestruct(payable(address(0))); }\n}\n`,
    },
    ['contracts/lib/Exit.sol:4:33'],
  ],
  [
    'a call of the parenthesised builtin',
    { 'p.sol': `${pragma}contract P { function f() external { (selfdestruct)(payable(msg.sender)); } }\n` },
    ['p.sol:3:38'],
  ],
  [
    'two calls, sorted by unit, line and column',
    {
      'b.sol': `${pragma}contract B { function f() external { selfdestruct(payable(msg.sender)); } }\n`,
      'a.sol': `${pragma}contract A {\n function f() external { selfdestruct(payable(msg.sender)); }\n function g() external { selfdestruct(payable(tx.origin)); }\n}\n`,
    },
    ['a.sol:4:26', 'a.sol:5:26', 'b.sol:3:38'],
  ],
  [
    'the word in comments, NatSpec, a string, an event and a variable name',
    {
      'contracts/Words.sol': `${pragma}/// @notice Never calls selfdestruct(payable(owner)).\ncontract Words {\n    // selfdestruct(payable(msg.sender));\n    /* selfdestruct(payable(msg.sender)); */\n    event selfdestructAvoided(string why);\n    string public note = "selfdestruct(payable(msg.sender))";\n    uint256 public selfdestructCount;\n    function f() external { emit selfdestructAvoided("selfdestruct"); }\n}\n`,
    },
    [],
  ],
  [
    'a user function named selfdestruct that shadows the builtin',
    {
      'contracts/Shadow.sol': `${pragma}contract Shadow {\n    uint256 public closed;\n    function selfdestruct(address payable) internal { closed = 1; }\n    function close() external { selfdestruct(payable(msg.sender)); }\n}\n`,
    },
    [],
  ],
];

const run = async (sources: Record<string, string>) =>
  findSourceSelfdestructs(await solidityAstsIsolated(sources, solidityBuildSettings), sources).map(
    (c) => `${c.path}:${c.line}:${c.column}`,
  );

describe('findSourceSelfdestructs over solc ASTs', () => {
  it.each(cases)('%s', async (_name, sources, want) => {
    expect(await run(sources)).toEqual(want);
  });

  it('finds nothing in the devnet example project (the sources of spec/examples)', async () => {
    const dir = new URL('../../examples/example-launch/contracts/', import.meta.url);
    const sources = Object.fromEntries(
      readdirSync(dir).map((f) => [`contracts/${f}`, readFileSync(new URL(f, dir), 'utf8')]),
    );
    expect(Object.keys(sources).length).toBeGreaterThanOrEqual(3);
    expect(await run(sources)).toEqual([]);
  });

  it('rejects sources that do not analyse (an import outside the closed set)', async () => {
    await expect(
      solidityAstsIsolated({ 'a.sol': `${pragma}import "./missing.sol";\ncontract A {}\n` }, solidityBuildSettings),
    ).rejects.toThrow(/missing\.sol/);
  });
});
