// verify-traffic judges only the implementation and only on evidence (issue 34): another origin's
// /api/ traffic is "not this interface"; an answer not recorded, not decodable or missing decides
// nothing; bodies attached beside the HAR and a .har.zip read as embedded ones; the same exchange
// given twice is judged once; and faults the recording plainly shows fail the requirement their
// evidence decides, while the correct recordings of the same calls fail nothing.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Verification } from '../src/traffic/verify.js';
import { harEntry, harLog, type HarEntry } from '../src/traffic/har.js';
import type { RunResults } from '../src/report/results.js';
import { entry, judgeHars, writeHar } from './helpers/har.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-traffic-evidence-'));

function verdict(files: string[], baseUrl?: string): { v: Verification; r: RunResults } {
  return judgeHars(files, baseUrl);
}
const judge = (entries: HarEntry[], baseUrl?: string) =>
  verdict([writeHar(tmp, `e${crypto.randomUUID()}.har`, entries)], baseUrl);
const result = (r: RunResults, id: string) => r.requirements.find((q) => q.id === id)!.result;
const decided = (r: RunResults) =>
  r.requirements
    .filter((q) => q.result === 'passed' || q.result === 'failed')
    .map((q) => q.id)
    .sort();

/** Another service the same page talked to: its paths have /api/ too. */
function foreign(url: string, body: unknown): HarEntry {
  return harEntry({
    startedMs: Date.parse('2026-01-01T00:00:00Z'),
    ms: 3,
    method: 'GET',
    url,
    requestHeaders: { accept: 'application/json' },
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify(body),
  });
}

const link = { ParentDomain: 'Claim', ParentRecordID: 4, ChildDomain: 'Contact', ChildRecordID: 9 };
const linkQuery = '/api/Link/Query?childDomain=Contact&childRecordID=9&columns=ParentDomainID,ParentID';
const linkRows = { List: [{ ParentDomainID: 1, ParentID: 4 }] };
/** A session of the interface a correct server answered. */
function session(): HarEntry[] {
  return [
    entry('GET', '/api/Domains', 200, { List: [{ DomainID: 1, Name: 'Claim' }] }),
    entry('GET', '/api/Claim/3?columns=ClaimID', 200, { Record: { ClaimID: 3 }, Domain: 'Claim', Id: 3 }),
    entry('POST', '/api/Link/Upsert', 200, {}, { body: link }),
    entry('GET', linkQuery, 200, linkRows),
    entry('GET', '/api/Claim/Query?columns=ClaimID&sort=ClaimID desc&take=3', 200, {
      List: [{ ClaimID: 9 }, { ClaimID: 5 }, { ClaimID: 2 }],
    }),
  ];
}

describe('judge only the implementation', () => {
  it("another origin's /api/ traffic is not this interface: counted, named, never judged", () => {
    const others = [
      foreign('https://users.example/api/users/42', { id: 42, name: 'x' }),
      foreign('https://users.example/api/v2/status', { ok: true }),
      foreign('https://users.example/api/users/43', { id: 43 }),
      foreign('https://users.example/api/users/44', { id: 44 }),
    ];
    const { v, r } = judge([...others, ...session()]);
    expect(r.counts.failed).toBe(0);
    expect(v.base).toBe('http://vendor.test');
    expect(v.baseChosen).toBe('chosen');
    expect(v.notInterface).toBe(4);
    expect(v.exchanges.every((x) => x.base === 'http://vendor.test')).toBe(true);
    expect(r.target.baseUrl).toBe('http://vendor.test');
    expect(r.warnings.join('\n')).toMatch(/4 HAR entries are not this interface.*users\.example/);
    expect(decided(r)).toEqual(decided(judge(session()).r));
  });

  it('--base-url picks the implementation: a prefix and a trailing /api are accepted', () => {
    const { v } = judge(session(), 'http://vendor.test/api/');
    expect(v.base).toBe('http://vendor.test');
    expect(v.baseChosen).toBe('given');
    const { v: w, r } = judge(session(), 'http://elsewhere.test/svc');
    expect(w.exchanges).toHaveLength(0);
    expect(w.notInterface).toBe(session().length);
    expect(r.counts.failed).toBe(0);
  });
});

/** The entry with its answer body taken out, as DevTools exports a body it no longer holds. */
function withoutBody(e: HarEntry): HarEntry {
  const c = { ...e.response.content };
  delete c.text;
  return { ...e, response: { ...e.response, content: c } };
}

describe('missing evidence is never evidence', () => {
  it('a Link/Query whose body was not recorded decides neither LINK-013 nor LINK-015', () => {
    const upsert = judge([
      entry('POST', '/api/Link/Upsert', 200, {}, { body: link }),
      withoutBody(entry('GET', linkQuery, 200, linkRows)),
    ]);
    expect(result(upsert.r, 'LINK-013')).toBe('not-applicable');
    expect(upsert.v.unjudged).toEqual([expect.objectContaining({ cause: 'not-recorded', count: 1 })]);
    expect(upsert.r.warnings.filter((w) => /not recorded/.test(w))).toHaveLength(1);
    const removed = judge([
      entry('POST', '/api/Link/Remove', 200, {}, { body: link }),
      withoutBody(entry('GET', linkQuery, 200, linkRows)),
    ]);
    expect(result(removed.r, 'LINK-015')).toBe('not-applicable');
    // with the body, each is decided (the rule can fail for the right reason)
    expect(
      result(
        judge([entry('POST', '/api/Link/Upsert', 200, {}, { body: link }), entry('GET', linkQuery, 200, { List: [] })])
          .r,
        'LINK-013',
      ),
    ).toBe('failed');
    expect(
      result(
        judge([entry('POST', '/api/Link/Remove', 200, {}, { body: link }), entry('GET', linkQuery, 200, linkRows)]).r,
        'LINK-015',
      ),
    ).toBe('failed');
  });

  it('gzip bytes kept in content.text are undecodable, not a failure; base64 gzip is decoded and judged', () => {
    const gz = zlib.gzipSync(Buffer.from(JSON.stringify({ Record: { ClaimID: 3 }, Domain: 'Claim', Id: 3 })));
    const e = entry('GET', '/api/Claim/3?columns=ClaimID', 200, {});
    e.response.headers.push({ name: 'Content-Encoding', value: 'gzip' });
    // bytes become text the way a proxy that does not decode writes them: not valid UTF-8
    const mangled = {
      ...e,
      response: { ...e.response, content: { ...e.response.content, text: gz.toString('utf8') } },
    };
    const bad = judge([mangled]);
    expect(bad.r.counts.failed).toBe(0);
    expect(result(bad.r, 'GEN-001')).toBe('not-applicable');
    expect(bad.v.unjudged).toEqual([expect.objectContaining({ cause: 'undecodable', count: 1 })]);
    const b64 = {
      ...e,
      response: { ...e.response, content: { ...e.response.content, text: gz.toString('base64'), encoding: 'base64' } },
    };
    const good = judge([b64]);
    expect(result(good.r, 'REC-001')).toBe('passed');
    expect(good.v.unjudged).toEqual([]);
  });

  it('an entry without an answer is counted, never judged', () => {
    const e = entry('GET', '/api/Claim/3?columns=ClaimID', 200, {});
    const noAnswer = { ...e, response: { ...e.response, status: 0, content: { size: 0, mimeType: '' } } };
    const { v, r } = judge([noAnswer]);
    expect(r.counts.failed).toBe(0);
    expect(v.unjudged).toEqual([expect.objectContaining({ cause: 'no-answer', count: 1 })]);
  });
});

/** The session written as Playwright's `content: 'attach'` does: bodies in files beside the HAR. */
function attached(dir: string, entries: HarEntry[]): string {
  fs.mkdirSync(dir, { recursive: true });
  const out = entries.map((e) => {
    const x = structuredClone(e);
    const put = (text: string) => {
      const name = `${crypto.createHash('sha1').update(text).digest('hex')}.json`;
      fs.writeFileSync(path.join(dir, name), text);
      return name;
    };
    if (x.response.content.text !== undefined) {
      x.response.content._file = put(x.response.content.text);
      delete x.response.content.text;
    }
    if (x.request.postData?.text)
      x.request.postData = { mimeType: x.request.postData.mimeType, text: '', _file: put(x.request.postData.text) };
    return x;
  });
  const file = path.join(dir, 'har.har');
  fs.writeFileSync(file, JSON.stringify(harLog(out, 'playwright')));
  return file;
}

describe('recording forms', () => {
  it("content 'attach' beside the HAR and a .har.zip judge as the embedded recording", () => {
    const plain = decided(judge(session()).r);
    expect(plain.length).toBeGreaterThan(5);
    const dir = path.join(tmp, 'attach');
    const har = attached(dir, session());
    const a = verdict([har]);
    expect(a.r.counts.failed).toBe(0);
    expect(decided(a.r)).toEqual(plain);
    const zip = path.join(tmp, 'session.har.zip');
    execFileSync('zip', ['-q', '-j', zip, ...fs.readdirSync(dir).map((f) => path.join(dir, f))]);
    const z = verdict([zip]);
    expect(z.r.counts.failed).toBe(0);
    expect(decided(z.r)).toEqual(plain);
    // without the attached files the bodies are missing: nothing decided, nothing failed
    fs.copyFileSync(har, path.join(tmp, 'alone.har'));
    const alone = verdict([path.join(tmp, 'alone.har')]);
    expect(alone.r.counts.failed).toBe(0);
    expect(alone.v.unjudged[0]).toMatchObject({ cause: 'not-recorded' });
  });

  it('a zip without a HAR in it is refused saying so', () => {
    const f = path.join(tmp, 'x.txt');
    fs.writeFileSync(f, 'x');
    const zip = path.join(tmp, 'nohar.zip');
    execFileSync('zip', ['-q', '-j', zip, f]);
    expect(() => verdict([zip])).toThrow(/zip file without a \.har file/);
  });

  it('one session given twice (two files) is judged once, deciding the same requirements', () => {
    const entries = session();
    const once = judge(entries);
    const a = writeHar(tmp, 'twice-a.har', entries);
    // the second recorder saw the same calls a few milliseconds later
    const copy = structuredClone(entries).map((e) => ({
      ...e,
      startedDateTime: new Date(Date.parse(e.startedDateTime) + 3).toISOString(),
    }));
    const both = verdict([a, writeHar(tmp, 'twice-b.har', copy)]);
    expect(both.v.duplicates).toBe(entries.length);
    expect(decided(both.r)).toEqual(decided(once.r));
    expect(both.r.counts.failed).toBe(0);
  });
});

const upsert = '/api/Quotes/Proposals/7/Schedules/ProposalLocation/UpsertMulti';
const failure = (n: number) => ({
  IsSuccessful: false,
  RecordID: 0,
  OrderNumber: n,
  Message: 'LocationName is required',
  Warnings: null,
});
const bind = (status: string) => ({
  ProposalID: 3,
  Status: status,
  ErrorMessage: null,
  PolicyID: status === 'Bound' ? 12 : null,
  MemberID: status === 'Bound' ? 5 : null,
  PolicyNumber: status === 'Bound' ? 'P-12' : null,
  MemberName: status === 'Bound' ? 'M' : null,
  BoundDateUTC: status === 'Bound' ? '2026-01-01T00:00:00Z' : null,
});
const rows2 = (second: 'asc' | 'desc') => ({
  List:
    second === 'asc'
      ? [
          { A: 2, B: 1 },
          { A: 2, B: 5 },
          { A: 1, B: 3 },
        ]
      : [
          { A: 2, B: 5 },
          { A: 2, B: 1 },
          { A: 1, B: 3 },
        ],
});

describe('faults the recording plainly shows', () => {
  it('an atomic batch naming OrderNumber 0 for the item 1 that lacks LocationName fails SCHED-003', () => {
    const body = { Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'X' } }], Updates: [], Deletes: [] };
    const wrong = judge([
      entry('POST', `${upsert}?isAtomic=true`, 200, { Inserts: [failure(0)], Updates: [], Deletes: [] }, { body }),
    ]);
    expect(result(wrong.r, 'SCHED-003')).toBe('failed');
    const right = judge([
      entry('POST', `${upsert}?isAtomic=true`, 200, { Inserts: [failure(1)], Updates: [], Deletes: [] }, { body }),
    ]);
    expect(result(right.r, 'SCHED-003')).toBe('passed');
    expect(right.r.counts.failed).toBe(0);
  });

  it('BindStatus Bound, then NotBound on the very next read, fails BIND-003', () => {
    const bs = '/api/Quotes/Proposals/3/BindStatus';
    expect(
      result(judge([entry('GET', bs, 200, bind('Bound')), entry('GET', bs, 200, bind('NotBound'))]).r, 'BIND-003'),
    ).toBe('failed');
    const ok = judge([
      entry('GET', bs, 200, bind('NotBound')),
      entry('GET', bs, 200, bind('Bound')),
      entry('GET', bs, 200, bind('Bound')),
    ]);
    expect(result(ok.r, 'BIND-003')).toBe('passed');
    expect(ok.r.counts.failed).toBe(0);
  });

  it('a successful Reinstate, then a 404 for that record, fails SCHED-021', () => {
    const rec = (id: number) =>
      entry('GET', `/api/ProposalLocation/${id}`, 200, {
        Record: { LocationName: 'A' },
        Domain: 'ProposalLocation',
        Id: id,
      });
    const reinstate = entry('POST', '/api/Quotes/Proposals/8/Schedules/ProposalLocation/40/Reinstate', 200, {
      IsSuccessful: true,
      RecordID: 40,
      OrderNumber: null,
      Message: 'reinstated',
      Warnings: null,
    });
    const lost = judge([rec(41), reinstate, entry('GET', '/api/ProposalLocation/40', 404, { Message: 'not found' })]);
    expect(result(lost.r, 'SCHED-021')).toBe('failed');
    const back = judge([rec(41), structuredClone(reinstate), rec(40)]);
    expect(result(back.r, 'SCHED-021')).toBe('passed');
    expect(back.r.counts.failed).toBe(0);
  });

  it('a two-column sort is judged as the one-column sort: the second column in the wrong direction fails QRY-024', () => {
    const q = '/api/Claim/Query?columns=A,B&sort=A desc,B asc';
    expect(result(judge([entry('GET', q, 200, rows2('desc'))]).r, 'QRY-024')).toBe('failed');
    const ok = judge([entry('GET', q, 200, rows2('asc'))]);
    expect(result(ok.r, 'QRY-024')).toBe('passed');
    expect(ok.r.counts.failed).toBe(0);
  });

  it('overlapping file pages fail FILE-022, not QRY-006', () => {
    const page = (skip: number, ids: number[]) =>
      entry('GET', `/api/File/Query?columns=FileID&sort=FileID desc&take=2&skip=${skip}&filter=x`, 200, {
        List: ids.map((FileID) => ({ FileID })),
      });
    const r = judge([page(0, [9, 8]), page(2, [8, 7])]).r;
    expect(result(r, 'FILE-022')).toBe('failed');
    expect(result(r, 'QRY-006')).toBe('not-applicable');
  });

  it('pages without an ID column: a column the whole filtered set shows distinct tells an overlap (QRY-006)', () => {
    const base = '/api/Claim/Query?filter=f&columns=Amount';
    const all = entry('GET', `${base}&take=100&skip=0`, 200, { List: [1, 2, 3, 4].map((Amount) => ({ Amount })) });
    const page = (skip: number, v: number[]) =>
      entry('GET', `${base}&sort=Amount asc&take=2&skip=${skip}`, 200, { List: v.map((Amount) => ({ Amount })) });
    expect(result(judge([all, page(0, [1, 2]), page(2, [2, 3])]).r, 'QRY-006')).toBe('failed');
    expect(result(judge([structuredClone(all), page(0, [1, 2]), page(2, [3, 4])]).r, 'QRY-006')).toBe('passed');
    // without the complete answer a shared value may be two records: not judged
    expect(result(judge([page(0, [1, 2]), page(2, [2, 3])]).r, 'QRY-006')).toBe('not-applicable');
  });

  it('the 100th record lost at take above 100 fails QRY-004 when the total count shows it exists', () => {
    const q = '/api/Claim/Query?columns=ClaimID&take=150&includeTotalCount=true';
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ ClaimID: i + 1 }));
    expect(result(judge([entry('GET', q, 200, { List: rows(99), TotalCount: 120 })]).r, 'QRY-004')).toBe('failed');
    expect(result(judge([entry('GET', q, 200, { List: rows(100), TotalCount: 120 })]).r, 'QRY-004')).toBe('passed');
  });

  it('AUTH-003 is judged on authentication alone: a Contents mix-up is FILE-010, a request without the token is not judged', () => {
    const mixed = judge([
      entry('GET', '/api/File/5?columns=FileSize,Contents', 200, {
        Record: { FileSize: 4, Contents: Buffer.from('abc').toString('base64') },
        Domain: 'File',
        Id: 5,
      }),
    ]);
    expect(result(mixed.r, 'FILE-010')).toBe('failed');
    expect(result(mixed.r, 'AUTH-003')).toBe('passed');
    const bare = entry('GET', '/api/File/5?columns=Contents', 200, {
      Record: { Contents: 'YWJj' },
      Domain: 'File',
      Id: 5,
    });
    bare.request.headers = bare.request.headers.filter((h) => h.name !== 'Token');
    expect(result(judge([bare]).r, 'AUTH-003')).toBe('not-applicable');
    const refused = judge([
      entry('GET', '/api/File/5?columns=FileName', 200, { Record: { FileName: 'a.txt' }, Domain: 'File', Id: 5 }),
      entry('GET', '/api/File/5?columns=FileName,Contents', 403, { title: 'Forbidden' }),
    ]);
    expect(result(refused.r, 'AUTH-003')).toBe('failed');
  });

  it('pages each in order but not together fail QRY-006; pages that join in order pass', () => {
    const page = (skip: number, v: number[]) =>
      entry('GET', `/api/Claim/Query?filter=f&columns=ClaimID&sort=ClaimID asc&take=3&skip=${skip}`, 200, {
        List: v.map((ClaimID) => ({ ClaimID })),
      });
    expect(result(judge([page(0, [1, 4, 5]), page(3, [2, 3, 6])]).r, 'QRY-006')).toBe('failed');
    const ok = judge([page(0, [1, 2, 3]), page(3, [4, 5, 6])]);
    expect(result(ok.r, 'QRY-006')).toBe('passed');
    expect(ok.r.counts.failed).toBe(0);
  });

  it('a query without a start offset answering other records than start offset 0 fails QRY-007', () => {
    const q = (skip: string, v: number[]) =>
      entry('GET', `/api/Claim/Query?filter=f&columns=ClaimID&sort=ClaimID asc&take=2${skip}`, 200, {
        List: v.map((ClaimID) => ({ ClaimID })),
      });
    expect(result(judge([q('&skip=0', [1, 2]), q('', [2, 3])]).r, 'QRY-007')).toBe('failed');
    expect(result(judge([q('&skip=0', [1, 2]), q('', [1, 2])]).r, 'QRY-007')).toBe('passed');
    // an empty answer may come before the filter's records were written (by a provider state, unrecorded)
    expect(result(judge([q('&skip=0', []), q('', [1, 2])]).r, 'QRY-007')).toBe('not-applicable');
  });

  it('Contents that is not base64 fails FILE-010 without a FileSize; an attached file shown unlinked fails FILE-006', () => {
    const raw = judge([
      entry('GET', '/api/File/5?columns=Contents', 200, {
        Record: { Contents: 'hello, world' },
        Domain: 'File',
        Id: 5,
      }),
    ]);
    expect(result(raw.r, 'FILE-010')).toBe('failed');
    expect(result(raw.r, 'FILE-002')).toBe('not-applicable');
    const listing = (u: boolean) =>
      entry('GET', '/api/Claim/3/Files?columns=FileID,IsUnlinked', 200, { List: [{ FileID: 5, IsUnlinked: u }] });
    expect(result(judge([listing(true)]).r, 'FILE-006')).toBe('failed');
    expect(result(judge([listing(false)]).r, 'FILE-006')).toBe('passed');
  });

  it('pages that are not slices of the whole ordered answer fail QRY-006 (QRY-007 without a start offset)', () => {
    const q = (extra: string, v: number[]) =>
      entry('GET', `/api/Claim/Query?filter=f&columns=Amount&sort=Amount desc${extra}`, 200, {
        List: v.map((Amount) => ({ Amount })),
      });
    const whole = () => q('&take=10', [9, 7, 5, 3, 1]);
    const bad = judge([whole(), q('&take=2&skip=0', [9, 7]), q('&take=2&skip=2', [7, 3])]);
    expect(result(bad.r, 'QRY-006')).toBe('failed');
    expect(result(judge([whole(), q('&take=2', [7, 5])]).r, 'QRY-007')).toBe('failed');
    const ok = judge([whole(), q('&take=2&skip=0', [9, 7]), q('&take=2&skip=2', [5, 3]), q('&take=2&skip=4', [1])]);
    expect(result(ok.r, 'QRY-006')).toBe('passed');
    expect(ok.r.counts.failed).toBe(0);
    // a whole answer as long as its take is whole when an unsorted answer of the filter counted the set
    const count = entry('GET', '/api/Claim/Query?filter=f&columns=Amount&take=100&skip=0', 200, {
      List: [1, 3, 5].map((Amount) => ({ Amount })),
    });
    const full = (v: number[]) => q('&take=3', v);
    expect(result(judge([count, full([5, 3, 1]), q('&take=2&skip=1', [5, 3])]).r, 'QRY-006')).toBe('failed');
    expect(result(judge([structuredClone(count), full([5, 3, 1]), q('&take=2&skip=1', [3, 1])]).r, 'QRY-006')).toBe(
      'passed',
    );
    // a tie on the sort leaves the order of the tied records open: not judged
    const tied = judge([q('&take=10', [9, 7, 7, 1]), q('&take=2&skip=2', [7, 9])]);
    expect(tied.v.judgements.filter((j) => j.rule === 'pages_are_slices_of_the_whole')).toEqual([]);
  });

  it('a link row without an undocumented column asked for is not judged for it; a documented one missing fails COL-001', () => {
    const q = '/api/Link/Query?childDomain=Contact&childRecordID=9&columns=ParentID,ContactTypeID';
    const left = judge([entry('GET', q, 200, { List: [{ ParentID: 4 }] })]);
    expect(left.r.counts.failed).toBe(0);
    expect(result(judge([entry('GET', q, 200, { List: [{ ContactTypeID: 4 }] })]).r, 'COL-001')).toBe('failed');
  });
});

describe('a write between two answers may explain their difference', () => {
  // the --profile all run of the reference (all.har #4764, #4824, #4973): a batch of the proposal between the counts
  const counted = '/api/ProposalLocation/Query?filter=ProposalID%3Aeq%3A145&includeTotalCount=true&take=1';
  const page = (total: number) =>
    entry('GET', counted, 200, { List: [{ ProposalLocationID: 255 }], TotalCount: total });
  const inserted = (id: number) => ({
    IsSuccessful: true,
    RecordID: id,
    OrderNumber: 0,
    Message: `Inserted schedule with id ${id} successfully.`,
    Warnings: null,
  });
  const batch = () =>
    entry(
      'POST',
      '/api/Quotes/Proposals/145/Schedules/ProposalLocation/UpsertMulti',
      200,
      { Inserts: [inserted(283)], Updates: [], Deletes: [] },
      { body: { Inserts: [{ Fields: { LocationName: 'Fits 0' } }], Updates: [], Deletes: [] } },
    );

  it('a schedule batch of the domain between two answers of one query: their total counts are not compared (QRY-014)', () => {
    const grown = judge([page(2), page(2), batch(), page(99)]);
    expect(result(grown.r, 'QRY-014')).not.toBe('failed');
    expect(grown.r.counts.failed).toBe(0);
    // the two answers before the batch are still pages of one set
    expect(grown.v.judgements.filter((j) => j.rule === 'total_count_across_pages').map((j) => j.ok)).toEqual([true]);
  });

  it('a total count that changes with no write between still fails QRY-014', () => {
    expect(result(judge([page(2), page(99)]).r, 'QRY-014')).toBe('failed');
    // a batch of another domain writes no record of this one
    const other = entry(
      'POST',
      '/api/Quotes/Proposals/145/Schedules/ProposalVehicle/UpsertMulti',
      200,
      { Inserts: [inserted(7)], Updates: [], Deletes: [] },
      { body: { Inserts: [{ Fields: { VIN: 'x' } }], Updates: [], Deletes: [] } },
    );
    expect(result(judge([page(2), other, page(99)]).r, 'QRY-014')).toBe('failed');
  });

  // the --profile all run of the reference (all.har #2679, #2690, #2701): the Remove names contact 92 by its Email
  const upsert = { ParentDomain: 'Claim', ParentRecordID: 778, ChildDomain: 'Contact', ChildRecordID: 92 };
  const byKey = {
    ...upsert,
    ChildRecordID: undefined,
    ChildRecordKey: 'c92@example.com',
    ChildRecordMatchField: 'Email',
  };
  const query = '/api/Link/Query?childDomain=Contact&childRecordID=92&columns=ParentDomainID,ParentID,ChildID';

  it('a Link/Remove naming the child by match field between an Upsert and the Query may have removed the link (LINK-013)', () => {
    const r = judge([
      entry('POST', '/api/Link/Upsert', 200, { IsSuccessful: true, LinkID: 374 }, { body: upsert }),
      entry('POST', '/api/Link/Remove', 200, { IsSuccessful: true }, { body: byKey }),
      entry('GET', query, 200, { List: [] }),
    ]).r;
    expect(result(r, 'LINK-013')).not.toBe('failed');
    expect(r.counts.failed).toBe(0);
  });

  it('an upserted link the Query does not list, with no write between, still fails LINK-013', () => {
    const lost = [
      entry('POST', '/api/Link/Upsert', 200, { IsSuccessful: true, LinkID: 374 }, { body: upsert }),
      entry('GET', query, 200, { List: [] }),
    ];
    expect(result(judge(lost).r, 'LINK-013')).toBe('failed');
    // a Remove by match field of another child domain cannot have touched it
    const file = { ...byKey, ChildDomain: 'File', ChildRecordMatchField: 'FileName' };
    const [u, q] = lost;
    const r = judge([u, entry('POST', '/api/Link/Remove', 200, { IsSuccessful: true }, { body: file }), q]).r;
    expect(result(r, 'LINK-013')).toBe('failed');
  });
});

describe('a total count in a header with no binding set, as the suite finds it (model/not-shown-shapes.ts)', () => {
  // a filtered query: its pages are held to one total (total_count_across_pages)
  const q = '/api/Claim/Query?filter=Status%3Aeq%3AOpen&columns=ClaimID&includeTotalCount=true&take=2';
  let at = Date.parse('2026-01-02T00:00:00Z');
  const page = (total: string) =>
    harEntry({
      startedMs: (at += 10),
      ms: 3,
      method: 'GET',
      url: `http://vendor.test${q}`,
      requestHeaders: { accept: 'application/json', Token: 'sekret-token-123456' },
      status: 200,
      responseHeaders: { 'content-type': 'application/json', 'x-total-count': total },
      responseBody: JSON.stringify({ List: [{ ClaimID: 1 }, { ClaimID: 2 }] }),
    });

  it('X-Total-Count is the total count: QRY-014 passes, on one answer and across answers of one query', () => {
    const { v, r } = judge([page('5'), page('5')]);
    expect(result(r, 'QRY-014')).toBe('passed');
    expect(r.counts.failed).toBe(0);
    expect(v.judgements.filter((j) => j.rule === 'total_count_across_pages').map((j) => j.ok)).toEqual([true]);
  });

  it('a header count below the records shown, or two counts for one query, still fails QRY-014', () => {
    expect(result(judge([page('1')]).r, 'QRY-014')).toBe('failed');
    expect(result(judge([page('5'), page('7')]).r, 'QRY-014')).toBe('failed');
  });
});
