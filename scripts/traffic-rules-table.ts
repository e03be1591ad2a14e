// `npm run docs:traffic`: rewrites the table of traffic rules in conformance/README.md from
// conformance/src/traffic/ (conformance/test/traffic-rules.test.ts fails while it is stale).
import fs from 'node:fs';
import path from 'node:path';
import { withTrafficRulesTable } from '../conformance/src/traffic/docs.js';

const file = path.join(import.meta.dirname, '..', 'conformance', 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = withTrafficRulesTable(before);
fs.writeFileSync(file, after);
process.stdout.write(after === before ? 'traffic rules table: up to date\n' : 'traffic rules table: rewritten\n');
