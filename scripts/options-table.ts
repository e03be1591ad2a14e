// `npm run docs:options`: rewrites the "All options" table of conformance/README.md from
// conformance/src/model/options.ts (conformance/test/option-docs.test.ts fails while it is stale).
import fs from 'node:fs';
import path from 'node:path';
import { withOptionsTable } from '../conformance/src/cli/option-docs.js';

const file = path.join(import.meta.dirname, '..', 'conformance', 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = withOptionsTable(before);
fs.writeFileSync(file, after);
process.stdout.write(after === before ? 'options table: up to date\n' : 'options table: rewritten\n');
