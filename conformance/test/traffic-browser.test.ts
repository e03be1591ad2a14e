// HAR files the project did not write itself: one written by Playwright's recordHar, one built
// from Chromium's own DevTools protocol Network events by chrome-har (sitespeed.io), each of a page
// that calls the reference server from JavaScript; and one written by `conformance record` in front
// of the reference. Each parses and verifies with 0 failed, and no report holds the token.
// Needs Debian's Chromium at /usr/bin/chromium (CI installs it: scripts/ci/ensure-chromium.sh);
// without it the browser tests skip with the reason.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harFromMessages } from 'chrome-har';
import { startReferenceProcess, type ReferenceProcess } from '../src/targets/reference-process.js';
import { ROOT } from '../src/paths.js';
import { startRecordingProxy } from '../src/traffic/recording-proxy.js';
import type { RunResults } from '../src/report/results.js';
import { runCli } from './helpers/cli.js';
import {
  BROWSER_FAULT_SAMPLE,
  CHROMIUM,
  callFromPage,
  launchChromium,
  recordBrowserFault,
} from './helpers/traffic-page.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-traffic-browser-'));
// CI installs Chromium: there a missing one fails the tests instead of skipping them;
// CONFORMANCE_SKIP_BROWSER=1 skips them on purpose (as the report.html browser test)
const skipBrowser = process.env.CONFORMANCE_SKIP_BROWSER === '1' || (!fs.existsSync(CHROMIUM) && !process.env.CI);
let ref: ReferenceProcess;

beforeAll(async () => {
  ref = await startReferenceProcess({ args: ['--seed', 'demo'] });
}, 90_000);
afterAll(async () => {
  await ref?.stop();
});

/** verify-traffic on `har`: the results, and every report file's text. */
async function verify(
  har: string,
  name: string,
): Promise<{ r: RunResults; code: number | null; stdout: string; texts: string }> {
  const dir = path.join(tmp, name);
  const res = await runCli(['verify-traffic', har, '--report-dir', dir]);
  const r = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
  const texts = ['report.html', 'results.json', 'junit.xml', 'badge.svg']
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  return { r, code: res.code, stdout: res.stdout + res.stderr, texts };
}

function tokensIn(har: string): string[] {
  const doc = JSON.parse(fs.readFileSync(har, 'utf8'));
  return doc.log.entries.flatMap((e: { request: { headers: Array<{ name: string; value: string }> } }) =>
    e.request.headers.filter((h) => h.name.toLowerCase() === 'token').map((h) => h.value),
  );
}

function expectVerified(v: Awaited<ReturnType<typeof verify>>, observedAtLeast: string[]) {
  expect(v.code, v.stdout).toBe(0);
  expect(v.r.counts.failed).toBe(0);
  for (const id of observedAtLeast) expect(v.r.requirements.find((q) => q.id === id)?.result, id).toBe('passed');
}

const CDP_EVENTS = [
  'Network.requestWillBeSent',
  'Network.responseReceived',
  'Network.dataReceived',
  'Network.loadingFinished',
  'Network.loadingFailed',
  'Page.frameStartedLoading',
  'Page.frameNavigated',
  'Page.domContentEventFired',
  'Page.loadEventFired',
] as const;

describe.skipIf(skipBrowser)(
  `HAR written by a browser${skipBrowser ? ` (skipped: CONFORMANCE_SKIP_BROWSER=1 or no Chromium at ${CHROMIUM}; apt-get install -y chromium)` : ''}`,
  () => {
    it('Playwright recordHar: parses and verifies, the token stays out of the reports', async () => {
      const har = path.join(tmp, 'playwright.har');
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({ recordHar: { path: har, content: 'embed' } });
        await callFromPage(context, ref.url);
        await context.close(); // writes the HAR
      } finally {
        await browser.close();
      }
      const tokens = tokensIn(har).filter((t) => t.length > 8);
      expect(tokens.length).toBeGreaterThan(3); // Playwright's own file keeps them
      const v = await verify(har, 'playwright');
      expectVerified(v, ['GEN-002', 'COL-001', 'COL-003', 'QRY-004', 'FILE-010', 'DOM-004']);
      for (const t of tokens) expect(v.texts).not.toContain(t);
    }, 120_000);

    it("Playwright's other recording forms (content attach, .har.zip, omit) judge as the embedded one, or judge nothing", async () => {
      const forms = {
        embed: { path: path.join(tmp, 'forms', 'embed.har'), content: 'embed' as const },
        attach: { path: path.join(tmp, 'forms', 'attach', 'attach.har'), content: 'attach' as const },
        zip: { path: path.join(tmp, 'forms', 'session.har.zip') }, // attach by default for a .zip
        omit: { path: path.join(tmp, 'forms', 'omit.har'), content: 'omit' as const },
      };
      const browser = await launchChromium();
      try {
        // one page's calls, recorded by four recorders at once (one context each, the same calls in turn)
        for (const rec of Object.values(forms)) {
          const context = await browser.newContext({ recordHar: rec });
          await callFromPage(context, ref.url);
          await context.close();
        }
      } finally {
        await browser.close();
      }
      expect(fs.readdirSync(path.dirname(forms.attach.path)).length).toBeGreaterThan(3); // the bodies beside it
      const decided = (r: RunResults) =>
        r.requirements
          .filter((q) => q.result === 'passed' || q.result === 'failed')
          .map((q) => q.id)
          .sort();
      const embed = await verify(forms.embed.path, 'form-embed');
      expectVerified(embed, ['GEN-002', 'COL-001', 'FILE-010']);
      for (const name of ['attach', 'zip'] as const) {
        const v = await verify(forms[name].path, `form-${name}`);
        expect(v.r.counts.failed, name).toBe(0);
        expect(decided(v.r), name).toEqual(decided(embed.r));
      }
      const omit = await verify(forms.omit.path, 'form-omit');
      expect(omit.r.counts.failed).toBe(0);
      expect(decided(omit.r)).toEqual([]);
      expect(omit.r.warnings.join('\n')).toMatch(/not judged: the answer body was not recorded/);
    }, 180_000);

    it('a sample of faults recorded by Chromium through the fault proxy: each fails on a requirement of its fault, the reference on none', async () => {
      const dir = path.join(tmp, 'faults');
      fs.mkdirSync(dir, { recursive: true });
      // one Chromium for the six recordings, each in a context of its own
      const browser = await launchChromium();
      try {
        const plain = await recordBrowserFault(ref.url, 'reference', dir, browser);
        expect(plain.exitCode, plain.failed.join(',')).toBe(0);
        for (const name of BROWSER_FAULT_SAMPLE) {
          const o = await recordBrowserFault(ref.url, name, dir, browser);
          expect(o.exitCode, name).toBe(1);
          expect(
            o.failed.filter((id) => o.requirements.includes(id)),
            `${name} fails ${o.failed.join(',')}, its requirements are ${o.requirements.join(',')}`,
          ).not.toEqual([]);
        }
      } finally {
        await browser.close();
      }
    }, 240_000);

    it("Chromium's DevTools protocol Network events, converted by chrome-har: parses and verifies", async () => {
      const browser = await launchChromium();
      const events: Array<{ method: string; params: any }> = [];
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        // chrome-har reads the bodies from the responses' `body` (its README: set by the caller)
        const responses = new Map<string, any>();
        const bodies: Array<Promise<void>> = [];
        for (const m of CDP_EVENTS)
          cdp.on(m, (params: any) => {
            events.push({ method: m, params });
            if (m === 'Network.responseReceived') responses.set(params.requestId, params.response);
            if (m === 'Network.loadingFinished' && responses.has(params.requestId))
              bodies.push(
                cdp.send('Network.getResponseBody', { requestId: params.requestId }).then((b) => {
                  responses.get(params.requestId).body = b.base64Encoded
                    ? Buffer.from(b.body, 'base64').toString('utf8')
                    : b.body;
                }),
              );
          });
        await cdp.send('Page.enable');
        await cdp.send('Network.enable');
        await callFromPage(context, ref.url, page);
        await Promise.all(bodies);
        await context.close();
      } finally {
        await browser.close();
      }
      const har = path.join(tmp, 'chromium-cdp.har');
      fs.writeFileSync(har, JSON.stringify(harFromMessages(events, { includeTextFromResponseBody: true })));
      const v = await verify(har, 'chromium-cdp');
      expectVerified(v, ['GEN-002', 'COL-001', 'QRY-004', 'FILE-010']);
      expect(v.stdout).toMatch(/[5-9] exchange\(s\) of the interface/);
    }, 120_000);
  },
);

describe('conformance record', () => {
  it('the command prints its address, records until SIGINT, and writes the HAR', async () => {
    const har = path.join(tmp, 'record-cli.har');
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'conformance/bin/conformance.mjs'), 'record', '--upstream', ref.url, '--har', har],
      { cwd: ROOT },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /conformance record: (http:\/\/\S+) /.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`record exited ${code}: ${out}`)));
    });
    expect((await fetch(`${url}/api/Domains`)).status).toBe(401);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, out).toBe(0);
    expect(out).toMatch(/1 exchange\(s\) written/);
    expect(JSON.parse(fs.readFileSync(har, 'utf8')).log.entries[0].response.status).toBe(401);
  }, 60_000);

  it('forwards unchanged, writes HAR with the token redacted, and the HAR verifies', async () => {
    const har = path.join(tmp, 'record.har');
    const proxy = await startRecordingProxy({ upstream: ref.url, har, tokenHeader: 'Token', creatorVersion: 'test' });
    const auth = (await fetch(`${proxy.url}/Authentication/Authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Account: 'demo', User: 'admin', Password: 'admin', ClientName: 'test' }),
    }).then((r) => r.json())) as { Token?: string; token?: string };
    const token = String(auth.Token ?? auth.token);
    const direct = await fetch(`${ref.url}/api/Claim/Query?columns=ClaimNumber&take=2`, {
      headers: { Token: token },
    }).then((r) => r.text());
    const via = await fetch(`${proxy.url}/api/Claim/Query?columns=ClaimNumber&take=2`, {
      headers: { Token: token },
    }).then((r) => r.text());
    expect(via).toBe(direct);
    await fetch(`${proxy.url}/api/Domains`, { headers: { Token: token } });
    await proxy.close();
    const text = fs.readFileSync(har, 'utf8');
    expect(text).not.toContain(token);
    expect(JSON.parse(text).log.entries).toHaveLength(3);
    const v = await verify(har, 'record');
    expectVerified(v, ['COL-001', 'QRY-005', 'DOM-004']);
  }, 60_000);
});
