// `conformance verify-traffic FILE...`: judge recorded traffic (HAR 1.2) against the catalogue's
// rules, with no state endpoint; writes the report set of a run and exits as a run does.
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError } from '../spec/catalogue.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../report/results.js';
import { summaryText } from '../report/summary.js';
import { writeReports } from '../report/write-reports.js';
import { verifyTrafficFiles } from '../traffic/verify-files.js';
import { log } from './log.js';

interface Opts {
  reportDir: string;
  config?: string;
  baseUrl?: string;
  keepCredentials?: boolean;
  keepContents?: boolean;
  targetLabel?: string;
}

export function registerVerifyTraffic(program: Command, onExit: (code: number) => void): void {
  program
    .command('verify-traffic')
    .description(
      'judge recorded traffic (HAR 1.2 files from browser developer tools, Playwright, mitmproxy, `conformance record`) against the rules of the catalogue that exchanges decide; no state endpoint needed. Writes report.html, results.json, junit.xml and badge.svg; exit 0 nothing failed, 1 a rule failed, 2 usage error or no exchange of the interface, 3 internal error',
    )
    .argument('<file...>', 'HAR files (or Playwright .har.zip files), judged together in recorded order')
    .option('--report-dir <dir>', 'where the reports go', 'reports/traffic')
    .option('--config <file>', 'config file whose `bindings:` name the token header and query parameters (as for run)')
    .option(
      '--base-url <url>',
      "the implementation's origin and path prefix before /api (default: the config's baseUrl, else the origin that answers the interface's own paths); other entries are not judged",
    )
    .option('--keep-credentials', 'do not redact tokens, cookies and Authorization in the reports (default: redacted)')
    .option('--keep-contents', 'keep file Contents whole in the reports (default: shortened)')
    .option('--target-label <text>', 'a name for the recorded deployment shown in the reports')
    .action(async (files: string[], opts: Opts) => onExit(await verifyCommand(files, opts)));
}

async function verifyCommand(files: string[], opts: Opts): Promise<number> {
  try {
    const v = verifyTrafficFiles(files, opts);
    const dir = path.resolve(opts.reportDir);
    writeReports(v.results, dir);
    const out = [
      summaryText(v.results, { reportDir: dir }),
      `conformance: ${v.exchanges} exchange(s) of the interface in ${v.entries} HAR entries; ${v.observed.observed} of ${v.observed.testable} testable core requirements observed`,
      ...(v.toRecord.length ? ['to observe more, record:', ...v.toRecord.map((t) => `  - ${t}`)] : []),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    if (v.exchanges === 0) log('conformance: error: the HAR file(s) hold no exchange of the interface');
    return v.results.exitCode;
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError || e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
}
