// Worker threads do not inherit the tsx loader: register it here, then run the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./hook-salt-worker.ts');
