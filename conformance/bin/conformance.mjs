#!/usr/bin/env node
// The `conformance` command: runs conformance/src/cli/main.ts through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const code = await main(process.argv);
// testcontainers and vitest may keep handles open; the run is over.
process.exit(code);
