// Each fault's rewrite on canned exchanges (table-driven): the request the upstream receives and the
// answer the client gets are changed as the fault intends. No network: `next` and the side requests
// of the fault context are stubs.
import { describe, expect, it, vi } from 'vitest';
import { FAULTS, faultByName } from '../faults/catalogue/index.js';
import type { FaultContext, SideResponse } from '../faults/fault.js';
import {
  bodyJson,
  makeRequest,
  makeResponse,
  parseColumns,
  problem,
  jsonString,
  type Grants,
  type ProxyRequest,
  type ProxyResponse,
} from '../faults/exchange.js';

// ------------------------------------------------------------------------------------ harness

type Upstream = ProxyResponse | ((req: ProxyRequest, n: number) => ProxyResponse);

interface Step {
  req: ProxyRequest;
  upstream?: Upstream;
  expect(out: ProxyResponse, forwarded: ProxyRequest[], side: string[]): void;
}

interface Case {
  fault: string;
  title: string;
  /** side requests of the fault: `METHOD path?query` prefix → answer */
  side?: Record<string, SideResponse | { status: number; json: unknown }>;
  grants?: Record<string, Grants | 'admin'>;
  steps: Step[];
}

const DOMAINS = new Map([
  ['Claim', 1],
  ['Contact', 2],
  ['Location', 3],
  ['File', 4],
  ['Note', 5],
  ['Policy', 6],
  ['Task', 7],
  ['Incident', 11],
  ['Member', 20],
  ['Proposal', 21],
  ['ProposalLocation', 22],
  ['Custom.Inspection', 1001],
]);

function context(c: Case, sideLog: string[]): FaultContext {
  return {
    tokenHeader: 'token',
    memory: new Map(),
    publicUrl: 'http://proxy.test',
    adminToken: async () => 'ADMIN',
    domainIds: async () => DOMAINS,
    grantsOf: (t) => (t === undefined ? undefined : c.grants?.[t]),
    async call(method, pathAndQuery, opts = {}) {
      const line = `${method} ${pathAndQuery}`;
      sideLog.push(`${line} [${opts.token === undefined ? 'ADMIN' : opts.token}]`);
      const keys = Object.keys(c.side ?? {}).sort((a, b) => b.length - a.length);
      const hit = keys.find((k) => line === k || line.startsWith(k));
      if (!hit) return { status: 404, text: '{}', json: {} };
      const r = c.side![hit]!;
      return { status: r.status, text: JSON.stringify(r.json), json: r.json };
    },
  };
}

async function runCase(c: Case): Promise<void> {
  const fault = faultByName(c.fault);
  expect(fault, `fault ${c.fault} exists`).toBeDefined();
  const side: string[] = [];
  const ctx = context(c, side);
  for (const step of c.steps) {
    const forwarded: ProxyRequest[] = [];
    side.length = 0;
    const next = async (req: ProxyRequest) => {
      forwarded.push(req);
      const u = step.upstream ?? makeResponse(200, {});
      return typeof u === 'function' ? u(req, forwarded.length - 1) : u;
    };
    const out = await fault!.rewrite(step.req, ctx, next);
    step.expect(out, forwarded, [...side]);
  }
}

// ------------------------------------------------------------------------------------ builders

const T = { token: 'T' };
const get = (p: string, headers: Record<string, string> = T) => makeRequest('GET', p, { headers });
const post = (p: string, body?: unknown, headers: Record<string, string> = T) =>
  makeRequest('POST', p, { headers, body });
const del = (p: string) => makeRequest('DELETE', p, { headers: T });
const ok = (body: unknown) => makeResponse(200, body, { 'content-type': 'application/json; charset=UTF-8' });
const json = (r: { body: Buffer }) => bodyJson(r);
const cols = (r: ProxyRequest) => parseColumns(r.query.get('columns')) ?? [];
/** The upstream's answer for one record, built from the forwarded columns (`value(field)`). */
const recordFrom =
  (value: (field: string) => unknown, list = false) =>
  (req: ProxyRequest) => {
    const rec = Object.fromEntries(cols(req).map((c) => [c.key, value(c.field)]));
    return ok(list ? { List: [rec] } : { Record: rec, Domain: 'File', Id: 5 });
  };
const result = (ok: boolean, id: number, order: number | null, msg = ok ? 'Done.' : 'LocationName is required.') => ({
  IsSuccessful: ok,
  RecordID: id,
  OrderNumber: order,
  Message: msg,
  Warnings: null,
});
const SCHED = '/api/Quotes/Proposals/5/Schedules/ProposalLocation';
const notModifiable = makeResponse(409, result(false, 0, null, 'Cannot modify Proposal with ID# 5.'));
const upserted = (body: Record<string, unknown>) => ok({ Inserts: [], Updates: [], Deletes: [], ...body });
const proposal = (p: Record<string, unknown>) => ({ status: 200, json: { Record: p, Domain: 'Proposal', Id: 5 } });
const record = (p: Record<string, unknown>) => ({ status: 200, json: { Record: p, Domain: 'X', Id: 1 } });
const untouched = (f: ProxyRequest[]) => expect(f).toHaveLength(0);

// ------------------------------------------------------------------------------------ cases

const CASES: Case[] = [
  // GEN
  {
    fault: 'problem-details-as-plain-text',
    title: 'a 404 problem becomes text/plain',
    steps: [
      {
        req: get('/api/claim/1'),
        upstream: problem(404, 'UnknownDomain', 'Unknown domain'),
        expect: (out) => {
          expect(out.status).toBe(404);
          expect(out.headers['content-type']).toMatch(/^text\/plain/);
          expect(out.body.toString()).toBe('Not Found');
        },
      },
    ],
  },
  {
    fault: 'json-served-as-html',
    title: 'a JSON answer is labelled text/html',
    steps: [
      {
        req: get('/api/Claim/1'),
        upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
        expect: (out) => {
          expect(out.headers['content-type']).toMatch(/^text\/html/);
          expect(json(out)).toEqual({ Record: {}, Domain: 'Claim', Id: 1 });
        },
      },
    ],
  },
  // DOM
  {
    fault: 'lowercase-domain-accepted',
    title: 'claim is forwarded as Claim; exact names stay',
    steps: [
      { req: get('/api/claim/Query?take=1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Claim/Query') },
      { req: get('/api/custom.inspection/3'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Custom.Inspection/3') },
      { req: get('/api/Claim/1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Claim/1') },
      { req: get('/api/Nope/1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Nope/1') },
    ],
  },
  {
    fault: 'domains-list-includes-inaccessible',
    title: "the administrator's list replaces the caller's",
    side: {
      'GET /api/Domains': {
        status: 200,
        json: {
          List: [
            { DomainID: 1, Name: 'Claim' },
            { DomainID: 6, Name: 'Policy' },
          ],
        },
      },
    },
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ DomainID: 1, Name: 'Claim' }] }),
        expect: (out) => expect(json(out).List.map((d: any) => d.Name)).toEqual(['Claim', 'Policy']),
      },
    ],
  },
  {
    fault: 'incident-domain-id-renumbered',
    title: 'Incident 11 becomes 8 in the list and in link rows',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({
          List: [
            { DomainID: 1, Name: 'Claim' },
            { DomainID: 11, Name: 'Incident' },
          ],
        }),
        expect: (out) => expect(json(out).List.map((d: any) => d.DomainID)).toEqual([1, 8]),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        upstream: ok({ List: [{ ParentDomainID: 11, ParentID: 4, ChildDomainID: 2, ChildID: 3 }] }),
        expect: (out) => expect(json(out).List[0].ParentDomainID).toBe(8),
      },
    ],
  },
  {
    fault: 'custom-domain-ids-below-core',
    title: 'Custom.Inspection 1001 becomes 8',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({
          List: [
            { DomainID: 7, Name: 'Task' },
            { DomainID: 1001, Name: 'Custom.Inspection' },
          ],
        }),
        expect: (out) => expect(json(out).List.map((d: any) => d.DomainID)).toEqual([7, 8]),
      },
    ],
  },
  {
    fault: 'member-proposal-not-listed',
    title: 'Member and Proposal are dropped',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Member' }, { Name: 'Proposal' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }]),
      },
    ],
  },
  // REC
  {
    fault: 'record-envelope-without-id',
    title: 'Id is removed',
    steps: [
      {
        req: get('/api/Claim/1'),
        upstream: ok({ Record: { ClaimID: 1 }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out)).toEqual({ Record: { ClaimID: 1 }, Domain: 'Claim' }),
      },
    ],
  },
  {
    fault: 'record-read-ignores-id',
    title: "the domain's first record is answered, with the caller's token",
    side: { 'GET /api/Claim/Query?': { status: 200, json: { List: [{ ClaimNumber: 'C-1' }] } } },
    steps: [
      {
        req: get('/api/Claim/7?columns=ClaimNumber'),
        upstream: ok({ Record: { ClaimNumber: 'C-7' }, Domain: 'Claim', Id: 7 }),
        expect: (out, _f, side) => {
          expect(json(out)).toEqual({ Record: { ClaimNumber: 'C-1' }, Domain: 'Claim', Id: 7 });
          expect(side[0]).toBe('GET /api/Claim/Query?columns=ClaimNumber&take=1 [T]');
        },
      },
    ],
  },
  // COL
  {
    fault: 'column-alias-ignored',
    title: 'aliases are dropped from the column list',
    steps: [
      {
        req: get('/api/Claim/1?columns=ClaimNumber%20as%20Number,Status'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber,Status'),
      },
    ],
  },
  {
    fault: 'bare-association-returns-id',
    title: 'a bare association gets its stored ID',
    side: {
      'GET /api/Claim/Query?take=1&columns=LocationID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/1?columns=Location,ClaimNumber'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 17 : f === 'Location' ? null : 'C-1')),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('Location,ClaimNumber,LocationID as __fp0');
          expect(json(out).Record).toEqual({ Location: 17, ClaimNumber: 'C-1' });
        },
      },
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('Location'),
      },
    ],
  },
  {
    fault: 'bare-coded-field-returns-code',
    title: 'a bare coded field gets its code',
    side: {
      'GET /api/Claim/Query?take=1&columns=Custom2Code.CodeID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/Query?columns=Custom2Code%20as%20Cat'),
        upstream: recordFrom((f) => (f === 'Custom2Code.Code' ? 'PR' : null), true),
        expect: (out) => expect(json(out).List).toEqual([{ Cat: 'PR' }]),
      },
    ],
  },
  {
    fault: 'dotted-name-returns-null',
    title: 'dotted columns come back null',
    steps: [
      {
        req: get('/api/Claim/1?columns=Location.Name,ClaimNumber'),
        upstream: ok({ Record: { 'Location.Name': 'Depot', ClaimNumber: 'C' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ 'Location.Name': null, ClaimNumber: 'C' }),
      },
    ],
  },
  {
    fault: 'resolve-association-names-ignored',
    title: 'resolveAssociationNames is dropped',
    steps: [
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.has('resolveAssociationNames')).toBe(false),
      },
    ],
  },
  {
    fault: 'resolve-missing-association-fails',
    title: 'a dangling reference throws a 500',
    side: {
      'GET /api/Claim/Query?take=1&columns=LocationID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 99 : null)),
        expect: (out) => expect(out.status).toBe(500),
      },
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 99 : 'Main Street Depot')),
        expect: (out) => expect(json(out).Record).toEqual({ Location: 'Main Street Depot' }),
      },
    ],
  },
  {
    fault: 'columns-parameter-ignored',
    title: 'columns is dropped',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimNumber&take=2'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=2'),
      },
    ],
  },
  {
    fault: 'default-columns-key-only',
    title: 'without columns only the key is kept',
    steps: [
      {
        req: get('/api/Claim/Query'),
        upstream: ok({
          List: [
            { ClaimID: 1, ClaimNumber: 'a' },
            { ClaimID: 2, ClaimNumber: 'b' },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ ClaimID: 1 }, { ClaimID: 2 }]),
      },
      {
        req: get('/api/Claim/1?columns=ClaimNumber'),
        upstream: ok({ Record: { ClaimNumber: 'a' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ ClaimNumber: 'a' }),
      },
    ],
  },
  {
    fault: 'link-query-columns-ignored',
    title: 'Link/Query columns is dropped',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&columns=ParentID'),
        expect: (_o, f) => expect(f[0]!.query.has('columns')).toBe(false),
      },
    ],
  },
  // QRY
  {
    fault: 'take-above-100-honoured',
    title: 'take=150 is fetched as two pages and joined',
    steps: [
      {
        req: get('/api/Claim/Query?take=150&skip=10'),
        upstream: (req) => {
          const take = Number(req.query.get('take'));
          const skip = Number(req.query.get('skip'));
          return ok({ List: Array.from({ length: take }, (_, i) => ({ ClaimID: skip + i })) });
        },
        expect: (out, f) => {
          expect(f.map((r) => `${r.query.get('take')}/${r.query.get('skip')}`)).toEqual(['100/10', '50/110']);
          const list = json(out).List;
          expect(list).toHaveLength(150);
          expect(list[149].ClaimID).toBe(159);
        },
      },
    ],
  },
  {
    fault: 'skip-ignored',
    title: 'skip is dropped',
    steps: [
      { req: get('/api/Claim/Query?skip=30&take=30'), expect: (_o, f) => expect(f[0]!.query.has('skip')).toBe(false) },
    ],
  },
  {
    fault: 'skip-default-one',
    title: 'no skip becomes skip=1; a given skip stays',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('1') },
      { req: get('/api/Claim/Query?skip=4'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('4') },
    ],
  },
  {
    fault: 'take-default-50',
    title: 'no take becomes take=50',
    steps: [{ req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('50') }],
  },
  {
    fault: 'take-off-by-one',
    title: 'take=10 becomes 11',
    steps: [
      { req: get('/api/Claim/Query?take=10'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('11') },
      { req: get('/api/Claim/9/Files?take=2'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('3') },
    ],
  },
  {
    fault: 'sort-desc-ignored',
    title: '" desc" is stripped',
    steps: [
      {
        req: get('/api/File/Query?sort=EntryDate%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('EntryDate'),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-ignored',
    title: 'excludeEmptyColumns is dropped',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true'),
        expect: (_o, f) => expect(f[0]!.query.has('excludeEmptyColumns')).toBe(false),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-drops-sparse-columns',
    title: 'a column null in one record is dropped everywhere',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=Yes'),
        upstream: ok({
          List: [
            { A: 1, B: null },
            { A: 2, B: 3 },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ A: 1 }, { A: 2 }]),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-on-by-default',
    title: 'excludeEmptyColumns=true is added',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('excludeEmptyColumns')).toBe('true') },
    ],
  },
  {
    fault: 'total-count-of-page',
    title: 'TotalCount becomes the page size',
    steps: [
      {
        req: get('/api/Claim/Query?includeTotalCount=true&take=2'),
        upstream: ok({ List: [{}, {}], TotalCount: 57 }),
        expect: (out) => expect(json(out).TotalCount).toBe(2),
      },
    ],
  },
  {
    fault: 'total-count-always-included',
    title: 'includeTotalCount=true is added',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('includeTotalCount')).toBe('true') },
    ],
  },
  {
    fault: 'query-answers-bare-array',
    title: 'the List envelope is dropped',
    steps: [
      {
        req: get('/api/Claim/Query'),
        upstream: ok({ List: [{ ClaimID: 1 }] }),
        expect: (out) => expect(json(out)).toEqual([{ ClaimID: 1 }]),
      },
    ],
  },
  {
    fault: 'filter-ignored',
    title: 'filter is dropped on the record and the file query; other parameters stay',
    steps: [
      {
        req: get('/api/Claim/Query?filter=ClaimNumber%3Aeq%3AC-1&take=5'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=5'),
      },
      {
        req: get('/api/File/Query?filter=FileID%3Aeq%3A5&linqFilter=FileID%20%3D%3D%205'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('linqFilter=FileID+%3D%3D+5'),
      },
    ],
  },
  {
    fault: 'linq-filter-ignored',
    title: 'linqFilter is dropped on the record and the file query; filter stays',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=ClaimNumber%20%3D%3D%20%22C-1%22&columns=ClaimNumber'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('columns=ClaimNumber'),
      },
      {
        req: get('/api/File/Query?linqFilter=FileID%20%3D%3D%205&filter=FileID%3Aeq%3A5'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('filter=FileID%3Aeq%3A5'),
      },
      { req: get('/api/Link/Query?linqFilter=x'), expect: (_o, f) => expect(f[0]!.query.get('linqFilter')).toBe('x') },
    ],
  },
  {
    fault: 'linq-filter-after-paging',
    title: 'the page is cut from the unfiltered query, then only its rows that match the LINQ filter are kept',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=X&columns=ClaimNumber&sort=ClaimNumber&take=3&skip=3'),
        upstream: (req) =>
          req.query.has('linqFilter')
            ? ok({ List: [{ ClaimID: 5 }, { ClaimID: 7 }, { ClaimID: 9 }] })
            : ok({
                List: [
                  { ClaimNumber: 'd', __fp0: 4 },
                  { ClaimNumber: 'e', __fp0: 5 },
                  { ClaimNumber: 'f', __fp0: 6 },
                ],
              }),
        expect: (out, f) => {
          expect(f.map((r) => r.query.toString())).toEqual([
            'linqFilter=X&columns=ClaimID&take=100',
            'columns=ClaimNumber%2CClaimID+as+__fp0&sort=ClaimNumber&take=3&skip=3',
          ]);
          expect(json(out).List).toEqual([{ ClaimNumber: 'e' }]);
        },
      },
      {
        // the key column cannot be read: the request passes untouched
        req: get('/api/Custom.Inspection/Query?linqFilter=X&take=3'),
        upstream: (req) =>
          req.query.get('columns') === 'Custom.InspectionID' ? problem(400, 'UnknownColumn', 'no') : ok({ List: [] }),
        expect: (_o, f) => expect(f[f.length - 1]!.query.toString()).toBe('linqFilter=X&take=3'),
      },
      { req: get('/api/Claim/Query?take=3'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'sort-within-page-only',
    title: 'the page is fetched unsorted (the sort column read alongside) and only its rows are sorted',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimID&sort=ClaimNumber%20desc&take=3&skip=3'),
        upstream: ok({
          List: [
            { ClaimID: 4, __fp0: 'b' },
            { ClaimID: 5, __fp0: 'c' },
            { ClaimID: 6, __fp0: 'a' },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.has('sort')).toBe(false);
          expect(f[0]!.query.get('columns')).toBe('ClaimID,ClaimNumber as __fp0');
          expect(f[0]!.query.get('skip')).toBe('3');
          expect(json(out).List).toEqual([{ ClaimID: 5 }, { ClaimID: 4 }, { ClaimID: 6 }]);
        },
      },
      {
        req: get('/api/File/Query?sort=FileName%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('FileName desc'),
      },
      { req: get('/api/Claim/Query?take=3'), expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=3') },
    ],
  },
  {
    fault: 'sort-asc-keyword-read-as-desc',
    title: '"<column> asc" is sent as "<column> desc"; a bare column stays ascending',
    steps: [
      {
        req: get('/api/Claim/Query?sort=ClaimNumber%20asc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber desc'),
      },
      {
        req: get('/api/Claim/Query?sort=ClaimNumber'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber'),
      },
    ],
  },
  {
    fault: 'sort-first-column-only',
    title: 'only the first of several sort columns is sent',
    steps: [
      {
        req: get('/api/Claim/Query?sort=Status%20desc%2CClaimNumber%20asc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('Status desc'),
      },
      {
        req: get('/api/Claim/Query?sort=Status%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('Status desc'),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-checks-first-row-only',
    title: 'a column null on the first row is dropped everywhere, though a later row has a value',
    steps: [
      {
        req: get('/api/Claim/Query?columns=A,B,C&excludeEmptyColumns=true'),
        upstream: ok({
          List: [
            { A: 1, B: null, C: null },
            { A: 2, B: 3, C: null },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.has('excludeEmptyColumns')).toBe(false);
          expect(json(out).List).toEqual([{ A: 1 }, { A: 2 }]);
        },
      },
      {
        req: get('/api/Claim/Query?columns=A,B'),
        upstream: ok({ List: [{ A: 1, B: null }] }),
        expect: (out) => expect(json(out).List).toEqual([{ A: 1, B: null }]),
      },
    ],
  },
  // FILE
  {
    fault: 'download-url-filled-for-external-files',
    title: 'an external file gets a DownloadURL; an internal one with an empty URL keeps it empty',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: 3, ExternalDirectURL: null })[f],
        ),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe(
            'DownloadURL,FileID as __fp0,ExternalFileRepositoryID as __fp1,ExternalDirectURL as __fp2',
          );
          expect(json(out).Record).toEqual({
            DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&SessionToken=/),
          });
        },
      },
      {
        req: get('/api/File/Query?columns=DownloadURL%20as%20U'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 6, ExternalFileRepositoryID: null, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) => expect(json(out).List).toEqual([{ U: '' }]),
      },
    ],
  },
  {
    fault: 'restrict-download-ignored',
    title: 'an internal file with an empty DownloadURL gets one; an external one stays empty',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: null, ExternalDirectURL: '' })[f],
        ),
        expect: (out) => expect(json(out).Record.DownloadURL).toMatch(/^Download\.aspx\?FileID=5&/),
      },
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: null, ExternalDirectURL: 'https://x/y' })[f],
        ),
        expect: (out) => expect(json(out).Record.DownloadURL).toBe(''),
      },
    ],
  },
  {
    fault: 'download-url-absolute',
    title: 'a relative DownloadURL becomes absolute',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: 'Download.aspx?FileID=5&SessionToken=a' }, Domain: 'File', Id: 5 }),
        expect: (out) =>
          expect(json(out).Record.DownloadURL).toBe('http://proxy.test/Download.aspx?FileID=5&SessionToken=a'),
      },
    ],
  },
  {
    fault: 'download-url-without-enhanced-security',
    title: 'the 500 is replaced by a second read with a built URL',
    steps: [
      {
        req: get('/api/File/5?columns=FileName,DownloadURL'),
        upstream: (req) =>
          cols(req).some((c) => c.field === 'DownloadURL')
            ? jsonString(500, 'Object reference not set to an instance of an object.')
            : recordFrom((f) => ({ FileName: 'a.txt', FileID: 5 })[f])(req),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('columns')).toBe('FileName,FileID as __fp0');
          expect(out.status).toBe(200);
          expect(json(out).Record).toEqual({
            FileName: 'a.txt',
            DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&/),
          });
        },
      },
    ],
  },
  {
    fault: 'is-unlinked-inverted',
    title: 'IsUnlinked is negated',
    steps: [
      {
        req: get('/api/File/Query?columns=FileID,IsUnlinked'),
        upstream: ok({
          List: [
            { FileID: 1, IsUnlinked: false },
            { FileID: 2, IsUnlinked: true },
          ],
        }),
        expect: (out) => expect(json(out).List.map((r: any) => r.IsUnlinked)).toEqual([true, false]),
      },
      {
        req: get('/api/Claim/1?columns=IsUnlinked'),
        upstream: ok({ Record: { IsUnlinked: false } }),
        expect: (out) => expect(json(out).Record.IsUnlinked).toBe(false),
      },
    ],
  },
  {
    fault: 'entry-date-with-zone',
    title: 'EntryDate gets a Z',
    steps: [
      {
        req: get('/api/Claim/1/Files?columns=EntryDate'),
        upstream: ok({ List: [{ EntryDate: '2024-03-01T09:15:22.123' }] }),
        expect: (out) => expect(json(out).List[0].EntryDate).toBe('2024-03-01T09:15:22.123Z'),
      },
    ],
  },
  {
    fault: 'contents-not-base64',
    title: 'Contents is decoded to raw text',
    steps: [
      {
        req: get('/api/File/5?columns=Contents'),
        upstream: ok({ Record: { Contents: 'aGVsbG8=' }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.Contents).toBe('hello'),
      },
    ],
  },
  {
    fault: 'mime-type-without-dot',
    title: '.pdf becomes pdf',
    steps: [
      {
        req: get('/api/File/5?columns=MimeType%20as%20Type'),
        upstream: ok({ Record: { Type: '.pdf' }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.Type).toBe('pdf'),
      },
    ],
  },
  {
    fault: 'file-size-of-base64',
    title: '5 bytes become 8',
    steps: [
      {
        req: get('/api/File/5?columns=FileSize'),
        upstream: ok({ Record: { FileSize: 5 }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.FileSize).toBe(8),
      },
    ],
  },
  {
    fault: 'file-query-leaks-parent',
    title: 'rows get ParentDomainID and ParentID',
    side: {
      'GET /api/Link/Query?childDomain=File': {
        status: 200,
        json: { List: [{ ParentDomainID: 1, ParentID: 9, ChildID: 5 }] },
      },
    },
    steps: [
      {
        req: get('/api/File/Query?columns=FileName'),
        upstream: ok({
          List: [
            { FileName: 'a', __fp0: 5 },
            { FileName: 'b', __fp0: 6 },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileName: 'a', ParentDomainID: 1, ParentID: 9 },
            { FileName: 'b', ParentDomainID: null, ParentID: null },
          ]),
      },
    ],
  },
  {
    fault: 'attached-files-include-unattached',
    title: 'orphaned files are appended',
    side: {
      'GET /api/Link/Query?childDomain=File': {
        status: 200,
        json: { List: [{ ParentDomainID: 1, ParentID: 9, ChildID: 5 }] },
      },
      'GET /api/File/Query?': {
        status: 200,
        json: {
          List: [
            { FileName: 'a', __fp0: 5 },
            { FileName: 'orphan', __fp0: 6 },
          ],
        },
      },
    },
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileName'),
        upstream: ok({ List: [{ FileName: 'a' }] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([{ FileName: 'a' }, { FileName: 'orphan' }]);
          expect(
            side.some((s) =>
              s.startsWith('GET /api/File/Query?sort=FileID+desc&take=100&columns=FileName%2CFileID+as+__fp0 [T]'),
            ),
          ).toBe(true);
        },
      },
    ],
  },
  {
    fault: 'contents-refused-with-token',
    title: 'Contents is refused with 403',
    steps: [
      {
        req: get('/api/File/5?columns=FileName,Contents'),
        expect: (out, f) => (expect(out.status).toBe(403), untouched(f)),
      },
      { req: get('/api/File/5?columns=FileName'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'file-query-desc-per-page',
    title: 'a descending file query is fetched unsorted and only the page is sorted; ascending and record queries stay',
    steps: [
      {
        req: get('/api/File/Query?columns=FileName&sort=FileName%20desc&take=3'),
        upstream: ok({ List: [{ FileName: 'b' }, { FileName: 'c' }, { FileName: 'a' }] }),
        expect: (out, f) => {
          expect(f[0]!.query.has('sort')).toBe(false);
          expect(f[0]!.query.get('columns')).toBe('FileName');
          expect(json(out).List).toEqual([{ FileName: 'c' }, { FileName: 'b' }, { FileName: 'a' }]);
        },
      },
      {
        req: get('/api/File/Query?sort=FileName'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('FileName'),
      },
      {
        req: get('/api/Claim/Query?sort=ClaimNumber%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber desc'),
      },
    ],
  },
  {
    fault: 'file-query-ignores-start-offset',
    title: 'skip is dropped on the file query only',
    steps: [
      { req: get('/api/File/Query?skip=5&take=5'), expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=5') },
      { req: get('/api/Claim/Query?skip=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('5') },
    ],
  },
  {
    fault: 'file-query-ignores-suppression-and-count',
    title: 'excludeEmptyColumns and includeTotalCount are dropped on the file query only',
    steps: [
      {
        req: get('/api/File/Query?excludeEmptyColumns=true&includeTotalCount=true&take=2'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=2'),
      },
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true&includeTotalCount=true'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('excludeEmptyColumns=true&includeTotalCount=true'),
      },
    ],
  },
  {
    fault: 'file-query-carries-contents',
    title: 'a file query without columns is asked again with every column plus Contents',
    steps: [
      {
        req: get('/api/File/Query?take=2'),
        upstream: (req, n) =>
          ok({ List: [n === 0 ? { FileID: 5, FileName: 'a' } : { FileID: 5, FileName: 'a', Contents: 'aGk=' }] }),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('columns')).toBe('FileID,FileName,Contents');
          expect(f[1]!.query.get('take')).toBe('2');
          expect(json(out).List).toEqual([{ FileID: 5, FileName: 'a', Contents: 'aGk=' }]);
        },
      },
      {
        req: get('/api/File/Query?columns=FileID'),
        upstream: ok({ List: [{ FileID: 5 }] }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).List).toEqual([{ FileID: 5 }])),
      },
    ],
  },
  {
    fault: 'modified-downloaded-dates-as-epoch',
    title: 'ModifiedDate and DownloadedDate strings become epoch milliseconds; null and other columns stay',
    steps: [
      {
        req: get('/api/File/5?columns=ModifiedDate%20as%20M,DownloadedDate,EntryDate'),
        upstream: ok({
          Record: { M: '2024-03-01T09:15:22.123', DownloadedDate: null, EntryDate: '2024-03-01T09:15:22.123' },
          Domain: 'File',
          Id: 5,
        }),
        expect: (out) =>
          expect(json(out).Record).toEqual({
            M: Date.UTC(2024, 2, 1, 9, 15, 22, 123),
            DownloadedDate: null,
            EntryDate: '2024-03-01T09:15:22.123',
          }),
      },
      {
        req: get('/api/Claim/5?columns=ModifiedDate'),
        upstream: ok({ Record: { ModifiedDate: '2024-03-01T09:15:22.123' }, Domain: 'Claim', Id: 5 }),
        expect: (out) => expect(json(out).Record.ModifiedDate).toBe('2024-03-01T09:15:22.123'),
      },
    ],
  },
  {
    fault: 'attached-files-ignore-parent-domain',
    title: "the files of the Incident with the parent's ID are appended, read with the caller's token",
    side: { 'GET /api/Incident/9/Files?columns=FileID': { status: 200, json: { List: [{ FileID: 2 }] } } },
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID'),
        upstream: ok({ List: [{ FileID: 1 }] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([{ FileID: 1 }, { FileID: 2 }]);
          expect(side).toEqual(['GET /api/Incident/9/Files?columns=FileID [T]']);
        },
      },
    ],
  },
  {
    fault: 'attached-files-capped-at-30',
    title: 'an attached-files listing of 35 is cut to its first 30; 30 stay 30',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID&take=100'),
        upstream: ok({ List: Array.from({ length: 35 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List.map((r: any) => r.FileID)).toEqual([...Array(30).keys()]),
      },
      {
        req: get('/api/Claim/9/Files?take=30'),
        upstream: ok({ List: Array.from({ length: 30 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(30),
      },
      {
        req: get('/api/File/Query?take=100'),
        upstream: ok({ List: Array.from({ length: 35 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(35),
      },
    ],
  },
  {
    fault: 'isunlinked-stale-after-link',
    title: 'the first IsUnlinked seen for a file is answered again after it changed (FileID read alongside)',
    steps: [
      {
        req: get('/api/File/5?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 5 : true)),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('IsUnlinked,FileID as __fp0');
          expect(json(out).Record).toEqual({ IsUnlinked: true });
        },
      },
      {
        req: get('/api/File/5?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 5 : false)),
        expect: (out) => expect(json(out).Record).toEqual({ IsUnlinked: true }),
      },
      {
        req: get('/api/File/6?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 6 : false)),
        expect: (out) => expect(json(out).Record).toEqual({ IsUnlinked: false }),
      },
    ],
  },
  // LINK
  {
    fault: 'non-linkable-child-accepted',
    title: 'a Note link is faked, listed and removable; Contact links pass',
    side: { 'GET /api/Claim/1': { status: 200, json: {} }, 'GET /api/Note/2': { status: 200, json: {} } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Note',
          ChildRecordID: 2,
        }),
        expect: (out, f, side) => {
          untouched(f);
          expect(json(out)).toMatchObject({ IsSuccessful: true, ParentRecordID: 1, ChildRecordID: 2, Message: null });
          expect(side).toEqual(['GET /api/Claim/1 [T]', 'GET /api/Note/2 [T]']);
        },
      },
      {
        req: get(
          '/api/Link/Query?childDomain=Note&childRecordID=2&columns=ParentDomainID,ParentID,ChildDomainID,ChildID',
        ),
        upstream: problem(400, 'MalformedRequest', 'Note is not linkable'),
        expect: (out) => {
          expect(out.status).toBe(200);
          expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 1, ChildDomainID: 5, ChildID: 2 }]);
        },
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 2,
        }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Note',
          ChildRecordID: 2,
        }),
        expect: (out, f) => (untouched(f), expect(json(out).IsSuccessful).toBe(true)),
      },
      {
        req: get('/api/Link/Query?childDomain=Note&childRecordID=2'),
        upstream: ok({ List: [] }),
        expect: (out) => expect(json(out).List).toEqual([]),
      },
    ],
  },
  {
    fault: 'match-field-wins-over-primary-key',
    title: 'the primary key is dropped where a match field is given',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-2',
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            ParentDomain: 'Claim',
            ParentRecordMatchField: 'ClaimNumber',
            ParentRecordKey: 'C-2',
            ChildDomain: 'Contact',
            ChildRecordID: 3,
          }),
      },
    ],
  },
  {
    fault: 'relationship-stored-on-file-link',
    title: 'a File link shows the relationship given at upsert',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 5,
          Relationship: 'BRK',
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 3, ParentRecordID: 1, ChildRecordID: 5, Message: null }),
        expect: (out) => expect(json(out).LinkID).toBe(3),
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5&columns=ParentID,ContactTypeID'),
        upstream: ok({
          List: [
            { ParentID: 1, ContactTypeID: null },
            { ParentID: 2, ContactTypeID: null },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { ParentID: 1, ContactTypeID: 2 },
            { ParentID: 2, ContactTypeID: null },
          ]),
      },
    ],
  },
  {
    fault: 'link-query-parent-domain-ignored',
    title: 'parentDomain is dropped when childDomain is given',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&parentDomain=Claim'),
        expect: (_o, f) => expect(f[0]!.query.has('parentDomain')).toBe(false),
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim'),
        expect: (_o, f) => expect(f[0]!.query.get('parentDomain')).toBe('Claim'),
      },
    ],
  },
  {
    fault: 'link-query-child-record-ignored',
    title: 'childRecordID is dropped',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        expect: (_o, f) => expect(f[0]!.query.has('childRecordID')).toBe(false),
      },
    ],
  },
  {
    fault: 'link-remove-noop',
    title: 'Remove answers success without reaching the upstream',
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (out, f) => (untouched(f), expect(json(out)).toEqual({ IsSuccessful: true, Message: 'Link removed.' })),
      },
    ],
  },
  {
    fault: 'link-upsert-duplicates',
    title: 'a second upsert of the same link lists it twice',
    steps: [
      ...[1, 2].map(() => ({
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 40, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: () => {},
      })),
      {
        req: get(
          '/api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID,ChildDomainID,ChildID,LinkID',
        ),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 1, ChildDomainID: 2, ChildID: 3, LinkID: 40 }] }),
        expect: (out) => {
          const list = json(out).List;
          expect(list).toHaveLength(2);
          expect(list[1]).toMatchObject({ ParentID: 1, ChildID: 3 });
          expect(list[1].LinkID).not.toBe(40);
        },
      },
    ],
  },
  {
    fault: 'link-ids-as-strings',
    title: 'ID columns become strings',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        upstream: ok({
          List: [{ ParentDomainID: 1, ParentID: 10, ChildDomainID: 2, ChildID: 3, ContactTypeID: null }],
        }),
        expect: (out) =>
          expect(json(out).List[0]).toEqual({
            ParentDomainID: '1',
            ParentID: '10',
            ChildDomainID: '2',
            ChildID: '3',
            ContactTypeID: null,
          }),
      },
    ],
  },
  {
    fault: 'link-query-ignores-match-field',
    title: 'the match fields and keys of both sides are dropped; domains, IDs and columns stay',
    steps: [
      {
        req: get(
          '/api/Link/Query?parentDomain=Claim&parentRecordMatchField=ClaimNumber&parentRecordKey=C-1&childDomain=Contact&childRecordMatchField=Email&childRecordKey=a%40b&columns=ParentID',
        ),
        expect: (_o, f) =>
          expect(f[0]!.query.toString()).toBe('parentDomain=Claim&childDomain=Contact&columns=ParentID'),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('childDomain=Contact&childRecordID=3'),
      },
    ],
  },
  {
    fault: 'link-query-capped-at-100',
    title: 'a Link/Query answer of 150 links is cut to its first 100',
    steps: [
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildID'),
        upstream: ok({ List: Array.from({ length: 150 }, (_, i) => ({ ChildID: i })) }),
        expect: (out) => expect(json(out).List.map((r: any) => r.ChildID)).toEqual([...Array(100).keys()]),
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildID'),
        upstream: ok({ List: Array.from({ length: 100 }, (_, i) => ({ ChildID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(100),
      },
    ],
  },
  {
    fault: 'link-upsert-replaces-child-links',
    title:
      "after an upsert the child's links to other parents are removed as the administrator; a failed upsert removes nothing",
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 6, ParentID: 7 },
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 1 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 40, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: (out, _f, side) => {
          expect(json(out).IsSuccessful).toBe(true);
          // two removes: Policy 7 and Incident 1; the new link (Claim 1) is kept
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: false, Message: 'no' }),
        expect: (_o, _f, side) => expect(side).toEqual([]),
      },
    ],
  },
  {
    fault: 'link-remove-ignores-parent-domain',
    title: 'a remove also removes the links of the child to parents of other domains with the same ID',
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 1 },
            { ParentDomainID: 6, ParentID: 7 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out, f, side) => {
          expect(f).toHaveLength(1);
          expect(json(out).IsSuccessful).toBe(true);
          // only Incident 1 (same ID, other domain) goes too; Policy 7 stays
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: false, Message: 'Nothing to remove.' }),
        expect: (_o, _f, side) => expect(side.filter((l) => l.startsWith('POST'))).toEqual([]),
      },
    ],
  },
  // AUTH
  {
    fault: 'unauthenticated-served',
    title: 'a request without a token is sent with the administrator token',
    steps: [
      { req: get('/api/Domains', {}), expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN') },
      { req: get('/api/Domains'), expect: (_o, f) => expect(f[0]!.headers.token).toBe('T') },
    ],
  },
  {
    fault: 'unknown-token-accepted',
    title: 'a 401 is retried as the administrator',
    steps: [
      {
        req: get('/api/Domains', { token: 'BOGUS' }),
        upstream: (req) => (req.headers.token === 'ADMIN' ? ok({ List: [] }) : problem(401, 'Unauthenticated', 'no')),
        expect: (out, f) => (
          expect(out.status).toBe(200),
          expect(f.map((r) => r.headers.token)).toEqual(['BOGUS', 'ADMIN'])
        ),
      },
    ],
  },
  {
    fault: 'link-parent-permission-not-checked',
    title: 'a user without Attach Contacts on the parent gets through',
    grants: { T: { Claim: ['View'], Contact: ['View'] }, U: { Claim: ['View'] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post(
          '/api/Link/Upsert',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('U'),
      },
    ],
  },
  {
    fault: 'link-child-view-not-checked',
    title: "a user holding View on the child through '*' is left alone",
    grants: { T: { '*': ['View'], Claim: ['AttachFiles'], File: [] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('T'),
      },
    ],
  },
  {
    fault: 'link-child-view-not-checked',
    title: 'a user without View on the child gets through (explicit grants)',
    grants: { T: { Claim: ['View', 'AttachFiles'] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
    ],
  },
  {
    fault: 'link-remove-checks-upsert-permission',
    title: 'Remove is allowed with Attach Contacts and refused with Detach Contacts',
    grants: {
      T: { Claim: ['AttachContacts'], Contact: ['View'] },
      U: { Claim: ['DetachContacts'], Contact: ['View'] },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post(
          '/api/Link/Remove',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(403)),
      },
    ],
  },
  {
    fault: 'link-query-parent-permission-not-checked',
    title: 'Link/Query is answered as the administrator, keeping the rows whose child domain the caller may view',
    grants: { T: { Contact: ['View'], Policy: ['View'] } },
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID'),
        upstream: ok({
          List: [
            { ParentDomainID: 6, ParentID: 7, __fp0: 2 },
            { ParentDomainID: 1, ParentID: 1, __fp0: 2 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.headers.token).toBe('ADMIN');
          expect(f[0]!.query.get('columns')).toBe('ParentDomainID,ParentID,ChildDomainID as __fp0');
          expect(json(out).List).toEqual([
            { ParentDomainID: 6, ParentID: 7 },
            { ParentDomainID: 1, ParentID: 1 },
          ]);
        },
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildDomainID,ChildID'),
        upstream: ok({
          List: [
            { ChildDomainID: 4, ChildID: 5 },
            { ChildDomainID: 2, ChildID: 3 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('ChildDomainID,ChildID');
          expect(json(out).List).toEqual([{ ChildDomainID: 2, ChildID: 3 }]);
        },
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5'),
        expect: (_o, f) => (expect(f).toHaveLength(1), expect(f[0]!.headers.token).toBe('T')),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact', { token: 'A' }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('A'),
      },
    ],
  },
  {
    fault: 'link-query-child-view-not-checked',
    title: 'Link/Query is answered as the administrator, keeping the rows whose parent domain the caller may view',
    grants: { T: { Claim: ['View', 'Edit'], File: ['View'] } },
    steps: [
      {
        req: get('/api/Link/Query?parentDomain=Claim&parentRecordID=1&columns=ChildDomainID,ChildID'),
        upstream: ok({
          List: [
            { ChildDomainID: 4, ChildID: 5, __fp0: 1 },
            { ChildDomainID: 2, ChildID: 3, __fp0: 1 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.headers.token).toBe('ADMIN');
          expect(f[0]!.query.get('columns')).toBe('ChildDomainID,ChildID,ParentDomainID as __fp0');
          expect(json(out).List).toEqual([
            { ChildDomainID: 4, ChildID: 5 },
            { ChildDomainID: 2, ChildID: 3 },
          ]);
        },
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5&columns=ParentDomainID,ParentID'),
        upstream: ok({
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 6, ParentID: 7 },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 1 }]),
      },
      {
        req: get('/api/Link/Query?parentDomain=Policy&parentRecordID=7'),
        upstream: problem(403, 'Forbidden', 'no'),
        expect: (out, f) => (expect(f[0]!.headers.token).toBe('T'), expect(out.status).toBe(403)),
      },
    ],
  },
  // PROP
  {
    fault: 'delete-ignores-modifiability',
    title: 'a refused DELETE is answered as done and the record disappears',
    side: { 'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
      { req: get('/api/ProposalLocation/7'), expect: (out, f) => (untouched(f), expect(out.status).toBe(404)) },
      {
        req: get('/api/ProposalLocation/Query?columns=ProposalLocationID'),
        upstream: ok({ List: [{ ProposalLocationID: 7 }, { ProposalLocationID: 8 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ProposalLocationID: 8 }]),
      },
    ],
  },
  {
    fault: 'bound-proposal-set-ignored',
    title: 'refused because of the bound set: answered as done',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
    },
    steps: [
      { req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(json(out).IsSuccessful).toBe(true) },
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }],
          Updates: [{ ID: 8, Fields: {} }],
          Deletes: [],
        }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [result(false, 8, 0, 'Cannot modify Proposal with ID# 5.')],
          Deletes: [],
        }),
        expect: (out) => {
          expect(out.status).toBe(200);
          expect(json(out).Inserts[0]).toMatchObject({ IsSuccessful: true, OrderNumber: 0 });
          expect(json(out).Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: 8 });
        },
      },
    ],
  },
  {
    fault: 'bound-proposal-set-ignored',
    title: 'refused because of the status: stays refused',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'B', PendingExpiryChange: false }) },
    steps: [{ req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(out.status).toBe(409) }],
  },
  {
    fault: 'pending-expiry-change-ignored',
    title: 'refused because of a pending expiry change: answered as done',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: true }) },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [],
          Deletes: [],
        }),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'endorsement-delete-permanent',
    title: 'an Endorsement delete hides the record and Reinstate finds nothing',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'Q' }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted schedule with id 7 successfully. It can be reinstated.')),
        expect: (out) => expect(json(out).Message).toBe('Deleted schedule with id 7 successfully.'),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(404), expect(json(out).IsSuccessful).toBe(false)),
      },
      {
        req: get('/api/ProposalLocation/7?columns=LocationName'),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(404)),
      },
      { req: get('/api/ProposalLocation/8?columns=LocationName'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'all-deletes-soft',
    title: 'a Quote delete is soft: the record stays and Reinstate works',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5, IsDeleted: false }),
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        expect: (out, f) => (
          untouched(f),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
      {
        req: get('/api/ProposalLocation/7?columns=LocationName,IsDeleted'),
        upstream: ok({ Record: { LocationName: 'A', IsDeleted: false }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out) => expect(json(out).Record).toEqual({ LocationName: 'A', IsDeleted: true }),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        expect: (out, f) => (untouched(f), expect(json(out).IsSuccessful).toBe(true)),
      },
    ],
  },
  // BIND
  {
    fault: 'bind-error-answered-4xx',
    title: 'Error is answered 422',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
        expect: (out) => (expect(out.status).toBe(422), expect(json(out).Status).toBe('Error')),
      },
    ],
  },
  {
    fault: 'not-bound-details-filled',
    title: 'NotBound details come from the proposal',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({
          ProposalID: 5,
          Status: 'NotBound',
          ErrorMessage: null,
          PolicyID: null,
          MemberID: null,
          PolicyNumber: null,
          MemberName: null,
          BoundDateUTC: null,
        }),
        expect: (out) => expect(json(out)).toMatchObject({ MemberName: 'Acme', PolicyNumber: '' }),
      },
    ],
  },
  {
    fault: 'bound-date-without-zone',
    title: 'the Z is stripped',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Bound', BoundDateUTC: '2024-03-05T14:02:11.123Z' }),
        expect: (out) => expect(json(out).BoundDateUTC).toBe('2024-03-05T14:02:11.123'),
      },
    ],
  },
  {
    fault: 'bound-member-name-missing',
    title: 'MemberName becomes null when Bound',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Bound', MemberName: 'Acme' }),
        expect: (out) => expect(json(out).MemberName).toBeNull(),
      },
    ],
  },
  {
    fault: 'bind-error-message-null',
    title: 'ErrorMessage becomes null',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
        expect: (out) => expect(json(out).ErrorMessage).toBeNull(),
      },
    ],
  },
  {
    fault: 'bind-creates-missing-member',
    title: 'CreateMember is called before binding a proposal without member',
    side: {
      'GET /api/Proposal/5?': proposal({ MemberID: null }),
      'POST /api/Quotes/Proposals/5/CreateMember': { status: 200, json: {} },
    },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/BindQuote'),
        expect: (_o, f, side) => {
          expect(f).toHaveLength(1);
          expect(side).toContain('POST /api/Quotes/Proposals/5/CreateMember [T]');
        },
      },
    ],
  },
  // MEM
  {
    fault: 'create-member-twice-succeeds',
    title: 'the 500 becomes 200 with the existing member',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: 44 }) },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: jsonString(500, 'MemberID is already assigned to Proposal record.'),
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toEqual({ IsSuccessful: true, RecordID: 44, Message: null })
        ),
      },
    ],
  },
  {
    fault: 'create-member-validation-error-500',
    title: 'a validation failure becomes a 500 string',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: ok({ IsSuccessful: false, RecordID: 0, Message: 'Applicant name is required.' }),
        expect: (out) => (expect(out.status).toBe(500), expect(json(out)).toBe('Applicant name is required.')),
      },
    ],
  },
  {
    fault: 'create-member-message-on-success',
    title: 'Message is filled on success',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: ok({ IsSuccessful: true, RecordID: 9, Message: null }),
        expect: (out) => expect(json(out).Message).toBe('Member created successfully.'),
      },
    ],
  },
  {
    fault: 'create-member-requires-body',
    title: 'no body is refused; a body passes',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(400)),
      },
      { req: post('/api/Quotes/Proposals/5/CreateMember', {}), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  // SCHED
  {
    fault: 'order-number-one-based',
    title: 'OrderNumber + 1',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(true, 3, 0)], Updates: [result(false, 4, 0)] }),
        expect: (out) => expect([json(out).Inserts[0].OrderNumber, json(out).Updates[0].OrderNumber]).toEqual([1, 1]),
      },
    ],
  },
  {
    fault: 'atomic-batch-partly-committed',
    title: 'isAtomic=true is forwarded as false; the successes are hidden',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
        }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out, f) => {
          expect(f[0]!.query.get('isAtomic')).toBe('false');
          expect(json(out).Inserts).toEqual([result(false, 0, 1)]);
        },
      },
    ],
  },
  {
    fault: 'atomic-failure-lists-successes',
    title: 'the rolled-back items are listed as successful',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=True`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
          Deletes: [{ ID: 9 }],
        }),
        upstream: upserted({ Inserts: [result(false, 0, 1)] }),
        expect: (out) => {
          const b = json(out);
          expect(b.Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([
            [true, 0],
            [false, 1],
          ]);
          expect(b.Deletes[0]).toMatchObject({ IsSuccessful: true, RecordID: 9, OrderNumber: 0 });
        },
      },
    ],
  },
  {
    fault: 'atomic-by-default',
    title: 'isAtomic=true is added',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('true'),
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('false'),
      },
    ],
  },
  {
    fault: 'non-atomic-lists-only-failures',
    title: 'successes are dropped from a non-atomic answer with a failure',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }] }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out) => expect(json(out).Inserts).toEqual([result(false, 0, 1)]),
      },
    ],
  },
  {
    fault: 'non-atomic-stops-at-first-failure',
    title: 'items are sent one by one until the first failure',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }, { Fields: { LocationName: 'C' } }],
          Updates: [{ ID: 4, Fields: {} }],
        }),
        upstream: (req) => {
          const name = json(req).Inserts[0]?.Fields?.LocationName;
          return upserted({ Inserts: [name ? result(true, 10, 0) : result(false, 0, 0)] });
        },
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(json(out).Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([
            [true, 0],
            [false, 1],
          ]);
          expect(json(out).Updates).toEqual([]);
        },
      },
    ],
  },
  {
    fault: 'failed-insert-record-id-minus-one',
    title: 'failed insert and delete RecordID 0 becomes -1',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }] }),
        upstream: upserted({
          Inserts: [result(false, 0, 0)],
          Updates: [result(false, 4, 0)],
          Deletes: [result(false, 0, 0)],
        }),
        expect: (out) =>
          expect([json(out).Inserts[0].RecordID, json(out).Updates[0].RecordID, json(out).Deletes[0].RecordID]).toEqual(
            [-1, 4, -1],
          ),
      },
      {
        req: del(`${SCHED}/7`),
        upstream: makeResponse(404, result(false, 0, null, 'not found')),
        expect: (out) => expect(json(out).RecordID).toBe(-1),
      },
    ],
  },
  {
    fault: 'failed-update-record-id-zero',
    title: 'failed update RecordID becomes 0',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Updates: [{ ID: 4, Fields: { LocationName: '' } }] }),
        upstream: upserted({ Updates: [result(false, 4, 0)] }),
        expect: (out) => expect(json(out).Updates[0].RecordID).toBe(0),
      },
    ],
  },
  {
    fault: 'location-name-not-required',
    title: 'a missing name gets a default; an emptied name is left out',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { City: 'Bangor' } }, { Fields: { LocationName: 'B' } }],
          Updates: [{ ID: 4, Fields: { LocationName: ' ', City: 'X' } }],
          Deletes: [],
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            Inserts: [
              { Fields: { City: 'Bangor', LocationName: 'Unnamed location' } },
              { Fields: { LocationName: 'B' } },
            ],
            Updates: [{ ID: 4, Fields: { City: 'X' } }],
            Deletes: [],
          }),
      },
      {
        req: post('/api/Quotes/Proposals/5/Schedules/ProposalVehicle/UpsertMulti', { Inserts: [{ Fields: {} }] }),
        expect: (_o, f) => expect(json(f[0]!)).toEqual({ Inserts: [{ Fields: {} }] }),
      },
    ],
  },
  {
    fault: 'reinstate-noop',
    title: 'Reinstate answers success without reaching the upstream',
    steps: [
      {
        req: post(`${SCHED}/7/Reinstate`),
        expect: (out, f) => (
          untouched(f),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
    ],
  },
  {
    fault: 'foreign-schedule-record-changed',
    title: "an update of another proposal's record goes to that proposal",
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
      'GET /api/ProposalLocation/8?': record({ ProposalID: 6 }),
    },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [],
          Updates: [
            { ID: 8, Fields: { City: 'X' } },
            { ID: 7, Fields: { City: 'Y' } },
          ],
          Deletes: [],
        }),
        upstream: (req) => upserted({ Updates: json(req).Updates.map((u: any, i: number) => result(true, u.ID, i)) }),
        expect: (out, f) => {
          expect(f.map((r) => r.path)).toEqual([
            `${SCHED}/UpsertMulti`,
            '/api/Quotes/Proposals/6/Schedules/ProposalLocation/UpsertMulti',
          ]);
          expect(json(f[0]!).Updates).toEqual([{ ID: 7, Fields: { City: 'Y' } }]);
          expect(json(out).Updates.map((r: any) => [r.RecordID, r.OrderNumber, r.IsSuccessful])).toEqual([
            [8, 0, true],
            [7, 1, true],
          ]);
        },
      },
    ],
  },
  {
    fault: 'invalid-schedule-domain-accepted',
    title: 'InvalidScheduleDomain becomes an all-successful answer',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/Schedules/Claim/UpsertMulti', {
          Inserts: [{ Fields: { LocationName: 'A' } }],
        }),
        upstream: problem(404, 'InvalidScheduleDomain', 'no'),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'single-delete-order-number-zero',
    title: 'OrderNumber null becomes 0',
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null)),
        expect: (out) => expect(json(out).OrderNumber).toBe(0),
      },
    ],
  },
  {
    fault: 'success-message-empty',
    title: 'success messages are emptied',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }] }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out) =>
          expect(json(out).Inserts.map((r: any) => r.Message)).toEqual(['', 'LocationName is required.']),
      },
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null)),
        expect: (out) => expect(json(out).Message).toBe(''),
      },
    ],
  },
  // Faults that only whole read-backs or waiting to the deadline catch
  {
    fault: 'rollback-keeps-valid-inserts',
    title: 'after a rolled-back atomic batch its valid inserts are committed on their own',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }, { Fields: { LocationName: 'C' } }],
          Updates: [{ ID: 7, Fields: { City: 'X' } }],
          Deletes: [],
        }),
        upstream: (_req, n) => (n === 0 ? upserted({ Inserts: [result(false, 0, 1)] }) : upserted({})),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('isAtomic')).toBe('false');
          expect(json(f[1]!)).toEqual({
            Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { LocationName: 'C' } }],
            Updates: [],
            Deletes: [],
          });
          expect(json(out).Inserts).toEqual([result(false, 0, 1)]);
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(false, 0, 0)] }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
  {
    fault: 'atomic-never-commits',
    title: 'a failing item is appended; the rollback is answered as success, real failures pass through',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }],
          Updates: [{ ID: 7, Fields: { City: 'X' } }],
          Deletes: [],
        }),
        upstream: upserted({ Inserts: [result(false, 0, 1)] }),
        expect: (out, f) => {
          expect(json(f[0]!).Inserts).toEqual([{ Fields: { LocationName: 'A' } }, { Fields: {} }]);
          const b = json(out);
          expect(b.Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([[true, 0]]);
          expect(b.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: 0 });
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(false, 0, 0), result(false, 0, 1)] }),
        expect: (out) => expect(json(out).Inserts).toEqual([result(false, 0, 0)]),
      },
    ],
  },
  {
    fault: 'failed-insert-leaves-record',
    title: 'each failed non-atomic insert is stored again with a placeholder name',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'X' } }],
          Updates: [],
          Deletes: [],
        }),
        upstream: (_req, n) =>
          n === 0 ? upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }) : upserted({}),
        expect: (out, f) => {
          expect(json(f[1]!).Inserts).toEqual([{ Fields: { City: 'X', LocationName: 'Unnamed location' } }]);
          expect(json(out).Inserts).toEqual([result(true, 3, 0), result(false, 0, 1)]);
        },
      },
    ],
  },
  {
    fault: 'insert-committed-twice',
    title: 'the successful non-atomic inserts are sent once more',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
          Updates: [],
          Deletes: [],
        }),
        upstream: (_req, n) =>
          n === 0 ? upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }) : upserted({}),
        expect: (out, f) => {
          expect(json(f[1]!).Inserts).toEqual([{ Fields: { LocationName: 'A' } }]);
          expect(json(out).Inserts[0]).toEqual(result(true, 3, 0));
        },
      },
    ],
  },
  {
    fault: 'queue-bind-without-member-bound',
    title: 'the Error outcome of a proposal queued without a member is reported as Bound',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) => expect(json(out).Status).toBe('Error'),
      },
      {
        req: post('/api/Quotes/Proposals/5/QueueBindQuote'),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'NotBound', ErrorMessage: null }),
        expect: (out) => expect(json(out).Status).toBe('NotBound'),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) =>
          expect(json(out)).toMatchObject({ ProposalID: 5, Status: 'Bound', ErrorMessage: null, MemberName: 'Acme' }),
      },
    ],
  },
  {
    fault: 'create-member-body-sets-name',
    title: "the name sent to CreateMember shows as the bound proposal's MemberName",
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember', { Name: 'Injected' }),
        upstream: ok({ IsSuccessful: true, RecordID: 9, Message: null }),
        expect: (out) => expect(json(out).RecordID).toBe(9),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Bound', MemberID: 9, MemberName: 'Acme' }),
        expect: (out) => expect(json(out)).toMatchObject({ MemberID: 9, MemberName: 'Injected' }),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'attached-files-mime-type-as-media-type',
    title: 'MimeType becomes a media type on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,MimeType%20as%20M'),
        upstream: ok({
          List: [
            { FileID: 1, M: '.png' },
            { FileID: 2, M: '.zip' },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileID: 1, M: 'image/png' },
            { FileID: 2, M: 'application/zip' },
          ]),
      },
      {
        req: get('/api/File/1?columns=MimeType'),
        upstream: ok({ Record: { MimeType: '.png' }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.MimeType).toBe('.png'),
      },
      {
        req: get('/api/File/Query?columns=MimeType'),
        upstream: ok({ List: [{ MimeType: '.png' }] }),
        expect: (out) => expect(json(out).List[0].MimeType).toBe('.png'),
      },
    ],
  },
  {
    fault: 'attached-files-is-unlinked-true',
    title: 'IsUnlinked is true on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,IsUnlinked'),
        upstream: ok({ List: [{ FileID: 1, IsUnlinked: false }] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileID: 1, IsUnlinked: true }]),
      },
      {
        req: get('/api/File/Query?columns=IsUnlinked'),
        upstream: ok({ List: [{ IsUnlinked: false }] }),
        expect: (out) => expect(json(out).List[0].IsUnlinked).toBe(false),
      },
    ],
  },
  {
    fault: 'link-query-alias-ignored',
    title: 'aliases are dropped from the columns of Link/Query only',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4&columns=ParentID%20as%20Owner,ChildID'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ParentID,ChildID'),
      },
      {
        req: get('/api/Claim/Query?columns=ClaimNumber%20as%20N'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber as N'),
      },
    ],
  },
  {
    fault: 'skip-capped-at-100',
    title: 'an offset above 100 is sent as 100; up to 100 it stays',
    steps: [
      { req: get('/api/Claim/Query?skip=105&take=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('100') },
      { req: get('/api/Claim/Query?skip=100&take=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('100') },
      { req: get('/api/Claim/Query?skip=31'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('31') },
    ],
  },
  {
    fault: 'suppression-ignores-aliased-columns',
    title: 'an aliased all-null column dropped by the upstream comes back, null; plain ones stay dropped',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true&columns=A%20as%20X,B,C'),
        upstream: ok({ List: [{ C: 1 }, { C: 2 }] }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { C: 1, X: null },
            { C: 2, X: null },
          ]),
      },
      {
        req: get('/api/Claim/Query?columns=A%20as%20X,C'),
        upstream: ok({ List: [{ X: null, C: 1 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ X: null, C: 1 }]),
      },
    ],
  },
  {
    fault: 'endorsement-modifiability-unchecked',
    title: 'refused on a non-modifiable Endorsement: answered as done; on another type: stays refused',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'B', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [],
          Deletes: [],
        }),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'endorsement-modifiability-unchecked',
    title: 'a Quote stays refused',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'B', PendingExpiryChange: false }) },
    steps: [{ req: del(`${SCHED}/8`), upstream: notModifiable, expect: (out) => expect(out.status).toBe(409) }],
  },
  {
    fault: 'queue-bind-without-member-bound-late',
    title: 'a proposal queued without a member reads Bound only after the delay',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/QueueBindQuote'),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) => expect(json(out).Status).toBe('Error'),
      },
      {
        req: get('/api/Quotes/Proposals/6/BindStatus'),
        upstream: ok({ ProposalID: 6, Status: 'NotBound', ErrorMessage: null }),
        expect: (out) => expect(json(out).Status).toBe('NotBound'),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        // the upstream answers 2 s later than the queueing
        upstream: () => {
          const later = Date.now() + 2000;
          vi.spyOn(Date, 'now').mockReturnValue(later);
          return ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' });
        },
        expect: (out) => {
          vi.restoreAllMocks();
          expect(json(out)).toMatchObject({ ProposalID: 5, Status: 'Bound', ErrorMessage: null });
        },
      },
    ],
  },
  {
    fault: 'attached-files-size-in-kilobytes',
    title: 'FileSize in kilobytes on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileSize'),
        upstream: ok({ List: [{ FileSize: 1234 }, { FileSize: 3 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileSize: 2 }, { FileSize: 1 }]),
      },
      {
        req: get('/api/File/1?columns=FileSize'),
        upstream: ok({ Record: { FileSize: 1234 }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.FileSize).toBe(1234),
      },
    ],
  },
  {
    fault: 'attached-files-source-type-missing',
    title: 'SourceType null on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=SourceType'),
        upstream: ok({ List: [{ SourceType: 'U' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ SourceType: null }]),
      },
      {
        req: get('/api/File/Query?columns=SourceType'),
        upstream: ok({ List: [{ SourceType: 'U' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ SourceType: 'U' }]),
      },
    ],
  },
  {
    fault: 'attached-files-download-url-absolute',
    title: 'an absolute DownloadURL on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=DownloadURL'),
        upstream: ok({ List: [{ DownloadURL: 'Download.aspx?FileID=1' }, { DownloadURL: '' }] }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { DownloadURL: 'http://proxy.test/Download.aspx?FileID=1' },
            { DownloadURL: '' },
          ]),
      },
      {
        req: get('/api/File/1?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: 'Download.aspx?FileID=1' }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.DownloadURL).toBe('Download.aspx?FileID=1'),
      },
    ],
  },
  {
    fault: 'attached-files-download-url-for-external',
    title: 'an external file gets a DownloadURL on the attached-files listing; the single file is untouched',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: 3, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileID: 5, DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&SessionToken=/) },
          ]),
      },
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: '' }, Domain: 'File', Id: 5 }),
        expect: (out, f) => (
          expect(f[0]!.query.get('columns')).toBe('DownloadURL'),
          expect(json(out).Record.DownloadURL).toBe('')
        ),
      },
    ],
  },
  {
    fault: 'attached-files-restrict-download-ignored',
    title: 'an internal file with an empty DownloadURL gets one on the attached-files listing',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 6, ExternalFileRepositoryID: null, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) =>
          expect(json(out).List).toEqual([{ DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=6&/) }]),
      },
    ],
  },
  {
    fault: 'link-query-default-columns-ids-only',
    title: 'Link/Query without columns keeps ParentID and ChildID only; with columns it is untouched',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4'),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 7, ChildDomainID: 4, ChildID: 4 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentID: 7, ChildID: 4 }]),
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4&columns=ParentDomainID,ParentID'),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 7 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 7 }]),
      },
    ],
  },
  {
    fault: 'endorsement-delete-finds-record-by-id-alone',
    title: "a DELETE through an Endorsement of another proposal's record goes to that proposal",
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 6 }),
      'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'Q' }),
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted schedule with id 7 successfully.')),
        expect: (out, f) => (
          expect(f[0]!.path).toBe('/api/Quotes/Proposals/6/Schedules/ProposalLocation/7'),
          expect(json(out).IsSuccessful).toBe(true)
        ),
      },
    ],
  },
  {
    fault: 'endorsement-delete-finds-record-by-id-alone',
    title: 'a Quote, or a record of the proposal itself, is forwarded unchanged',
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 6 }),
      'GET /api/ProposalLocation/8?': record({ ProposalID: 5 }),
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q' }),
    },
    steps: [
      { req: del(`${SCHED}/7`), expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/7`) },
      { req: del(`${SCHED}/8`), expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/8`) },
    ],
  },
  {
    fault: 'parent-numeric-match-field-refused',
    title: 'a numeric parent key is refused; a text one and a numeric child key pass',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimID',
          ParentRecordKey: 7,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(400)),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-7',
          ChildDomain: 'Contact',
          ChildRecordMatchField: 'ContactID',
          ChildRecordKey: 3,
        }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
];

// ------------------------------------------------------------------------------------ tests

describe('fault rewrites on canned exchanges', () => {
  it('every fault of the catalogue has a case', () => {
    const covered = new Set(CASES.map((c) => c.fault));
    expect(FAULTS.map((f) => f.name).filter((n) => !covered.has(n))).toEqual([]);
    for (const c of CASES) expect(faultByName(c.fault), c.fault).toBeDefined();
  });

  it.each(CASES.map((c) => [`${c.fault}: ${c.title}`, c] as const))('%s', async (_t, c) => {
    await runCase(c);
  });

  it.each(FAULTS.map((f) => [f.name, f] as const))('%s passes unrelated exchanges through', async (_n, f) => {
    // A health check and a provider-state-free record read of an unrelated shape.
    const req = makeRequest('GET', '/health');
    const forwarded: ProxyRequest[] = [];
    const res = makeResponse(200, { status: 'ok' });
    const out = await f.rewrite(
      req,
      context({ fault: f.name, title: '', steps: [] }, []),
      async (r) => (forwarded.push(r), res),
    );
    expect(forwarded).toEqual([req]);
    expect(out).toBe(res);
  });
});
