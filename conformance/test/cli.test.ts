// The CLI end to end: spawns the `conformance` bin against a fake implementation served here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { RunResults } from '../src/report/results.js';
import { ROOT } from '../../spec/paths.js';
import { resultsValidator } from './helpers/schema.js';
import { parseExpectedFailures } from '../src/report/gate.js';
import { loadCatalogue } from '../src/spec/catalogue.js';

const validate = resultsValidator();

const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');
const env = { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '' };

function runBin(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The per-file lines (`✓ file  1 passed, 2 not selected  (0.1s)`) added up, by outcome. */
function perFileCounts(stdout: string): Record<string, number> {
  const sum: Record<string, number> = {
    passed: 0,
    failed: 0,
    blocked: 0,
    error: 0,
    'precondition-failed': 0,
    'not-applicable': 0,
    'not-selected': 0,
  };
  for (const line of stdout.matchAll(/^[✓✗!] \S+ {2}(.*) {2}\(\d+\.\ds\)$/gm))
    for (const part of line[1].split(', ')) {
      const m = /^(\d+) (.+)$/.exec(part)!;
      const key = m[2] === 'not selected' ? 'not-selected' : m[2];
      if (key in sum) sum[key] += Number(m[1]);
    }
  return sum;
}

describe('usage errors exit 2', () => {
  it.each([
    [['run', '--profile', 'gold']],
    [['run', '--no-such-option']],
    [['run', '--base-url', 'http://a', '--image', 'b']],
    [['run', '--requirements', 'NOPE-1']],
    [['run', '--timeout', 'soon']],
    [['bogus-command']],
  ])('%j', (args) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(2);
  });

  it('--help exits 0', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--help'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--base-url');
  });

  it('--help points to the five-step first run, a section the vendor guide has', () => {
    const r = spawnSync(process.execPath, [BIN, '--help'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const section = /section "([^"]+)"/.exec(r.stdout)?.[1];
    expect(section).toBe('First run in five steps');
    expect(fs.readFileSync(path.join(ROOT, 'conformance', 'README.md'), 'utf8')).toContain(`\n## ${section}\n`);
  });
});

describe('a run against a fake implementation', () => {
  const calls: Array<{ action: string; state: string; setupId?: string }> = [];
  let server: http.Server;
  let base = '';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-cli-'));
  const bindStatus = {
    ProposalID: 1,
    Status: 'NotBound',
    ErrorMessage: null,
    PolicyID: null,
    MemberID: null,
    PolicyNumber: null,
    MemberName: null,
    BoundDateUTC: null,
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const json = (status: number, v: unknown, type = 'application/json') =>
          res.writeHead(status, { 'content-type': type }).end(JSON.stringify(v));
        const url = new URL(req.url!, 'http://x');
        if (url.pathname === '/_provider-states') {
          const m = JSON.parse(body);
          calls.push({ action: m.action, state: m.state, setupId: m.params?.setupId });
          if (m.action === 'teardown') return json(200, {});
          if (m.state === 'a user') return json(200, { token: 'tok-admin', userId: 1 });
          if (m.state === 'a proposal') return json(200, { proposalId: 1 });
          return json(400, { title: 'unknown state' }, 'application/problem+json');
        }
        if (url.pathname === '/echo-token') return json(200, { token: req.headers.token ?? null });
        if (url.pathname === '/hang') return; // never answers: the per-request timeout fires
        if (url.pathname === '/api/Domains')
          return json(200, {
            List: [{ DomainID: 1, Name: 'Claim', DisplayNameSingular: 'Claim', DisplayNamePlural: 'Claims' }],
          });
        if (url.pathname === '/api/Quotes/Proposals/2/BindStatus')
          return json(200, { ...bindStatus, Status: 'Perhaps' });
        if (url.pathname === '/api/Quotes/Proposals/1/BindStatus') return json(200, bindStatus);
        json(404, { code: 'NotFound' }, 'application/problem+json');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as any).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('classifies every outcome, writes results.json and junit.xml, exits 1', async () => {
    const dir = path.join(tmp, 'run1');
    const r = await runBin([
      'run',
      '--base-url',
      base,
      '--include',
      'conformance/test/fixtures/suite/*.suite.ts',
      '--requirements',
      'DOM-003,DOM-004,DOM-005,DOM-006,DOM-007,DOM-008,DOM-011,BIND-001,BIND-002,MEM-001,REC-001,GEN-002',
      '--read-only',
      '--timeout',
      '1500',
      // the timed-out test stays one attempt here (set-ups counted below); retries: verdict-strength.test.ts
      '--retries',
      '0',
      '--report-dir',
      dir,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const res: RunResults = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
    const by = Object.fromEntries(res.requirements.map((q) => [q.id, q]));
    expect(by['DOM-003'].result).toBe('passed');
    expect(by['DOM-004'].result).toBe('failed');
    expect(by['DOM-005'].result).toBe('precondition-failed');
    expect(by['DOM-006'].result).toBe('not-applicable');
    expect(by['DOM-006'].tests[0].reason).toBe('the vendor has no such thing');
    expect(by['DOM-007'].result).toBe('error');
    expect(by['DOM-008'].result).toBe('not-applicable');
    expect(by['DOM-008'].tests[0].reason).toMatch(/read-only/);
    // one cause, one failure: a response shape the generic checks refuse blocks a test about another
    // rule (root: the requirement the broken schema node names), fails that requirement's test, and
    // is not GEN-002's as well
    expect(by['MEM-001'].result).toBe('blocked');
    expect(by['MEM-001'].blockedBy).toEqual(['BIND-001']);
    expect(by['MEM-001'].tests[0].error!.message).toMatch(/\[BIND-001, the documented shape\]/);
    expect(by['BIND-001'].result).toBe('failed');
    expect(by['BIND-001'].tests[0].error!.message).toMatch(/\/Status must be equal to one of the allowed values/);
    expect(by['GEN-002'].result).toBe('passed');
    // a failed t.needs step blocks the test's requirements and fails the step's requirement
    expect(by['BIND-002'].result).toBe('blocked');
    expect(by['BIND-002'].blockedBy).toEqual(['REC-001']);
    expect(by['BIND-002'].tests[0].blockedBy).toEqual({ requirement: 'REC-001', step: 'read the record back' });
    expect(by['BIND-002'].tests[0].error!.message).toMatch(/blocked by REC-001: step "read the record back" failed/);
    expect(by['REC-001'].result).toBe('failed');
    expect(by['REC-001'].tests.map((t) => [t.id, t.step])).toEqual([['step.fx.needs', true]]);
    expect(res.target).toMatchObject({ kind: 'url', baseUrl: base });
    expect(res.counts).toMatchObject({
      passed: 2,
      failed: 4,
      blocked: 2,
      error: 1,
      'precondition-failed': 1,
      'not-applicable': 2,
    });
    // the summary lists the root failures first, then the blocked ones under their root
    const roots = r.stdout.indexOf('Root failures (');
    const blockedAt = r.stdout.indexOf('Blocked (2)');
    expect(roots).toBeGreaterThan(-1);
    expect(blockedAt).toBeGreaterThan(roots);
    expect(r.stdout).toMatch(/by BIND-001: 1 requirement\(s\)\n\s+MEM-001/);
    expect(r.stdout).toMatch(/by REC-001: 1 requirement\(s\)\n\s+BIND-002/);
    // the failed test carries its exchanges, token redacted
    const ex = by['DOM-004'].tests[0].error!.exchanges;
    expect(ex[0]).toMatchObject({
      method: 'GET',
      url: `${base}/api/Domains`,
      status: 200,
      requestHeaders: { token: '<redacted>' },
    });
    expect(ex[0].responseBody).toContain('"List"');
    // every state set up by a test was torn down with the same setupId (also after failure / not-applicable)
    const setups = calls.filter((c) => c.action === 'setup' && c.state === 'a proposal');
    expect(setups).toHaveLength(2);
    for (const s of setups)
      expect(calls).toContainEqual({ action: 'teardown', state: 'a proposal', setupId: s.setupId });
    expect(calls.filter((c) => c.state === 'a user' && c.action === 'setup')).toHaveLength(1);
    expect(calls.filter((c) => c.state === 'a user' && c.action === 'teardown')).toHaveLength(1);
    const junit = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testcase name="DOM-004 an assertion fails" classname="domains"');
    expect(r.stdout).toContain('Verdict: FAIL (exit 1)');

    // every surface counts the same tests (issue 43): the per-file lines, the summary's Tests:
    // line, results.json testCounts, JUnit's conformance.tests.* and report.html. The test of the
    // other profile and the one outside --requirements are not selected, never not-applicable.
    const counts = {
      passed: 1,
      failed: 3,
      blocked: 2,
      error: 1,
      'precondition-failed': 1,
      'not-applicable': 2,
      'not-selected': 1,
    };
    expect(res.testCounts).toEqual(counts);
    expect(perFileCounts(r.stdout)).toEqual(counts);
    expect(r.stdout).toContain(
      'Tests: 1 passed, 3 failed, 2 blocked, 1 error, 1 precondition-failed, 2 not-applicable, 1 not selected',
    );
    const props = Object.fromEntries(
      [...junit.matchAll(/<property name="conformance\.tests\.([a-z-]+)" value="(\d+)"\/>/g)].map((m) => [m[1], +m[2]]),
    );
    expect(props).toEqual(counts);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain(
      'Tests: 1 passed, 3 failed, 2 blocked, 1 error, 1 precondition-failed, 2 not-applicable, 1 not selected',
    );
    // and the requirements: the summary's line and results.json counts
    const c = res.counts;
    expect(r.stdout).toContain(
      `Requirements: ${res.requirements.length} selected: ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.error} error, ${c['precondition-failed']} precondition-failed, ${c.untested} untested, ${c['not-applicable']} not-applicable, ${c['not-testable']} not-testable`,
    );
    expect(junit).toContain(`<property name="conformance.selected" value="${res.strength!.selected}"/>`);

    // a failure message shows the values that decided it, whole (run/failure-format.ts): both rows,
    // every field, where chai's default printed `[ { ParentDomainID: 1, …(4) }, …(1) ]`
    const message = by['DOM-011'].tests[0].error!.expectation!.message;
    expect(message).not.toContain('…');
    for (const v of ['ChildID: 301', 'ChildID: 302', "Relationship: 'Insured'", "Relationship: 'Claimant'"])
      expect(message).toContain(v);
    expect(message).toMatch(/to have a length of 1 but got 2/);
    // the console shows it whole too (it is shorter than the console's bound)
    expect(r.stdout).toContain("Relationship: 'Claimant'");
  }, 120_000);

  it('a disputed failure shows as disputed on every surface and exits 0 only with --allow-disputed', async () => {
    const xf = path.join(tmp, 'disputed.yaml');
    const quote = 'Core DomainIDs are fixed in every environment.';
    fs.writeFileSync(
      xf,
      `- id: DOM-004\n  kind: disputed\n  quote: "${quote}"\n  reason: the suite expects status 299, which the spec never names\n`,
    );
    const dir = path.join(tmp, 'disputed');
    const args = ['--include', 'conformance/test/fixtures/suite/*.suite.ts', '--requirements', 'DOM-003,DOM-004'];
    const r = await runBin([
      'run',
      '--base-url',
      base,
      ...args,
      '--expected-failures',
      xf,
      '--allow-disputed',
      '--report-dir',
      dir,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const res: RunResults = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
    // still red: the requirement, the counts and the badge
    expect(res.requirements.find((q) => q.id === 'DOM-004')!.result).toBe('failed');
    expect(res.counts.failed).toBe(1);
    expect(res.disputes).toEqual([
      expect.objectContaining({ id: 'DOM-004', result: 'failed', quote, allowed: true, specQuote: quote }),
    ]);
    expect(res.gate).toMatchObject({
      disputed: ['DOM-004'],
      allowDisputed: true,
      excused: [{ id: 'DOM-004', by: 'disputed' }],
    });
    expect(fs.readFileSync(path.join(dir, 'badge.svg'), 'utf8')).toContain('1/2');
    // listed apart: console, JUnit, report.html (first screen), disputes.md
    expect(r.stdout).toMatch(/Disputed \(1\), not failing the run \(--allow-disputed\)/);
    expect(r.stdout).toMatch(/DOM-004 +failed +\(core\) \[DISPUTED\]/);
    expect(r.stdout).toContain(`spec §2.1: "${quote}"`);
    const junit = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="conformance.disputed" value="1"/>');
    expect(junit).toMatch(/<skipped message="disputed \(--allow-disputed\)/);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html.indexOf('Disputed failures (1)')).toBeGreaterThan(-1);
    expect(html.indexOf('Disputed failures (1)')).toBeLessThan(html.indexOf('<h2>Run</h2>'));
    expect(fs.readFileSync(path.join(dir, 'disputes.md'), 'utf8')).toContain(`> ${quote}`);
    expect(validate(res)).toEqual([]);

    // without --allow-disputed the same judgement fails the run, and says so
    const again = await runBin([
      'report',
      path.join(dir, 'results.json'),
      '--expected-failures',
      xf,
      '--report-dir',
      path.join(tmp, 'disputed-strict'),
    ]);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.stdout).toMatch(/Disputed \(1\), failing the run \(give --allow-disputed/);
    const strict: RunResults = JSON.parse(fs.readFileSync(path.join(tmp, 'disputed-strict', 'results.json'), 'utf8'));
    expect(strict.disputes![0].allowed).toBe(false);
    expect(strict.gate!.blocking).toEqual(['DOM-004']);
    expect(fs.readFileSync(path.join(tmp, 'disputed-strict', 'junit.xml'), 'utf8')).toMatch(
      /<failure type="failed" message="\[disputed\] /,
    );

    // a dispute without its quote or reason, or with words the spec does not hold, is a clear config
    // error (exit 2 through the CLI: the expected-failures file's usage errors, reports-e2e.test.ts)
    const catalogue = loadCatalogue();
    for (const [entry, why] of [
      [{ id: 'DOM-004', kind: 'disputed', reason: 'r' }, /needs 'quote'/],
      [
        { id: 'DOM-004', kind: 'disputed', quote: 'Domains may be renumbered.', reason: 'r' },
        /'quote' is not in the interface specification/,
      ],
      [{ id: 'DOM-004', kind: 'disputed', quote }, /'reason' must be a non-empty text/],
      [{ id: 'DOM-004', kind: 'contested', quote, reason: 'r' }, /'kind' must be 'expected' or 'disputed'/],
    ] as const)
      expect(() => parseExpectedFailures([entry], 'xf.yaml', catalogue)).toThrow(why);
    // markup and line breaks of the spec may differ in the quote
    expect(
      parseExpectedFailures(
        [{ id: 'DOM-004', kind: 'disputed', quote: 'Core DomainIDs\n are fixed in *every* environment.', reason: 'r' }],
        'xf.yaml',
        catalogue,
      )[0].kind,
    ).toBe('disputed');
  }, 180_000);

  it('exits 0 when every selected requirement passed', async () => {
    const r = await runBin([
      'run',
      '--base-url',
      base,
      '--include',
      'conformance/test/fixtures/suite/*.suite.ts',
      '--requirements',
      'DOM-003',
      '--report-dir',
      path.join(tmp, 'run2'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 120_000);

  it('exits 2 when a suite test names an unknown requirement', async () => {
    const r = await runBin([
      'run',
      '--base-url',
      base,
      '--include',
      'conformance/test/fixtures/bad-suite/*.suite.ts',
      '--report-dir',
      path.join(tmp, 'run3'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(/DOM-999/);
  }, 120_000);

  it('exits 3 when the target does not answer', async () => {
    const r = await runBin(['run', '--base-url', 'http://127.0.0.1:1', '--report-dir', path.join(tmp, 'run4')]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
  }, 120_000);

  it('fixtures replace the state endpoint', async () => {
    const fx = path.join(tmp, 'fx.yaml');
    fs.writeFileSync(fx, '- state: a user\n  values: { token: tok-admin }\n');
    const r = await runBin([
      'run',
      '--base-url',
      base,
      '--fixtures',
      fx,
      '--include',
      'conformance/test/fixtures/suite/*.suite.ts',
      '--requirements',
      'DOM-003,DOM-005',
      '--report-dir',
      path.join(tmp, 'run5'),
    ]);
    const res: RunResults = JSON.parse(fs.readFileSync(path.join(tmp, 'run5', 'results.json'), 'utf8'));
    expect(res.requirements.map((q) => [q.id, q.result])).toEqual([
      ['DOM-003', 'passed'],
      ['DOM-005', 'precondition-failed'],
    ]);
    expect(r.code).toBe(1);
  }, 120_000);
});
