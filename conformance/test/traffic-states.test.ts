// verify-traffic reads the provider-state calls of a recorded suite run as evidence of what the
// implementation holds (issue 34): a proposal set up not modifiable must refuse schedule writes
// (PROP-002/003/004, PROP-005, SCHED-018); a record deleted on a Quote-like proposal is gone
// (SCHED-022); a non-atomic batch on a proposal set up modifiable lists every item even when none
// succeeded (SCHED-012). Without the state calls, or where something between may explain the
// answer, the same exchanges decide nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HarEntry } from '../src/traffic/har.js';
import type { RunResults } from '../src/report/results.js';
import { entry, judgeHars, writeHar } from './helpers/har.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-traffic-states-'));

function judge(entries: HarEntry[]): RunResults {
  return judgeHars([writeHar(tmp, `s${crypto.randomUUID()}.har`, entries)]).r;
}
const result = (r: RunResults, id: string) => r.requirements.find((q) => q.id === id)!.result;
const failed = (r: RunResults) =>
  r.requirements
    .filter((q) => q.result === 'failed')
    .map((q) => q.id)
    .sort();

const setupId = () => `t-${crypto.randomUUID().slice(0, 8)}`;
/** The setup entry, and the teardown's (made when called, so that it is recorded after what comes before it). */
function proposal(id: number, params: Record<string, unknown>, locationIds = [11, 12]): [HarEntry, () => HarEntry] {
  const sid = setupId();
  const body = { state: 'a proposal', action: 'setup', params: { setupId: sid, locations: 2, ...params } };
  return [
    entry(
      'POST',
      '/_provider-states',
      200,
      {
        protocol: '1.1.0',
        proposalId: id,
        type: params.type,
        scheduleDomain: 'ProposalLocation',
        requiredField: 'LocationName',
        otherScheduleDomain: 'ProposalVehicle',
        locationIds,
        applicantName: 'A',
        memberId: null,
      },
      { body },
    ),
    () => entry('POST', '/_provider-states', 200, {}, { body: { ...body, action: 'teardown' } }),
  ];
}
const result1 = (ok: boolean, id: number, order: number | null = 0, pid = 7) => ({
  IsSuccessful: ok,
  RecordID: ok ? id : 0,
  OrderNumber: order,
  Message: ok ? 'done' : `The proposal with ID ${pid} cannot be modified.`,
  Warnings: null,
});
const upsert = (pid: number, q = '') => `/api/Quotes/Proposals/${pid}/Schedules/ProposalLocation/UpsertMulti${q}`;
const batch = { Inserts: [], Updates: [{ ID: 11, Fields: { City: 'Z' } }], Deletes: [] };

describe('provider-state evidence', () => {
  it('a proposal set up not modifiable: a successful write fails the cause and PROP-005 / SCHED-018; a refusal passes', () => {
    const [setup, teardown] = proposal(7, { type: 'Quote', status: 'B' });
    const bad = judge([
      setup,
      entry('POST', upsert(7), 200, { Inserts: [], Updates: [result1(true, 11)], Deletes: [] }, { body: batch }),
      entry('DELETE', '/api/Quotes/Proposals/7/Schedules/ProposalLocation/12', 200, result1(true, 12, null)),
      teardown(),
    ]);
    expect(failed(bad)).toEqual(['PROP-002', 'PROP-005', 'SCHED-018']);
    const [s2, t2] = proposal(8, { type: 'Quote', boundSet: true });
    const good = judge([
      s2,
      entry('POST', upsert(8), 200, { Inserts: [], Updates: [result1(false, 11, 0, 8)], Deletes: [] }, { body: batch }),
      entry('DELETE', '/api/Quotes/Proposals/8/Schedules/ProposalLocation/12', 200, result1(false, 0, null, 8)),
      t2(),
    ]);
    expect(failed(good)).toEqual([]);
    expect(result(good, 'PROP-003')).toBe('passed');
    expect(result(good, 'PROP-005')).toBe('passed');
    // the same writes after the teardown, or without the state call: not judged
    const outside = judge([
      setup,
      teardown(),
      entry('POST', upsert(7), 200, { Inserts: [], Updates: [result1(true, 11)], Deletes: [] }, { body: batch }),
    ]);
    expect(result(outside, 'PROP-002')).toBe('not-applicable');
    expect(failed(outside)).toEqual([]);
  });

  it('a record deleted on a Quote proposal and read back fails SCHED-022; a 404 passes; a setup between leaves it unjudged', () => {
    const [setup, teardown] = proposal(9, { type: 'Quote' }, [20, 21]);
    const del = () =>
      entry('DELETE', '/api/Quotes/Proposals/9/Schedules/ProposalLocation/20', 200, result1(true, 20, null));
    const read = (status: number) =>
      entry(
        'GET',
        '/api/ProposalLocation/20?columns=LocationName',
        status,
        status === 200
          ? { Record: { LocationName: 'L' }, Domain: 'ProposalLocation', Id: 20 }
          : { Message: 'not found' },
      );
    expect(failed(judge([setup, del(), read(200), teardown()]))).toEqual(['SCHED-022']);
    expect(result(judge([setup, del(), read(404), teardown()]), 'SCHED-022')).toBe('passed');
    // an Endorsement's delete is soft: what a read shows then is not stated
    const [es, et] = proposal(10, { type: 'Endorsement' }, [20, 21]);
    const soft = judge([
      es,
      entry('DELETE', '/api/Quotes/Proposals/10/Schedules/ProposalLocation/20', 200, result1(true, 20, null)),
      read(200),
      et(),
    ]);
    expect(result(soft, 'SCHED-022')).toBe('not-applicable');
    // a state that may create records between the delete and the read: the ID may have been issued again
    const records = () =>
      entry(
        'POST',
        '/_provider-states',
        200,
        { protocol: '1.1.0', ids: [20] },
        {
          body: { state: 'records', action: 'setup', params: { setupId: setupId(), domain: 'ProposalLocation' } },
        },
      );
    expect(result(judge([setup, del(), records(), read(200), teardown()]), 'SCHED-022')).toBe('not-applicable');
  });

  it('a non-atomic batch with no success lists every item on a proposal set up modifiable, not judged without the state', () => {
    const [setup, teardown] = proposal(11, { type: 'Renewal' }, [30, 31]);
    const two = {
      Inserts: [{ Fields: { City: 'X' } }, { Fields: { City: 'Y', LocationName: 'Q' } }],
      Updates: [],
      Deletes: [],
    };
    const onlyFailed = {
      Inserts: [
        { IsSuccessful: false, RecordID: 0, OrderNumber: 0, Message: 'LocationName is required.', Warnings: null },
      ],
      Updates: [],
      Deletes: [],
    };
    const x = () => entry('POST', upsert(11, '?isAtomic=false'), 200, onlyFailed, { body: two });
    expect(failed(judge([setup, x(), teardown()]))).toEqual(['SCHED-012']);
    expect(result(judge([x()]), 'SCHED-012')).toBe('not-applicable');
    const [ns, nt] = proposal(12, { type: 'Renewal', status: 'R' });
    const refused = entry('POST', upsert(12, '?isAtomic=false'), 200, onlyFailed, { body: two });
    expect(result(judge([ns, refused, nt()]), 'SCHED-012')).toBe('not-applicable');
  });

  it("a proposal's records read back whole follow what each write's answer says it did", () => {
    const [setup, teardown] = proposal(13, { type: 'Quote' }, [40, 41]);
    const readBack = (ids: number[]) =>
      entry(
        'GET',
        `/api/ProposalLocation/Query?filter=${encodeURIComponent('ProposalID:eq:13')}&columns=ProposalLocationID,LocationName&take=100`,
        200,
        { List: ids.map((id) => ({ ProposalLocationID: id, LocationName: `L${id}` })) },
      );
    const atomicFailed = () =>
      entry(
        'POST',
        upsert(13, '?isAtomic=true'),
        200,
        {
          Inserts: [
            { IsSuccessful: false, RecordID: 0, OrderNumber: 1, Message: 'LocationName is required.', Warnings: null },
          ],
          Updates: [],
          Deletes: [],
        },
        { body: { Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'B' } }], Updates: [], Deletes: [] } },
      );
    const values = (p: HarEntry) => {
      const b = JSON.parse(p.response.content.text!) as Record<string, unknown>;
      p.response.content.text = JSON.stringify({
        ...b,
        scheduleFilter: 'ProposalID:eq:13',
        scheduleKey: 'ProposalLocationID',
      });
      return p;
    };
    values(setup);
    // the failed atomic batch kept its valid insert (42): SCHED-014
    const kept = judge([setup, readBack([40, 41]), atomicFailed(), readBack([40, 41, 42]), teardown()]);
    expect(failed(kept)).toEqual(['SCHED-014']);
    const rolledBack = judge([setup, readBack([40, 41]), atomicFailed(), readBack([40, 41]), teardown()]);
    expect(result(rolledBack, 'SCHED-014')).toBe('passed');
    expect(failed(rolledBack)).toEqual([]);
    // a soft delete's effect is not stated: nothing judged until a read starts again
    const [es, et] = proposal(14, { type: 'Endorsement' }, [40, 41]);
    values(es);
    const soft = judge([
      es,
      entry('DELETE', '/api/Quotes/Proposals/14/Schedules/ProposalLocation/41', 200, result1(true, 41, null)),
      readBack([40, 41]),
      et(),
    ]);
    expect(failed(soft)).toEqual([]);
  });

  it('a "records" state\'s filter selects exactly its records; its LINQ filter those at odd positions short of the last', () => {
    const sid = setupId();
    const body = { state: 'records', action: 'setup', params: { setupId: sid, count: 5, domain: 'Claim' } };
    const setup = () =>
      entry(
        'POST',
        '/_provider-states',
        200,
        { protocol: '1.1.0', domain: 'Claim', ids: [1, 2, 3, 4, 5], filter: 'Tag:eq:t1', linqFilter: 'x => x.Odd' },
        { body },
      );
    const teardown = () => entry('POST', '/_provider-states', 200, {}, { body: { ...body, action: 'teardown' } });
    const query = (q: string, n: number, total?: number) =>
      entry('GET', `/api/Claim/Query?${q}&columns=ClaimID`, 200, {
        List: Array.from({ length: n }, (_, i) => ({ ClaimID: i + 1 })),
        ...(total !== undefined ? { TotalCount: total } : {}),
      });
    const good = judge([
      setup(),
      query('filter=Tag%3Aeq%3At1&includeTotalCount=true', 5, 5),
      query('linqFilter=x%20%3D%3E%20x.Odd', 2),
      teardown(),
    ]);
    expect(result(good, 'QRY-009')).toBe('passed');
    expect(result(good, 'QRY-010')).toBe('passed');
    expect(result(good, 'QRY-014')).toBe('passed');
    const bad = judge([
      setup(),
      query('filter=Tag%3Aeq%3At1&includeTotalCount=true', 9, 9),
      query('linqFilter=x%20%3D%3E%20x.Odd', 5),
      teardown(),
    ]);
    expect(failed(bad)).toEqual(['QRY-009', 'QRY-010', 'QRY-014']);
    // take at or below the number selected: the take rules' to judge, not the filter's
    const cut = judge([setup(), query('filter=Tag%3Aeq%3At1&take=3', 2), teardown()]);
    expect(result(cut, 'QRY-009')).toBe('not-applicable');
  });

  it("an update through one proposal of another proposal's record answered successful fails SCHED-010", () => {
    const [a, at] = proposal(15, { type: 'Quote' }, [50, 51]);
    const [b, bt] = proposal(16, { type: 'Quote' }, [60, 61]);
    const foreign = (ok: boolean) =>
      entry(
        'POST',
        upsert(15, '?isAtomic=false'),
        200,
        { Inserts: [], Updates: [{ ...result1(ok, 60), RecordID: 60 }], Deletes: [] },
        { body: { Inserts: [], Updates: [{ ID: 60, Fields: { City: 'Q' } }], Deletes: [] } },
      );
    expect(failed(judge([a, b, foreign(true), at(), bt()]))).toEqual(['SCHED-010']);
    expect(result(judge([a, b, foreign(false), at(), bt()]), 'SCHED-010')).toBe('passed');
  });

  it("files a state created answer their size and link state; a parent's listing is exactly its files, none of its twin's", () => {
    const body = {
      state: 'a record with files',
      action: 'setup',
      params: {
        setupId: setupId(),
        domain: 'Claim',
        files: [{ fileName: 'a.txt', contentsBase64: Buffer.from('abcdef').toString('base64') }],
        twinDomain: 'Incident',
        twinFiles: [{ fileName: 't.txt', contentsBase64: 'dA==' }],
      },
    };
    const setup = () =>
      entry(
        'POST',
        '/_provider-states',
        200,
        { protocol: '1.1.0', domain: 'Claim', id: 3, fileIds: [70], twinDomain: 'Incident', twinFileIds: [71] },
        { body },
      );
    const teardown = () => entry('POST', '/_provider-states', 200, {}, { body: { ...body, action: 'teardown' } });
    const files = (rows: Array<Record<string, unknown>>) =>
      entry('GET', '/api/File/Query?columns=FileID,FileSize,IsUnlinked', 200, { List: rows });
    const listing = (ids: number[]) =>
      entry('GET', '/api/Claim/3/Files?columns=FileID,FileName&take=10', 200, {
        List: ids.map((id) => ({ FileID: id, FileName: `${id}.txt` })),
      });
    const good = judge([setup(), files([{ FileID: 70, FileSize: 6, IsUnlinked: false }]), listing([70]), teardown()]);
    expect(failed(good)).toEqual([]);
    for (const id of ['FILE-002', 'FILE-006', 'FILE-007', 'LINK-021']) expect(result(good, id), id).toBe('passed');
    const bad = judge([setup(), files([{ FileID: 70, FileSize: 8, IsUnlinked: true }]), listing([70, 71]), teardown()]);
    expect(failed(bad)).toEqual(['FILE-002', 'FILE-006', 'LINK-021']);
    expect(failed(judge([setup(), listing([]), teardown()]))).toEqual(['FILE-007']);
    // a link write on a file since the setup: the link state is no longer the state's
    const linkWrite = () =>
      entry(
        'POST',
        '/api/Link/Remove',
        200,
        { IsSuccessful: true, Message: 'removed' },
        {
          body: { ParentDomain: 'Claim', ParentRecordID: 3, ChildDomain: 'File', ChildRecordID: 70 },
        },
      );
    const after = judge([
      setup(),
      linkWrite(),
      files([{ FileID: 70, FileSize: 6, IsUnlinked: true }]),
      listing([]),
      teardown(),
    ]);
    expect(failed(after)).toEqual([]);
  });

  it('a link upserted twice with one relationship and listed twice fails LINK-014; listed once passes', () => {
    const up = () =>
      entry(
        'POST',
        '/api/Link/Upsert',
        200,
        { IsSuccessful: true, LinkID: 1, ParentRecordID: 5, ChildRecordID: 6, Message: null },
        {
          body: {
            ParentDomain: 'Claim',
            ParentRecordID: 5,
            ChildDomain: 'Contact',
            ChildRecordID: 6,
            Relationship: 'ADJ',
          },
        },
      );
    const q = (n: number) =>
      entry(
        'GET',
        '/api/Link/Query?childDomain=Contact&childRecordID=6&columns=ParentDomainID,ParentID,ChildDomainID,ChildID',
        200,
        {
          List: Array.from({ length: n }, () => ({ ParentDomainID: 1, ParentID: 5, ChildDomainID: 2, ChildID: 6 })),
        },
      );
    expect(failed(judge([up(), up(), q(2)]))).toEqual(['LINK-014']);
    expect(result(judge([up(), up(), q(1)]), 'LINK-014')).toBe('passed');
  });

  it('a file linked by a successful Link/Upsert and read back IsUnlinked true fails FILE-006, unless a removal came between', () => {
    const link = () =>
      entry(
        'POST',
        '/api/Link/Upsert',
        200,
        { IsSuccessful: true, LinkID: 2, ParentRecordID: 1, ChildRecordID: 9, Message: null },
        {
          body: { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'File', ChildRecordID: 9 },
        },
      );
    const read = (v: boolean) =>
      entry('GET', '/api/File/9?columns=IsUnlinked', 200, { Record: { IsUnlinked: v }, Domain: 'File', Id: 9 });
    const remove = () =>
      entry(
        'POST',
        '/api/Link/Remove',
        200,
        { IsSuccessful: true, Message: 'removed' },
        {
          body: { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'File', ChildRecordID: 9 },
        },
      );
    expect(failed(judge([link(), read(true)]))).toEqual(['FILE-006']);
    expect(result(judge([link(), read(false)]), 'FILE-006')).toBe('passed');
    expect(result(judge([link(), remove(), read(true)]), 'FILE-006')).toBe('not-applicable');
  });
});
