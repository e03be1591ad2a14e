// verify-traffic on hand-built HAR files: each kind of rule passes on a conforming exchange, fails
// on a broken one with the exchange as a curl reproducer without the token, and leaves what no
// exchange decided "not observed"; credentials never reach a report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { curlCommand } from '../src/report/curl.js';
import { redactor, shortenContents } from '../src/traffic/redact.js';
import { notJudgeableReason } from '../src/traffic/report.js';
import { SCHEMA_RULE } from '../src/traffic/rules-schema.js';
import { SEQUENCE_RULES } from '../src/traffic/sequence-rules.js';
import { EXCHANGE_RULES, NOT_JUDGEABLE } from '../src/traffic/verify.js';
import type { RunResults } from '../src/report/results.js';
import { withTrafficRulesTable } from '../src/traffic/docs.js';
import { entry, judgeHars, writeHar } from './helpers/har.js';
import { runCli } from './helpers/cli.js';
import { resultsValidator } from './helpers/schema.js';
import type { HarEntry } from '../src/traffic/har.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-traffic-'));
const catalogue = loadCatalogue();

function judge(entries: HarEntry[]): RunResults {
  return judgeHars([writeHar(tmp, `t${Math.random().toString(36).slice(2)}.har`, entries)]).r;
}
const result = (r: RunResults, id: string) => r.requirements.find((q) => q.id === id)!;

const batch = { Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'X' } }], Updates: [], Deletes: [] };
const okResults = (first: number) => ({
  Inserts: [
    { IsSuccessful: true, RecordID: 501, OrderNumber: first, Message: 'inserted', Warnings: null },
    { IsSuccessful: false, RecordID: 0, OrderNumber: first + 1, Message: 'LocationName is required', Warnings: null },
  ],
  Updates: [],
  Deletes: [],
});
const upsert = '/api/Quotes/Proposals/7/Schedules/ProposalLocation/UpsertMulti';

describe('verify-traffic rules', () => {
  it('passes conforming exchanges, names the count, and leaves the rest not observed', () => {
    const r = judge([
      entry('POST', upsert, 200, okResults(0), { body: batch }),
      entry('GET', '/api/ProposalLocation/501?columns=LocationName,City as Town', 200, {
        Record: { LocationName: 'A', Town: null },
        Domain: 'ProposalLocation',
        Id: 501,
      }),
    ]);
    for (const id of [
      'SCHED-003',
      'SCHED-002',
      'SCHED-012',
      'SCHED-013',
      'SCHED-016',
      'SCHED-007',
      'COL-001',
      'COL-003',
      'REC-001',
    ])
      expect(result(r, id).result, id).toBe('passed');
    expect(result(r, 'SCHED-003').tests[0].title).toMatch(/1 exchange\(s\) showed it/);
    expect(result(r, 'BIND-002').result).toBe('not-applicable');
    expect(result(r, 'BIND-002').reason).toMatch(/^not observed: .*BindStatus/);
    expect(result(r, 'PROP-001').reason).toMatch(/^not judgeable from traffic alone/);
    expect(r.exitCode).toBe(0);
    expect(resultsValidator()(r)).toEqual([]);
  });

  it('fails a one-based OrderNumber with the exchange as a curl command without the token', () => {
    const r = judge([entry('POST', upsert, 200, okResults(1), { body: batch })]);
    const q = result(r, 'SCHED-003');
    expect(q.result).toBe('failed');
    expect(r.exitCode).toBe(1);
    const ex = q.tests[0].error!.exchanges[0];
    expect(ex.requestHeaders.token).toBe('<redacted>');
    const curl = curlCommand(ex, r.auth);
    expect(curl.command).toContain('"$TOKEN"');
    expect(JSON.stringify(r)).not.toContain('sekret-token-123456');
  });

  it('judges the BindStatus null pattern, suppression, take and the link parent domain', () => {
    const r = judge([
      entry('GET', '/api/Quotes/Proposals/3/BindStatus', 200, {
        ProposalID: 3,
        Status: 'NotBound',
        ErrorMessage: null,
        PolicyID: 12,
        MemberID: null,
        PolicyNumber: null,
        MemberName: null,
        BoundDateUTC: null,
      }),
      entry('GET', '/api/Claim/Query?columns=A,B&excludeEmptyColumns=true', 200, {
        List: [{ A: 1, B: null }, { A: 2 }],
      }),
      entry('GET', '/api/Claim/Query?columns=A&take=2', 200, { List: [{ A: 1 }, { A: 2 }, { A: 3 }] }),
      entry('GET', '/api/Link/Query?parentDomain=Claim&columns=ParentDomainID,ParentID', 200, {
        List: [
          { ParentDomainID: 1, ParentID: 4 },
          { ParentDomainID: 6, ParentID: 4 },
        ],
      }),
    ]);
    for (const id of ['BIND-002', 'QRY-012', 'QRY-005', 'LINK-012']) expect(result(r, id).result, id).toBe('failed');
  });

  it('judges sequences: CreateMember twice, a failed atomic batch then a read', () => {
    const member = '/api/Quotes/Proposals/9/CreateMember';
    const read = '/api/ProposalLocation/40?columns=LocationName';
    const rec = (n: string) => ({ Record: { LocationName: n }, Domain: 'ProposalLocation', Id: 40 });
    const r = judge([
      entry('POST', member, 200, { IsSuccessful: true, RecordID: 77, Message: null }),
      entry('POST', member, 200, { IsSuccessful: true, RecordID: 78, Message: null }),
      entry('GET', read, 200, rec('Old')),
      entry(
        'POST',
        `${upsert}?isAtomic=true`,
        200,
        {
          Inserts: [
            { IsSuccessful: false, RecordID: 0, OrderNumber: 0, Message: 'LocationName is required', Warnings: null },
          ],
          Updates: [],
          Deletes: [],
        },
        { body: { Inserts: [{ Fields: {} }], Updates: [{ ID: 40, Fields: { LocationName: 'New' } }], Deletes: [] } },
      ),
      entry('GET', read, 200, rec('New')),
    ]);
    expect(result(r, 'MEM-003').result).toBe('failed');
    expect(result(r, 'SCHED-014').result).toBe('failed');
    expect(result(r, 'SCHED-015').result).toBe('passed');
    expect(result(r, 'SCHED-014').tests[0].error!.exchanges).toHaveLength(3);
  });
});

describe('privacy', () => {
  it('redacts the token header, Authorization, cookies and token fields, and every later occurrence of them', () => {
    const red = redactor('X-Api-Token');
    expect(
      red.headers({
        'x-api-token': 'abcdefgh1234',
        authorization: 'Bearer zzzzzzzz9',
        cookie: 'sid=qqqqqqqq77',
        accept: 'a',
      }),
    ).toEqual({
      'x-api-token': '<redacted>',
      authorization: '<redacted>',
      cookie: '<redacted>',
      accept: 'a',
    });
    expect(red.text('{"Token":"t0k3n-abcdef","x":"abcdefgh1234 and qqqqqqqq77"}')).toBe(
      '{"Token":"<redacted>","x":"<redacted> and <redacted>"}',
    );
    expect(redactor('Token', true).headers({ token: 'abcdefgh1234' })).toEqual({ token: 'abcdefgh1234' });
    const b64 = 'QUJD'.repeat(50);
    expect(shortenContents(`{"Contents":"${b64}"}`)).toBe(
      `{"Contents":"${b64.slice(0, 24)}… [200 base64 characters]"}`,
    );
    expect(shortenContents(`{"Contents":"${b64}"}`, true)).toContain(b64);
  });

  it('the CLI writes the report set, exits 1 on a failure, 2 on a file that is not HAR, and keeps credentials out', async () => {
    const file = writeHar(tmp, 'cli.har', [entry('POST', upsert, 200, okResults(1), { body: batch })]);
    const dir = path.join(tmp, 'cli-report');
    const res = await runCli(['verify-traffic', file, '--report-dir', dir]);
    expect(res.code, res.stderr).toBe(1);
    for (const f of ['report.html', 'results.json', 'junit.xml', 'badge.svg']) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(text, f).not.toContain('sekret-token-123456');
    }
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('$TOKEN');
    expect(res.stdout).toMatch(/of \d+ testable core requirements observed/);
    fs.writeFileSync(path.join(tmp, 'bad.har'), '{"x":1}');
    const bad = await runCli(['verify-traffic', path.join(tmp, 'bad.har'), '--report-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a HAR file/);
  });
});

describe('docs', () => {
  it('the table of traffic rules in conformance/README.md is generated from the rules (npm run docs:traffic)', () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(withTrafficRulesTable(readme) === readme, 'conformance/README.md: run npm run docs:traffic').toBe(true);
  });

  it('every testable core requirement is decided by a rule or declared not judgeable with a reason, never both', () => {
    const named = new Set([SCHEMA_RULE, ...EXCHANGE_RULES, ...SEQUENCE_RULES].flatMap((r) => r.requirements));
    const declared = NOT_JUDGEABLE.flatMap((n) => n.requirements);
    const ids = new Set(catalogue.requirements.map((q) => q.id));
    expect(
      declared.filter((id) => !ids.has(id)),
      'declared IDs not in the catalogue',
    ).toEqual([]);
    expect(
      declared.filter((id) => named.has(id)),
      'declared not judgeable, yet a rule names it',
    ).toEqual([]);
    expect(
      declared.filter((id, i) => declared.indexOf(id) !== i),
      'declared twice',
    ).toEqual([]);
    const core = catalogue.requirements.filter((q) => q.level === 'core' && q.testable && !q.retired);
    expect(core.filter((q) => !named.has(q.id) && !declared.includes(q.id)).map((q) => q.id)).toEqual([]);
    for (const n of NOT_JUDGEABLE) expect(n.reason.length).toBeGreaterThan(40);
    // the report reads the reason from the declaration
    expect(notJudgeableReason('PROP-001')).toBe(NOT_JUDGEABLE.find((n) => n.requirements.includes('PROP-001'))!.reason);
  });
});
