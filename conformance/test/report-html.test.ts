// report.html, badge.svg and curl commands without a browser: escaping, offline-ness, content.
// (conformance/test/report-html.browser.test.ts opens the page in a real headless Chromium.)
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { badgeInfo, renderBadge } from '../src/report/badge.js';
import { curlCommand, shQuote } from '../src/report/curl.js';
import { esc, renderHtml, showBody, MAX_SHOWN_BODY } from '../src/report/html.js';
import { compareSections, parseSectionTitles, specSectionTitles } from '../src/spec/sections.js';
import { toJUnit } from '../src/report/junit.js';
import { fakeRun, XSS } from './helpers/fake-run.js';
import { resultsValidator } from './helpers/schema.js';

const failing = fakeRun({
  profile: 'all',
  fail: ['LINK-001', 'SCHED-001'],
  precondition: ['PROP-001'],
  untested: ['FILE-001'],
});
const passing = fakeRun({ profile: 'all' });

/** Runs a shell command with a `curl` stand-in that prints its arguments, one per record. */
function curlArgs(command: string, env: Record<string, string> = {}): string[] {
  const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }\n${command}\n`;
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\0').slice(0, -1);
}

describe('spec sections', () => {
  it('reads the section titles of the spec headings', () => {
    const t = parseSectionTitles('# Title\n## 4. Endpoints\n### 4.2 Generic record access\n#### not numbered\n');
    expect([...t]).toEqual([
      ['4', 'Endpoints'],
      ['4.2', 'Generic record access'],
    ]);
    const spec = specSectionTitles();
    expect(spec.get('4.2')).toBe('Generic record access');
    expect(spec.get('5')).toBe('Authentication');
  });

  it('orders section numbers numerically', () => {
    expect(['4.10', '2', '4.2', '10', '4'].sort(compareSections)).toEqual(['2', '4', '4.2', '4.10', '10']);
  });
});

describe('curl commands', () => {
  it.each([`it's`, `a'b''c`, '$(id) `id` $HOME \\ " ; | & > <', 'line1\nline2', '', '-X DELETE'])(
    'shQuote round-trips %j',
    (s) => {
      expect(curlArgs(`curl ${shQuote(s)}`)).toEqual([s]);
    },
  );

  it('reproduces method, URL, headers and body; the token comes from $TOKEN', () => {
    const ex = failing.requirements.find((q) => q.id === 'LINK-001')!.tests[0].error!.exchanges[0];
    const c = curlCommand(ex, { header: 'Token', prefix: '' });
    expect(c.usesToken).toBe(true);
    expect(c.command).toContain(`-H 'Token: '"$TOKEN"`);
    expect(c.command).not.toContain('<redacted>');
    const args = curlArgs(c.command, { TOKEN: 'secret-123' });
    expect(args).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      ex.url,
      '-H',
      'accept: application/json',
      '-H',
      'content-type: application/json',
      '-H',
      'Token: secret-123',
      '--data-raw',
      ex.requestBody,
    ]);
  });

  it('keeps a token prefix from the bindings and omits -X for a plain GET', () => {
    const c = curlCommand(
      {
        method: 'GET',
        url: 'http://x.example/api/Domains',
        requestHeaders: { authorization: '<redacted>', host: 'x' },
      },
      { header: 'Authorization', prefix: 'Bearer ' },
    );
    expect(curlArgs(c.command, { TOKEN: 't0k' })).toEqual([
      '-sS',
      '-i',
      'http://x.example/api/Domains',
      '-H',
      'Authorization: Bearer t0k',
    ]);
  });

  it('says when the recorded body was truncated', () => {
    const c = curlCommand({
      method: 'POST',
      url: 'http://x/',
      requestHeaders: {},
      requestBody: `${'a'.repeat(10)}… [99 more characters]`,
    });
    expect(c.notes[0]).toMatch(/truncated/);
    expect(curlArgs(c.command).at(-1)).toBe('a'.repeat(10));
  });
});

describe('report.html', () => {
  const html = renderHtml(failing);

  it('escapes everything that comes from the implementation', () => {
    expect(html).not.toContain(XSS);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<link');
    expect(html).toContain(esc(XSS));
    // exactly one script element and one style element: ours
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<style/g)).toHaveLength(1);
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    for (const t of tags) {
      expect(t).not.toMatch(/\s(src|srcset|background|action|formaction|style)=/i);
      expect(t).not.toMatch(/\son[a-z]+=/i);
    }
  });

  it('is offline: no external URL in a tag, and a CSP that matches the inline script and style', () => {
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    for (const t of tags) expect(t).not.toMatch(/(href|src)="(https?:)?\/\//i);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1].replace(/&#39;/g, "'");
    expect(csp).toMatch(/default-src 'none'/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    const hash = (s: string) => crypto.createHash('sha256').update(s).digest('base64');
    expect(csp).toContain(`script-src 'sha256-${hash(script)}'`);
    expect(csp).toContain(`style-src 'sha256-${hash(style)}'`);
    expect(style).not.toMatch(/@import|url\(/);
  });

  it('shows the verdict, counts, target, sections and each failure with request, response, expectation and curl', () => {
    expect(html).toContain('<span class="verdict-word">FAIL</span>');
    expect(html).toContain('Vendor API 2.3');
    expect(html).toMatch(/<li class="count c-failed"[^>]*><span class="n">2<\/span>/);
    expect(html).toContain('§4.4</span> Links');
    const link = html.slice(html.indexOf('id="req-LINK-001"'));
    expect(link).toMatch(/^[^]*?<details|^id="req-LINK-001"[^>]* open>/);
    expect(link).toContain('Expectation that failed');
    expect(link).toContain('expected 500 to be 200');
    expect(link).toContain('<dt>expected</dt><dd><code>200</code></dd>');
    expect(link).toContain('HTTP 500');
    expect(link).toContain('Reproduce with curl');
    expect(link).toContain(esc(`-H 'Token: '"$TOKEN"`));
    expect(html).toContain('precondition failed');
    expect(html).toContain('No test in this run verifies this requirement.');
  });

  it('shows the requirement text: statement and spec quote', () => {
    const q = failing.requirements.find((x) => x.id === 'LINK-001')!;
    expect(q.quote).toBeTruthy();
    expect(html).toContain(`<p class="statement">${esc(q.statement)}</p>`);
    expect(html).toContain(`<blockquote><p>${esc(q.quote)}</p>`);
  });

  it('truncates long bodies sensibly and pretty-prints JSON', () => {
    expect(showBody('{"a":1}').text).toBe('{\n  "a": 1\n}');
    const long = showBody('x'.repeat(MAX_SHOWN_BODY + 50));
    expect(long.text).toHaveLength(MAX_SHOWN_BODY);
    expect(long.cut).toMatch(/50 more characters/);
    const many = showBody(JSON.stringify(Array.from({ length: 200 }, (_, i) => i)));
    expect(many.cut).toMatch(/more lines/);
  });

  it('a passing run reads as a pass', () => {
    const p = renderHtml(passing);
    expect(p).toContain('<span class="verdict-word">PASS</span>');
    expect(p).not.toContain('Not passing');
    expect(p).toMatch(/All \d+ requirements with a verdict passed\./);
  });
});

describe('badge.svg', () => {
  it('shows the core score, green when every core requirement passed', () => {
    const b = badgeInfo(passing);
    const core = passing.requirements.filter((q) => q.level === 'core' && q.result === 'passed').length;
    expect(b.message).toBe(`core ${core}/${core}`);
    expect(renderBadge(passing)).toContain('#3fb618');
    expect(renderBadge(passing)).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]* aria-label="conformance: core \d+\/\d+">/,
    );
  });

  it('red with the failing score', () => {
    const b = badgeInfo(failing);
    const core = failing.requirements.filter(
      (q) => q.level === 'core' && q.result !== 'not-testable' && q.result !== 'not-applicable',
    );
    expect(b.message).toBe(`core ${core.filter((q) => q.result === 'passed').length}/${core.length}`);
    expect(b.color).toBe('#d9322b');
  });

  it('grey on a harness error', () => {
    expect(badgeInfo({ ...failing, exitCode: 3, verdict: 'error' }).message).toBe('core error');
  });
});

describe('junit.xml and results.json of the same run', () => {
  it('junit escapes vendor text and names each case by requirement ID', () => {
    const x = toJUnit(failing);
    expect(x).not.toContain(XSS);
    expect(x).toContain('<testcase name="LINK-001 checks LINK-001" classname="links"');
    expect(x).toMatch(/<testcase name="FILE-001 \(no test\)"[^>]*><failure type="untested"/);
    expect(x).toMatch(/at conformance\/suite\/link\.test\.ts:1:1/);
  });

  it('results.json validates against the published schema', () => {
    const validate = resultsValidator();
    expect(validate(JSON.parse(JSON.stringify(failing)))).toEqual([]);
    expect(validate(JSON.parse(JSON.stringify(passing)))).toEqual([]);
  });

  it('the schema refuses a failure without its error', () => {
    const validate = resultsValidator();
    const doc = JSON.parse(JSON.stringify(failing));
    const q = doc.requirements.find((x: { id: string }) => x.id === 'LINK-001');
    delete q.tests[0].error;
    expect(validate(doc).join('\n')).toMatch(/must have required property 'error'/);
  });
});
