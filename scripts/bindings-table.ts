// `npm run docs:bindings`: rewrites the bindings table of conformance/README.md from
// conformance/src/model/bindings.ts (conformance/test/init.test.ts fails while it is stale).
import fs from 'node:fs';
import path from 'node:path';
import { withBindingsTable } from '../conformance/src/cli/binding-docs.js';

const file = path.join(import.meta.dirname, '..', 'conformance', 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = withBindingsTable(before);
fs.writeFileSync(file, after);
process.stdout.write(after === before ? 'bindings table: up to date\n' : 'bindings table: rewritten\n');
