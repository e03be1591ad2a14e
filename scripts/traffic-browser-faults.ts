// The browser sample of reports/traffic.md (issue 34): a Chromium session of the interface
// (Playwright's recordHar, conformance/test/helpers/traffic-page.ts) recorded against the reference
// and through the fault proxy with each fault of BROWSER_FAULT_SAMPLE, each HAR verified alone.
// Writes <out>/traffic-browser.json; scripts/traffic-faults.ts renders it in traffic.md.
//   npx tsx scripts/traffic-browser-faults.ts [--out reports]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startReferenceProcess } from '../conformance/src/targets/reference-process.js';
import { BROWSER_FAULT_SAMPLE, recordBrowserFault } from '../conformance/test/helpers/traffic-page.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'reports' }, help: { type: 'boolean' } } });
if (values.help) {
  process.stdout.write(
    'usage: npx tsx scripts/traffic-browser-faults.ts [--out reports]   (needs /usr/bin/chromium)\n',
  );
  process.exit(0);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'traffic-browser-'));
const ref = await startReferenceProcess({ args: ['--seed', 'demo', '--log-level', 'warn'] });
const outcomes = [];
try {
  for (const name of ['reference', ...BROWSER_FAULT_SAMPLE]) {
    const o = await recordBrowserFault(ref.url, name, dir);
    outcomes.push(o);
    process.stdout.write(`${name}: ${o.entries} entries, verify-traffic exit ${o.exitCode} ${o.failed.join(',')}\n`);
  }
} finally {
  await ref.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
fs.mkdirSync(values.out!, { recursive: true });
fs.writeFileSync(
  path.join(values.out!, 'traffic-browser.json'),
  `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), outcomes }, null, 2)}\n`,
);
