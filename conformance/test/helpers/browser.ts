// Headless Chromium for the report tests (Debian's `chromium` driven by playwright-core): a fresh
// profile, no network (every request that is not file:// is aborted and recorded).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

const CHROMIUM = process.env.CONFORMANCE_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const INSTALL_HINT =
  `Chromium is not installed at ${CHROMIUM}. The report.html browser test needs it: ` +
  'run `apt-get update && apt-get install -y chromium` (Debian/Ubuntu), or set CONFORMANCE_CHROMIUM to a Chromium binary, ' +
  'or set CONFORMANCE_SKIP_BROWSER=1 to skip this test.';

export function chromiumAvailable(): boolean {
  try {
    fs.accessSync(CHROMIUM, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface OfflineBrowser {
  context: BrowserContext;
  /** Every request that was not file:// (each was aborted). */
  blocked: string[];
  /** Console errors and page errors. */
  errors: string[];
  open(file: string): Promise<Page>;
  close(): Promise<void>;
}

export async function launchOffline(): Promise<OfflineBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
    offline: true,
  });
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('file:') && !url.startsWith('data:') && !blocked.includes(url)) blocked.push(url);
  });
  return {
    context,
    blocked,
    errors,
    async open(file: string) {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`file://${file}`);
      return page;
    },
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
