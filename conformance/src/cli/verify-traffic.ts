// `conformance verify-traffic FILE...`: judge recorded traffic (HAR 1.2) against the catalogue's
// rules, with no state endpoint; writes the report set of a run and exits as a run does.
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { applyStrength, parseMinJudged, strengthLine } from '../report/strength.js';
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
  minObserved?: string;
}

export function registerVerifyTraffic(program: Command, onExit: (code: number) => void): void {
  program
    .command('verify-traffic')
    .description(
      'judge recorded traffic (HAR 1.2 files from browser developer tools, Playwright, mitmproxy, `conformance record`) against the rules of the catalogue that exchanges decide; no state endpoint needed. Writes report.html, results.json, junit.xml and badge.svg; exit 0 nothing failed, 1 a rule failed (or fewer requirements observed than --min-observed), 2 usage error or no exchange of the interface, 3 internal error, 4 inconclusive: no requirement observed (e.g. a HAR recorded without bodies)',
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
    .option(
      '--min-observed <n|n%>',
      'fail (exit 1) when fewer of the testable core requirements were observed (passed or failed), e.g. 40 or 30%; without it only a recording that observed none is refused (exit 4, inconclusive) [CONFORMANCE_MIN_OBSERVED]',
    )
    .action(async (files: string[], opts: Opts) => onExit(await verifyCommand(files, opts)));
}

async function verifyCommand(files: string[], opts: Opts): Promise<number> {
  try {
    const minRaw = opts.minObserved ?? (process.env.CONFORMANCE_MIN_OBSERVED || undefined);
    const minObserved = minRaw === undefined ? undefined : parseMinJudged(minRaw);
    if (minRaw !== undefined && !minObserved)
      throw new UsageError(
        `--min-observed must be a count (e.g. 40) or a percentage up to 100% (e.g. 30%) (got '${minRaw}')`,
      );
    const v = verifyTrafficFiles(files, opts);
    if (minObserved) v.results = applyStrength(v.results, { minJudged: minObserved }, 'observed');
    const dir = path.resolve(opts.reportDir);
    writeReports(v.results, dir);
    const out = [
      summaryText(v.results, { reportDir: dir }),
      `conformance: ${v.exchanges} exchange(s) of the interface in ${v.entries} HAR entries; ${v.observed.observed} of ${v.observed.testable} testable core requirements observed`,
      ...(v.results.strength ? [`conformance: observed: ${strengthLine(v.results.strength, 'observed')}`] : []),
      ...(v.results.exitCode === EXIT.inconclusive
        ? [
            'conformance: INCONCLUSIVE (exit 4): no requirement was observed; a HAR recorded without bodies (Playwright content: omit or attach) shows no evidence either way: record with bodies embedded',
          ]
        : []),
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
