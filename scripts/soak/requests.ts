/*
 * The soak's create requests: the example project packed once for the stack's chain deployment, then for every
 * create a distinct launch intent (a fresh nonce and fresh CREATE2 salts, every hash bound again), since a stored
 * launch's intent is never accepted a second time. A launch the driver takes on chain also needs its own hook
 * address: its hook salt is mined in a worker thread (hook-salt-worker.ts), off the event loop that times requests.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Hex } from 'viem';
import type { ChainDeploymentV1, CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';

/** The example project every spec example request was packed from. */
export const exampleProject = fileURLToPath(new URL('../../examples/example-launch', import.meta.url));

/** One create: the request and the exact bytes sent. */
export interface Intent {
  request: CustomLaunchCreateRequestV4;
  bytes: string;
}

const fresh32 = (): Hex => `0x${randomBytes(32).toString('hex')}`;

/** The example project packed for `chainDeployment` (the template every soak create varies). */
export function packTemplate(chainDeployment: ChainDeploymentV1): CustomLaunchCreateRequestV4 {
  return packLaunchProject(exampleProject, { chainDeployment }).request;
}

/**
 * A distinct intent of the template: a fresh nonce, fresh salts for the targets other than the hook, the hook's salt
 * `hookSalt` when given (else the template's, so its hook address is shared and it must never go on chain), every
 * hash recomputed.
 */
export function freshIntent(template: CustomLaunchCreateRequestV4, hookSalt?: Hex): Intent {
  const request = structuredClone(template);
  request.nonce = fresh32();
  for (const target of request.graphBundle.targets) {
    if (target.role !== 'hook') target.create2Salt = fresh32();
    else if (hookSalt) target.create2Salt = hookSalt;
  }
  const bound = bindRequestHashes(request);
  return { request: bound, bytes: JSON.stringify(bound) };
}

/**
 * Hook salts for the template, mined ahead in a worker thread and kept in a queue of up to `depth`; `take()` answers
 * one, or undefined when none is ready yet (the caller then sends something else).
 */
export function hookSaltSupply(template: CustomLaunchCreateRequestV4, depth = 4) {
  const hook = template.graphBundle.targets.find((t) => t.role === 'hook');
  if (!hook?.hookPermissions) throw new Error('the example project has no hook target');
  const { graphFactory, platformLaunchStampRouter } = template.chainDeployment.contracts;
  const worker = new Worker(new URL('./hook-salt-worker.mjs', import.meta.url), {
    workerData: {
      factory: graphFactory.address,
      router: platformLaunchStampRouter.address,
      runtimeCode: hook.runtimeBytecode,
      mask: hook.hookPermissions.mask,
    },
  });
  const ready: Hex[] = [];
  let pending = 0;
  const refill = () => {
    while (ready.length + pending < depth) {
      pending += 1;
      worker.postMessage('mine');
    }
  };
  worker.on('message', (salt: Hex) => {
    pending -= 1;
    ready.push(salt);
  });
  worker.on('error', (err) => console.error(`hook salt worker failed: ${err.message}`));
  refill();
  return {
    take(): Hex | undefined {
      const salt = ready.shift();
      refill();
      return salt;
    },
    stop: () => worker.terminate(),
  };
}
