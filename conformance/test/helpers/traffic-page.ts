// A page that calls the reference server from JavaScript, for the HAR files written by a browser:
// the page is served at the server's own origin through a Playwright route (the reference sends no
// CORS headers), and its script authenticates and calls the interface with fetch.
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const CHROMIUM = process.env.CONFORMANCE_CHROMIUM ?? '/usr/bin/chromium';

const SCRIPT = `
async function calls() {
  const auth = await fetch('/Authentication/Authenticate', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Account: 'demo', User: 'admin', Password: 'admin', ClientName: 'browser' }),
  }).then((r) => r.json());
  const token = auth.Token ?? auth.token;
  const h = { Token: token, accept: 'application/json' };
  const get = (p) => fetch(p, { headers: h }).then((r) => r.text());
  await get('/api/Domains');
  await get('/api/Claim/Query?columns=ClaimNumber,ClaimNumber%20as%20Number&take=3');
  const files = JSON.parse(await get('/api/File/Query?columns=FileID,FileName,MimeType,FileSize,EntryDate&take=5'));
  const id = files.List[0].FileID;
  await get('/api/File/' + id + '?columns=FileID,FileSize,Contents');
  await get('/api/Claim/Query?columns=ClaimNumber&take=101');
  document.title = 'done';
}
calls().catch((e) => (document.title = 'error: ' + e));
`;

/** Serves the page at `base` in this context. */
async function servePage(context: BrowserContext, base: string): Promise<void> {
  await context.route(`${base}/traffic-page.html`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><title>calling</title><script>${SCRIPT}</script>`,
    }),
  );
}

/** Opens the page at `base` (on `page`, default a new one) and waits until its calls are done. */
export async function callFromPage(context: BrowserContext, base: string, given?: Page): Promise<Page> {
  await servePage(context, base);
  const page = given ?? (await context.newPage());
  await page.goto(`${base}/traffic-page.html`);
  await page.waitForFunction(() => document.title !== 'calling', undefined, { timeout: 30_000 });
  const title = await page.title();
  if (title !== 'done') throw new Error(`the page's calls failed: ${title}`);
  return page;
}

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** Faults of the catalogue that change an exchange of the page's session (the browser sample of reports/traffic.md). */
export const BROWSER_FAULT_SAMPLE = [
  'column-alias-ignored',
  'incident-domain-id-renumbered',
  'entry-date-with-zone',
  'contents-not-base64',
  'file-size-of-base64',
] as const;

export interface BrowserFaultOutcome {
  name: string;
  requirements: string[];
  /** Entries of the recorded HAR, and the verification's exit code and failed requirements. */
  entries: number;
  exitCode: number;
  failed: string[];
}

/**
 * The page's session recorded by Chromium (Playwright's recordHar, bodies embedded) through the
 * fault proxy in front of `upstream` with one fault of the catalogue (none: `reference`), and
 * verified by verifyTrafficFiles (what `verify-traffic` runs). In `shared` (a browser the caller
 * launched and closes) when given: each recording still has a context of its own (its own HAR,
 * cookies and cache), and one launch of Chromium instead of one per fault saves ~3 CPU-s each.
 */
export async function recordBrowserFault(
  upstream: string,
  name: string,
  dir: string,
  shared?: Browser,
): Promise<BrowserFaultOutcome> {
  const { FAULTS } = await import('../../faults/catalogue/index.js');
  const { startFaultProxy } = await import('../../faults/proxy.js');
  const { verifyTrafficFiles } = await import('../../src/traffic/verify-files.js');
  const fault = FAULTS.find((f) => f.name === name);
  if (name !== 'reference' && !fault) throw new Error(`no fault ${name} in the catalogue`);
  const proxy = await startFaultProxy({
    upstream,
    fault: fault ?? {
      name: 'reference',
      area: 'GEN',
      description: 'no fault',
      requirements: [],
      rewrite: (req, _ctx, next) => next(req),
    },
    log: () => undefined,
  });
  const har = path.join(dir, `${name}.har`);
  const browser = shared ?? (await launchChromium());
  try {
    const context = await browser.newContext({ recordHar: { path: har, content: 'embed' } });
    await callFromPage(context, proxy.url);
    await context.close();
  } finally {
    if (!shared) await browser.close();
    await proxy.close();
  }
  const v = verifyTrafficFiles([har]);
  return {
    name,
    requirements: fault?.requirements ?? [],
    entries: v.entries,
    exitCode: v.results.exitCode,
    failed: v.results.requirements.filter((q) => q.result === 'failed').map((q) => q.id),
  };
}
