// The report files of a run: results.json, junit.xml, badge.svg and report.html in one directory.
import fs from 'node:fs';
import path from 'node:path';
import { renderBadge } from './badge.js';
import { renderHtml } from './html.js';
import { toJUnit } from './junit.js';
import type { RunResults } from './results.js';
import { disputesMarkdown } from './dispute-text.js';

/** The files every run writes into its report directory. */
export const REPORT_FILES = ['report.html', 'results.json', 'junit.xml', 'badge.svg'] as const;

export function writeReports(r: RunResults, dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(r, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'junit.xml'), toJUnit(r));
  fs.writeFileSync(path.join(dir, 'badge.svg'), renderBadge(r));
  fs.writeFileSync(path.join(dir, 'report.html'), renderHtml(r));
  // only a run with disputed failures: each one's issue text, ready to paste
  const disputes = disputesMarkdown(r);
  if (disputes) fs.writeFileSync(path.join(dir, 'disputes.md'), disputes);
}
