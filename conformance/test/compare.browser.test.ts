// compare.html in a real headless Chromium (Debian's `chromium`, driven by playwright-core), opened
// from disk with the network blocked, with a thousand-row matrix of four runs: every row is there,
// the filters (only differences, only failures, one area) show exactly the rows the comparison
// model marks, causes are visible in the cells, nothing is fetched and no script error happens.
// Without Chromium it fails with how to install it when CI is set; elsewhere it skips with a loud
// warning (as report-html.browser.test.ts). Screenshot: /tmp/conformance-compare-1000.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompareHtml } from '../src/compare/html.js';
import type { LoadedRun } from '../src/compare/load.js';
import { compareRuns, type Comparison, type Row } from '../src/compare/model.js';
import type { RequirementReport, RunResults } from '../src/report/results.js';
import { chromiumAvailable, INSTALL_HINT, launchOffline, type OfflineBrowser } from './helpers/browser.js';
import { fakeRun } from './helpers/fake-run.js';

const FORCED_SKIP = process.env.CONFORMANCE_SKIP_BROWSER === '1';
const MISSING = !FORCED_SKIP && !process.env.CI && !chromiumAvailable();
const SKIP = FORCED_SKIP || MISSING;
if (FORCED_SKIP)
  console.warn('compare.browser.test: SKIPPED (CONFORMANCE_SKIP_BROWSER=1): compare.html is not checked in a browser');
if (MISSING)
  console.warn(
    `WARNING compare.browser.test: SKIPPED: Chromium is not installed, so compare.html is not checked in a browser. ${INSTALL_HINT}`,
  );

const ROWS = 1000;

/** A run of 1000 requirements: the catalogue's, again and again under new IDs (DOM-004 -> DOM-1004, ...). */
function thousand(
  base: RunResults,
  label: string,
  day: number,
  change: (q: RequirementReport, i: number) => void,
): LoadedRun {
  const reqs: RequirementReport[] = [];
  for (let k = 1; reqs.length < ROWS; k++)
    for (const q of base.requirements) {
      if (reqs.length === ROWS) break;
      const [area, num] = q.id.split('-');
      reqs.push(structuredClone({ ...q, id: `${area}-${k}${num}` }));
    }
  reqs.forEach(change);
  return {
    source: `/runs/${label}/results.json`,
    results: {
      ...base,
      targetLabel: label,
      startedAt: new Date(Date.UTC(2026, 10, day)).toISOString(),
      requirements: reqs,
    },
  };
}

describe.skipIf(SKIP)('compare.html in headless Chromium, a thousand rows', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-compare-html-'));
  const file = path.join(tmp, 'compare.html');
  let browser: OfflineBrowser | undefined;
  let cmp: Comparison;
  let rows: Row[];

  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(INSTALL_HINT);
    const base = fakeRun({ profile: 'all' });
    const runs = [
      thousand(base, 'Vendor A 1.0', 1, () => {}),
      thousand(base, 'Vendor A 1.1', 2, (q, i) => {
        if (i % 97 === 3 && q.result === 'passed') q.result = 'failed';
      }),
      thousand(base, 'Vendor B 2.0', 3, (q, i) => {
        if (i % 61 === 5 && q.result === 'passed') {
          q.result = 'not-applicable';
          q.tests = q.tests.map((t) => ({
            ...t,
            result: 'not-applicable',
            reason: 'needs provider-state protocol 1.1.0',
            needsProtocol: { since: '1.1.0', what: 'value `scheduleKey` of `a proposal`' },
          }));
        }
      }),
      thousand(base, 'Vendor C 0.9', 4, (q, i) => {
        if (i % 89 === 7 && q.result === 'passed') {
          q.result = 'blocked';
          q.blockedBy = ['DOM-004'];
        }
      }),
    ];
    cmp = compareRuns(runs);
    rows = cmp.areas.flatMap((a) => a.rows);
    fs.writeFileSync(file, renderCompareHtml(cmp));
    browser = await launchOffline();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('holds every row; the filters show exactly the rows the model marks', async () => {
    expect(rows).toHaveLength(ROWS);
    const differs = rows.filter((r) => r.differs);
    const failing = rows.filter((r) => r.failing);
    expect(differs.length).toBeGreaterThan(20);
    expect(failing.length).toBeGreaterThan(10);
    expect(failing.length).toBeLessThan(differs.length);

    const page = await browser!.open(file);
    const shown = () => page.locator('#matrix tbody tr[data-area]:visible').count();
    const count = () => page.locator('#f-count').innerText();
    expect(await count()).toBe(`${ROWS} of ${ROWS} requirements shown`);
    expect(await shown()).toBe(ROWS);
    // the first screen: each run's passed / judged / selected
    const summary = await page.locator('#runs tbody tr').allInnerTexts();
    expect(summary).toHaveLength(4);
    cmp.runs.forEach((r, i) => {
      expect(summary[i]).toContain(r.implementation);
      expect(summary[i]).toContain(`${r.judged.passed}\t${r.judged.judged}\t${r.judged.selected}`);
    });

    await page.check('#f-diff');
    expect(await count()).toBe(`${differs.length} of ${ROWS} requirements shown`);
    const visibleIds = await page.locator('#matrix tbody tr[data-area]:visible .id').allInnerTexts();
    expect(visibleIds).toEqual(differs.map((r) => r.id));
    // causes are visible in the cells, not only in a tooltip
    const text = await page.locator('#matrix').innerText();
    expect(text).toContain('by DOM-004');
    expect(text).toContain('protocol');
    await page.screenshot({ path: '/tmp/conformance-compare-1000.png' });

    await page.check('#f-fail');
    expect(await shown()).toBe(failing.filter((r) => r.differs).length);
    await page.uncheck('#f-diff');
    expect(await shown()).toBe(failing.length);

    const area = cmp.areas[2];
    await page.uncheck('#f-fail');
    await page.selectOption('#f-area', area.area);
    expect(await shown()).toBe(area.rows.length);
    expect(await page.locator('#matrix tbody tr.area:visible').allInnerTexts()).toEqual([area.area]);
    await page.selectOption('#f-area', '');
    expect(await shown()).toBe(ROWS);
    await page.close();
    expect(browser!.blocked).toEqual([]);
    expect(browser!.errors).toEqual([]);
  }, 60_000);
});
