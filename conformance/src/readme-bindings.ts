// Keeps the binding table of conformance/README.md section 4 equal to bindings.ts (the one source).
//   npx tsx conformance/src/readme-bindings.ts      rewrites the table between the markers
// conformance/test/bindings.test.ts fails when the README's table has drifted.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bindingsTable } from './bindings.js';
import { ROOT } from './paths.js';

export const README = path.join(ROOT, 'conformance', 'README.md');
const START = '<!-- bindings-table: generated from conformance/src/bindings.ts; do not edit -->';
const END = '<!-- bindings-table: end -->';

/** The README text with the generated table between the markers (the markers must be there). */
export function withBindingsTable(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`conformance/README.md lacks the markers ${START} ... ${END}`);
  return `${readme.slice(0, a + START.length)}\n${bindingsTable()}\n${readme.slice(b)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const before = fs.readFileSync(README, 'utf8');
  const after = withBindingsTable(before);
  if (after !== before) fs.writeFileSync(README, after);
  process.stdout.write(after === before ? 'README binding table up to date\n' : 'README binding table rewritten\n');
}
