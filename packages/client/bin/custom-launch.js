#!/usr/bin/env node
// The `custom-launch` bin of the package: the CLI compiled to plain JavaScript by scripts/build-client-package.ts.
import '../dist/cli.js';
