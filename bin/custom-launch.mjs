#!/usr/bin/env node
// The `custom-launch` package bin: loads the TypeScript CLI through tsx (a runtime dependency) and runs it.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
