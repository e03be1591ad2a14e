// report.html in a real headless Chromium (Debian's `chromium`, driven by playwright-core), opened
// from disk with the network blocked: (a) a passing run's report made by the reporter code, (b) the
// report of a real failing run (the CLI against the reference server behind a breaking proxy, whose
// responses carry markup). Without Chromium it fails with how to install it when CI is set (CI
// installs Chromium: scripts/ci/ensure-chromium.sh); elsewhere it skips with a loud warning, like
// the container fallback of the conformance run. CONFORMANCE_SKIP_BROWSER=1 always skips.
// Screenshots go to /tmp/conformance-report-*.png.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { renderHtml } from '../src/report/html.js';
import { renderBadge } from '../src/report/badge.js';
import { toJUnit } from '../src/report/junit.js';
import { REPORT_FILES } from '../src/report/write-reports.js';
import { chromiumAvailable, INSTALL_HINT, launchOffline, type OfflineBrowser } from './helpers/browser.js';
import { startBrokenReference, type Running } from './helpers/broken-reference.js';
import { ONE_WORKER, runCli } from './helpers/cli.js';
import { fakeRun } from './helpers/fake-run.js';

const FORCED_SKIP = process.env.CONFORMANCE_SKIP_BROWSER === '1';
const MISSING = !FORCED_SKIP && !process.env.CI && !chromiumAvailable();
const SKIP = FORCED_SKIP || MISSING;
if (FORCED_SKIP)
  console.warn(
    'report-html.browser.test: SKIPPED (CONFORMANCE_SKIP_BROWSER=1): report.html is not checked in a browser',
  );
if (MISSING)
  console.warn(
    `WARNING report-html.browser.test: SKIPPED: Chromium is not installed, so report.html is not checked in a browser. ${INSTALL_HINT}`,
  );

describe.skipIf(SKIP)('report.html in headless Chromium', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-html-'));
  const passDir = path.join(tmp, 'pass');
  const failDir = path.join(tmp, 'fail');
  let browser: OfflineBrowser | undefined;
  let broken: Running | undefined;
  let failRun: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(INSTALL_HINT);
    // (a) a passing run, from the reporter code
    fs.mkdirSync(passDir, { recursive: true });
    const pass = fakeRun({ profile: 'all' });
    fs.writeFileSync(path.join(passDir, 'report.html'), renderHtml(pass));
    fs.writeFileSync(path.join(passDir, 'badge.svg'), renderBadge(pass));
    // (b) a real failing run
    broken = await startBrokenReference();
    failRun = await runCli(
      [
        'run',
        '--base-url',
        broken.baseUrl,
        '--requirements',
        'DOM-',
        '--profile',
        'all',
        '--report-dir',
        failDir,
        '--target-label',
        'Broken <b>vendor</b> & co',
      ],
      ONE_WORKER,
    );
    browser = await launchOffline();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await broken?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function open(file: string): Promise<Page> {
    return browser!.open(file);
  }

  const visibleText = (page: Page, sel: string) => page.locator(sel).first().innerText();

  it('the failing run wrote all four files and exited 1', () => {
    expect(failRun.code, failRun.stdout + failRun.stderr).toBe(1);
    for (const f of REPORT_FILES) expect(fs.existsSync(path.join(failDir, f)), f).toBe(true);
  });

  it('(a) a passing report: the verdict, the sections, no failures, nothing fetched', async () => {
    const page = await open(path.join(passDir, 'report.html'));
    expect(await visibleText(page, '.verdict-word')).toBe('PASS');
    expect(await page.locator('header.top').innerText()).toMatch(/All \d+ requirements with a verdict passed/);
    const sections = await page.locator('section.sec h2').allInnerTexts();
    expect(sections).toContain('§4.2 Generic record access\nin §4 Endpoints'.replace('\n', ' '));
    expect(sections.some((s) => s.startsWith('§5 Authentication'))).toBe(true);
    expect(await page.locator('.fail-index').count()).toBe(0);
    expect(await page.locator('#toolbar').isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/conformance-report-pass.png' });
    await page.close();
    expect(browser!.blocked).toEqual([]);
    expect(browser!.errors).toEqual([]);
  });

  it('(b) a failing report: verdict, failure with request, response, expectation and curl; vendor markup stays text', async () => {
    const page = await open(path.join(failDir, 'report.html'));
    expect(await visibleText(page, '.verdict-word')).toBe('FAIL');
    expect(await visibleText(page, 'header.top h1')).toBe('Broken <b>vendor</b> & co');
    expect(await page.locator('.fail-index').innerText()).toContain('DOM-004');
    const dom4 = page.locator('#req-DOM-004');
    expect(await dom4.getAttribute('open')).not.toBeNull();
    const text = await dom4.innerText();
    expect(text).toContain('Expectation that failed');
    expect(text).toContain('DomainID of Incident: expected 12 to be 11');
    expect(text).toMatch(/at conformance\/suite\/domains\.test\.ts:\d+:\d+/);
    expect(text).toContain('GET http://127.0.0.1:');
    expect(text).toContain('HTTP 200');
    expect(text).toMatch(/The core domains have the fixed IDs/); // the statement
    const curl = await dom4.locator('pre.curl').first().innerText();
    expect(curl).toMatch(/^(copy)?\s*curl -sS -i/);
    expect(curl).toContain(`-H 'Token: '"$TOKEN"`);
    expect(curl).toContain('/api/Domains');
    // the vendor's markup is shown as text, never run or fetched
    const dom7 = await page.locator('#req-DOM-007').innerText();
    expect(dom7).toContain('<script>window.__xss=1</script>');
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('main img, main script, main iframe, main link').count()).toBe(0);
    await page.screenshot({ path: '/tmp/conformance-report-fail.png' });
    await dom4.screenshot({ path: '/tmp/conformance-report-fail-dom004.png' });
    await page.close();
    expect(browser!.blocked).toEqual([]);
    expect(browser!.errors).toEqual([]);
  });

  it('the "failures only" filter hides passing requirements and sections, and "all" brings them back', async () => {
    const page = await open(path.join(failDir, 'report.html'));
    const passed = page.locator('#req-DOM-001');
    const failed = page.locator('#req-DOM-004');
    expect(await passed.isVisible()).toBe(true);
    await page.getByRole('button', { name: /Failures only/ }).click();
    expect(await page.getByRole('button', { name: /Failures only/ }).getAttribute('aria-pressed')).toBe('true');
    expect(await passed.isVisible()).toBe(false);
    expect(await failed.isVisible()).toBe(true);
    expect(await page.locator('section.sec:not(.has-failing)').first().isVisible()).toBe(false);
    await page.screenshot({ path: '/tmp/conformance-report-fail-filtered.png' });
    await page.getByRole('button', { name: /All requirements/ }).click();
    expect(await passed.isVisible()).toBe(true);
    // the text filter
    await page.locator('#search').fill('DOM-007');
    expect(await page.locator('#req-DOM-007').isVisible()).toBe(true);
    expect(await failed.isVisible()).toBe(false);
    await page.close();
  });

  it('reads without JS: everything is there, failures open, no dead controls', async () => {
    const html = fs.readFileSync(path.join(failDir, 'report.html'), 'utf8').replace(/<script>[\s\S]*?<\/script>/, '');
    const file = path.join(failDir, 'report-nojs.html');
    fs.writeFileSync(file, html);
    const page = await open(file);
    expect(await page.locator('#toolbar').isVisible()).toBe(false);
    expect(await visibleText(page, '.verdict-word')).toBe('FAIL');
    expect(await page.locator('#req-DOM-004 pre.curl').first().isVisible()).toBe(true);
    expect(await page.locator('#req-DOM-001').isVisible()).toBe(true);
    await page.close();
  });

  it('junit.xml is well-formed XML and badge.svg renders', async () => {
    const page = await open(path.join(failDir, 'badge.svg'));
    expect(await page.evaluate(() => document.documentElement.tagName)).toBe('svg');
    expect(await page.evaluate(() => document.documentElement.getAttribute('aria-label'))).toMatch(
      /^conformance: core \d+\/\d+$/,
    );
    const parse = (x: string) =>
      page.evaluate((text) => {
        const d = new DOMParser().parseFromString(text, 'application/xml');
        return {
          errors: d.getElementsByTagName('parsererror').length,
          cases: d.getElementsByTagName('testcase').length,
          failures: d.getElementsByTagName('failure').length,
        };
      }, x);
    const parsed = await parse(fs.readFileSync(path.join(failDir, 'junit.xml'), 'utf8'));
    expect(parsed.errors).toBe(0);
    expect(parsed.cases).toBeGreaterThan(5);
    expect(parsed.failures).toBeGreaterThanOrEqual(2);
    // vendor text with characters XML does not allow, markup and quotes stays well-formed
    const nasty = await parse(toJUnit(fakeRun({ fail: ['LINK-001'], untested: ['FILE-001'] })));
    expect(nasty.errors).toBe(0);
    expect(nasty.failures).toBe(2);
    await page.close();
    expect(browser!.blocked).toEqual([]);
  });
});
