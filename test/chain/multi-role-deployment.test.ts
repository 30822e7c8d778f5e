import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readMultiRoleDeployment } from '../../src/chain/multi-role-deployment.ts';
import { MultiRoleLaunchChain } from '../../src/chain/multi-role-launch-chain.ts';

const fixturePath = fileURLToPath(new URL('../fixtures/multi-role-deployment.json', import.meta.url));
const binding = {
  address: '0x0165878a594ca255338adfa4d48449f69242eb8f',
  runtimeCodeHash: `0x${'ab'.repeat(32)}`,
};
const good = {
  chainId: 4663,
  rpcUrl: 'http://127.0.0.1:1',
  permitAttester: '0xDDDBb9E877441Faf2181B61e88cf75C9cf881774',
  contracts: { poolManager: binding, permitAuthority: binding, graphFactory: binding, launchRouter: binding },
};
const withContract = (key: string, value: unknown) => ({ ...good, contracts: { ...good.contracts, [key]: value } });

describe('the shared-lane deployment document', () => {
  it('reads the committed fixture', () => {
    const fixture = readMultiRoleDeployment(fixturePath);
    expect(fixture.chainId).toBe(4663);
    expect(Object.keys(fixture.contracts)).toEqual(['poolManager', 'permitAuthority', 'graphFactory', 'launchRouter']);
  });

  const cases: Array<[string, unknown, string | null]> = [
    ['the good document', good, null],
    ['other fields (the devnet operator)', { ...good, operator: binding.address }, null],
    [
      'an uppercase hex address',
      withContract('launchRouter', { ...binding, address: binding.address.toUpperCase().replace('0X', '0x') }),
      null,
    ],
    ['not an object', [good], 'the document must be an object'],
    ['chain id 1', { ...good, chainId: 1 }, 'chainId must be 4663'],
    ['chain id as a string', { ...good, chainId: '4663' }, 'chainId must be 4663'],
    ['no rpcUrl', { ...good, rpcUrl: undefined }, 'rpcUrl must be a non-empty string'],
    ['an empty rpcUrl', { ...good, rpcUrl: '' }, 'rpcUrl must be a non-empty string'],
    [
      'a 19-byte permit attester',
      { ...good, permitAttester: `0x${'dd'.repeat(19)}` },
      'permitAttester must be 0x and 40',
    ],
    [
      'a 21-byte permit attester',
      { ...good, permitAttester: `0x${'dd'.repeat(21)}` },
      'permitAttester must be 0x and 40',
    ],
    ['no contracts', { ...good, contracts: undefined }, 'contracts must be an object'],
    ['no launch router', withContract('launchRouter', undefined), 'contracts.launchRouter must be an object'],
    ['no graph factory', withContract('graphFactory', undefined), 'contracts.graphFactory must be an object'],
    ['no permit authority', withContract('permitAuthority', undefined), 'contracts.permitAuthority must be an object'],
    ['no pool manager', withContract('poolManager', undefined), 'contracts.poolManager must be an object'],
    [
      'a short router address',
      withContract('launchRouter', { ...binding, address: '0x12' }),
      'contracts.launchRouter.address',
    ],
    [
      'an address without 0x',
      withContract('graphFactory', { ...binding, address: binding.address.slice(2) }),
      'contracts.graphFactory.address',
    ],
    [
      'a non-hex address',
      withContract('poolManager', { ...binding, address: `0x${'zz'.repeat(20)}` }),
      'contracts.poolManager.address',
    ],
    [
      'a 31-byte code hash',
      withContract('permitAuthority', { ...binding, runtimeCodeHash: `0x${'ab'.repeat(31)}` }),
      'contracts.permitAuthority.runtimeCodeHash',
    ],
    [
      'a 33-byte code hash',
      withContract('launchRouter', { ...binding, runtimeCodeHash: `0x${'ab'.repeat(33)}` }),
      'contracts.launchRouter.runtimeCodeHash',
    ],
  ];
  it.each(cases)('%s', (name, given, want) => {
    const dir = mkdtempSync(join(tmpdir(), 'multi-role-deployment-'));
    const path = join(dir, 'multi-role-deployment.json');
    writeFileSync(path, JSON.stringify(given));
    if (want === null) {
      const { operator: _operator, ...fields } = given as typeof good & { operator?: string };
      expect(readMultiRoleDeployment(path), name).toEqual(fields);
    } else {
      expect(() => readMultiRoleDeployment(path), name).toThrow(want);
      expect(() => readMultiRoleDeployment(path), name).toThrow(`multi-role deployment ${path}:`);
    }
  });

  it('refuses a file that is not JSON, or missing, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'multi-role-deployment-'));
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"chainId": 4663,');
    expect(() => readMultiRoleDeployment(path)).toThrow(`multi-role deployment ${path}: cannot be read as JSON`);
    expect(() => readMultiRoleDeployment(join(dir, 'absent.json'))).toThrow('cannot be read as JSON');
  });

  it.each([
    ['one URL', ['http://127.0.0.1:1'], 'the shared-lane chain needs two CHAIN_4663_RPC_URLS'],
    ['two URLs', ['http://127.0.0.1:1', 'http://127.0.0.1:2'], null],
    ['three URLs', ['http://127.0.0.1:1', 'http://127.0.0.1:2', 'http://127.0.0.1:3'], 'needs two'],
  ])('MultiRoleLaunchChain on %s', (_name, urls, want) => {
    const deployment = readMultiRoleDeployment(fixturePath);
    if (want === null)
      expect(new MultiRoleLaunchChain(urls, deployment).router).toBe(deployment.contracts.launchRouter.address);
    else expect(() => new MultiRoleLaunchChain(urls, deployment)).toThrow(want);
  });
});
