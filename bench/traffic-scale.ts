// How verify-traffic scales with the recording (issue 34): a generated HAR of a long session (a
// page's calls of the interface, repeated: domains, paged and sorted queries with the total count,
// single reads, files with Contents, link upserts and queries, atomic and non-atomic UpsertMulti,
// BindStatus, delete and reinstate), judged by verifyTrafficFiles (what `verify-traffic` runs).
// Prints entries, megabytes, seconds and the process's peak RSS; the goal is 33,000 entries in at
// most 15 s and 300 MB. The HAR is of a correct server: the run also checks that nothing failed.
//   npx tsx bench/traffic-scale.ts [--entries 33000] [--keep file.har]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { harEntry, harLog, type HarEntry } from '../conformance/src/traffic/har.js';
import { verifyTrafficFiles } from '../conformance/src/traffic/verify-files.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '33000' },
    keep: { type: 'string' },
    har: { type: 'string' },
    help: { type: 'boolean' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: npx tsx bench/traffic-scale.ts [--entries 33000] [--keep file.har]   generate a HAR, judge it in a child process\n' +
      '       npx tsx bench/traffic-scale.ts --har file.har                        judge a HAR (its time and peak RSS alone)\n',
  );
  process.exit(0);
}
if (values.har) {
  const t0 = performance.now();
  const v = verifyTrafficFiles([values.har]);
  const s = (performance.now() - t0) / 1000;
  const rss = process.resourceUsage().maxRSS / 1024;
  const mb = fs.statSync(values.har).size / 1e6;
  process.stdout.write(
    `traffic-scale: ${v.entries} entries (${mb.toFixed(1)} MB), ${v.exchanges} exchanges judged in ${s.toFixed(2)} s; peak RSS ${rss.toFixed(0)} MB; ` +
      `${v.results.counts.passed} passed, ${v.results.counts.failed} failed; ${v.observed.observed} of ${v.observed.testable} observed\n`,
  );
  process.exit(v.results.counts.failed === 0 ? 0 : 1);
}
const target = Number(values.entries);

let clock = Date.parse('2026-01-01T00:00:00Z');
const base = 'http://vendor.test';
function e(method: string, url: string, status: number, body: unknown, reqBody?: unknown): HarEntry {
  clock += 7;
  return harEntry({
    startedMs: clock,
    ms: 4,
    method,
    url: base + url,
    requestHeaders: { accept: 'application/json', Token: 'bench-token-0123456789' },
    ...(reqBody !== undefined ? { requestBody: JSON.stringify(reqBody) } : {}),
    status,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify(body),
  });
}

const bytes = Buffer.alloc(1500, 7);
const claims = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    ClaimID: from + i,
    ClaimNumber: `C-${String(from + i).padStart(6, '0')}`,
    ClaimantName: `claimant ${from + i}`,
    ReserveAmount: 1000 + from + i,
  }));

/** One round of a page's session: about 40 calls, each round on its own records. */
function round(r: number): HarEntry[] {
  const out: HarEntry[] = [];
  const filter = `ClaimNumber like 'R${r}%'`;
  const q = (skip: number, take: number) =>
    `/api/Claim/Query?columns=ClaimID,ClaimNumber,ClaimantName,ReserveAmount&filter=${encodeURIComponent(filter)}&sort=ClaimID asc&take=${take}&skip=${skip}&includeTotalCount=true`;
  out.push(
    e('GET', '/api/Domains', 200, {
      List: [{ DomainID: 1, Name: 'Claim', DisplayNameSingular: 'Claim', DisplayNamePlural: 'Claims' }],
    }),
  );
  const first = r * 1000;
  for (let p = 0; p < 4; p++)
    out.push(e('GET', q(p * 10, 10), 200, { List: claims(first + p * 10, 10), TotalCount: 40 }));
  for (let i = 0; i < 6; i++)
    out.push(
      e('GET', `/api/Claim/${first + i}?columns=ClaimID,ClaimNumber`, 200, {
        Record: { ClaimID: first + i, ClaimNumber: `C-${first + i}` },
        Domain: 'Claim',
        Id: first + i,
      }),
    );
  const fileId = 50_000 + r;
  out.push(
    e(
      'GET',
      `/api/File/Query?columns=FileID,FileName,MimeType,FileSize&filter=${encodeURIComponent(`FileID = ${fileId}`)}`,
      200,
      {
        List: [{ FileID: fileId, FileName: 'a.pdf', MimeType: '.pdf', FileSize: bytes.length }],
      },
    ),
  );
  out.push(
    e('GET', `/api/File/${fileId}?columns=FileID,FileSize,Contents`, 200, {
      Record: { FileID: fileId, FileSize: bytes.length, Contents: bytes.toString('base64') },
      Domain: 'File',
      Id: fileId,
    }),
  );
  const link = { ParentDomain: 'Claim', ParentRecordID: first, ChildDomain: 'File', ChildRecordID: fileId };
  const lq = `/api/Link/Query?childDomain=File&childRecordID=${fileId}&columns=ParentDomainID,ParentID`;
  out.push(e('POST', '/api/Link/Upsert', 200, {}, link));
  out.push(e('GET', lq, 200, { List: [{ ParentDomainID: 1, ParentID: first }] }));
  out.push(e('POST', '/api/Link/Remove', 200, {}, link));
  out.push(e('GET', lq, 200, { List: [] }));
  const pid = 9000 + r;
  const um = `/api/Quotes/Proposals/${pid}/Schedules/ProposalLocation/UpsertMulti`;
  const rec = 70_000 + r * 10;
  out.push(
    e(
      'POST',
      um,
      200,
      {
        Inserts: [
          { IsSuccessful: true, RecordID: rec, OrderNumber: 0, Message: 'inserted', Warnings: null },
          { IsSuccessful: false, RecordID: 0, OrderNumber: 1, Message: 'LocationName is required', Warnings: null },
        ],
        Updates: [],
        Deletes: [],
      },
      {
        Inserts: [{ Fields: { LocationName: `L${r}`, City: 'X' } }, { Fields: { City: 'Y' } }],
        Updates: [],
        Deletes: [],
      },
    ),
  );
  const read = () =>
    e('GET', `/api/ProposalLocation/${rec}?columns=LocationName,City`, 200, {
      Record: { LocationName: `L${r}`, City: 'X' },
      Domain: 'ProposalLocation',
      Id: rec,
    });
  out.push(read());
  out.push(
    e(
      'POST',
      `${um}?isAtomic=true`,
      200,
      {
        Inserts: [],
        Updates: [
          { IsSuccessful: false, RecordID: rec, OrderNumber: 1, Message: 'LocationName is required', Warnings: null },
        ],
        Deletes: [],
      },
      {
        Inserts: [],
        Updates: [
          { ID: rec, Fields: { City: 'Z' } },
          { ID: rec, Fields: { LocationName: '' } },
        ],
        Deletes: [],
      },
    ),
  );
  out.push(read());
  const del = `/api/Quotes/Proposals/${pid}/Schedules/ProposalLocation/${rec}`;
  out.push(
    e('DELETE', del, 200, { IsSuccessful: true, RecordID: rec, OrderNumber: null, Message: 'deleted', Warnings: null }),
  );
  out.push(
    e('POST', `${del}/Reinstate`, 200, {
      IsSuccessful: true,
      RecordID: rec,
      OrderNumber: null,
      Message: 'reinstated',
      Warnings: null,
    }),
  );
  out.push(read());
  const bs = `/api/Quotes/Proposals/${pid}/BindStatus`;
  const status = (s: string) => ({
    ProposalID: pid,
    Status: s,
    ErrorMessage: null,
    PolicyID: s === 'Bound' ? 1 : null,
    MemberID: s === 'Bound' ? 2 : null,
    PolicyNumber: s === 'Bound' ? 'P' : null,
    MemberName: s === 'Bound' ? 'M' : null,
    BoundDateUTC: s === 'Bound' ? '2026-01-01T00:00:00Z' : null,
  });
  out.push(e('GET', bs, 200, status('NotBound')));
  out.push(e('POST', `/api/Quotes/Proposals/${pid}/QueueBindQuote`, 200, ''));
  for (let i = 0; i < 4; i++) out.push(e('GET', bs, 200, status('Bound')));
  for (let i = 0; i < 8; i++)
    out.push(
      e('GET', `/api/Claim/Query?columns=ClaimID,ReserveAmount&sort=ReserveAmount desc&take=5&skip=${i * 5}`, 200, {
        List: claims(first + 100 - i * 5 - 5, 5)
          .reverse()
          .map(({ ClaimID, ReserveAmount }) => ({ ClaimID, ReserveAmount })),
      }),
    );
  return out;
}

const entries: HarEntry[] = [];
for (let r = 0; entries.length < target; r++) entries.push(...round(r));
entries.length = target;
const file = values.keep ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'traffic-scale-')), 'session.har');
fs.writeFileSync(file, JSON.stringify(harLog(entries, 'bench')));
const mb = fs.statSync(file).size / 1e6;
entries.length = 0;
process.stdout.write(`traffic-scale: generated ${target} entries (${mb.toFixed(1)} MB) in ${file}\n`);
// judged in a process of its own, so that its peak RSS is the verifier's, not the generator's
const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--har', file], {
  stdio: 'inherit',
});
if (!values.keep) fs.rmSync(path.dirname(file), { recursive: true, force: true });
process.exitCode = child.status ?? 1;
