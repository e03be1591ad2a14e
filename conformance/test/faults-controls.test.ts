// The control catalogue (behaviours the spec allows but the reference does not show) and each
// control's rewrite on canned exchanges: the request the upstream receives and the answer the
// client gets change as the control intends. No network: `next` and side requests are stubs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAULTS } from '../faults/catalogue/index.js';
import { CONTROLS, controlByName } from '../faults/controls/index.js';
import type { FaultContext } from '../faults/fault.js';
import {
  bodyJson,
  jsonString,
  makeRequest,
  makeResponse,
  problem,
  type Grants,
  type ProxyRequest,
  type ProxyResponse,
} from '../faults/exchange.js';
import { resolveBindings } from '../src/suite-api/bindings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// ------------------------------------------------------------------------------------ harness

type Upstream = ProxyResponse | ((req: ProxyRequest) => ProxyResponse);

interface Case {
  /** the client's request */
  req: ProxyRequest;
  /** the upstream's answer (default: 200 `{}`) */
  upstream?: Upstream;
  /** side requests (`METHOD path` prefix → JSON answer) */
  side?: Record<string, unknown>;
  /** grants of token → as noted by the proxy (default: every token is an administrator's) */
  grants?: Record<string, Grants | 'admin'>;
  expect(out: ProxyResponse, forwarded: ProxyRequest[]): void;
}

function context(c: Case, memory = new Map()): FaultContext {
  return {
    tokenHeader: 'token',
    memory,
    publicUrl: 'http://proxy.test',
    adminToken: async () => 'ADMIN',
    domainIds: async () => new Map(),
    grantsOf: (t) => (c.grants && t !== undefined ? c.grants[t] : 'admin'),
    async call(method, pathAndQuery) {
      const line = `${method} ${pathAndQuery}`;
      const hit = Object.keys(c.side ?? {}).find((k) => line.startsWith(k));
      if (!hit) return { status: 400, text: '{}', json: {} };
      return { status: 200, text: JSON.stringify(c.side![hit]), json: c.side![hit] };
    },
  };
}

async function run(name: string, c: Case, memory?: Map<string, any>): Promise<void> {
  const control = controlByName(name);
  expect(control, `control ${name} exists`).toBeDefined();
  expect(control!.rewrite, `control ${name} has a rewrite`).toBeDefined();
  const forwarded: ProxyRequest[] = [];
  const next = async (req: ProxyRequest) => {
    forwarded.push(req);
    const u = c.upstream ?? makeResponse(200, {});
    return typeof u === 'function' ? u(req) : u;
  };
  const out = await control!.rewrite!(c.req, context(c, memory), next);
  c.expect(out, forwarded);
}

const T = { token: 'T' };
const get = (p: string, headers: Record<string, string> = T) => makeRequest('GET', p, { headers });
const post = (p: string, body?: unknown, headers: Record<string, string> = T) =>
  makeRequest('POST', p, { headers, body });
const del = (p: string) => makeRequest('DELETE', p, { headers: T });
const ok = (body: unknown) => makeResponse(200, body);
const json = (r: { body: Buffer }) => bodyJson(r);
const SCHED = '/api/Quotes/Proposals/12/Schedules/ProposalLocation';
const result = (IsSuccessful: boolean, RecordID: number, OrderNumber: number | null, Message: string) => ({
  IsSuccessful,
  RecordID,
  OrderNumber,
  Message,
  Warnings: null,
});
const notModifiable = makeResponse(
  409,
  result(
    false,
    0,
    null,
    'Cannot modify Proposal with ID# 12: the proposal cannot be modified because its status is B.',
  ),
);
const fileRecord = (rec: Record<string, unknown>) => ok({ Record: rec, Domain: 'File', Id: 5 });
const status = (s: number) => (out: ProxyResponse) => expect(out.status).toBe(s);
const codeAndStatus = (s: number, code: string) => (out: ProxyResponse) => {
  expect(out.status).toBe(s);
  expect(json(out)).toMatchObject({ status: s, code });
};

// Every control with a rewrite has at least one case here (checked below).
const CASES: Record<string, Case[]> = {
  // ---------------------------------------------------------------- shape
  'reversed-key-order': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Record: { A: 1, B: { C: 1, D: 2 } }, Domain: 'Claim', Id: 1 }),
      expect: (out) => {
        const b = json(out);
        expect(Object.keys(b)).toEqual(['Id', 'Domain', 'Record']);
        expect(Object.keys(b.Record.B)).toEqual(['D', 'C']);
        expect(b.Record).toEqual({ A: 1, B: { C: 1, D: 2 } });
      },
    },
  ],
  'pretty-printed-json': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Id: 1 }),
      expect: (out) => {
        expect(out.body.toString()).toBe('{\n  "Id": 1\n}\n');
        expect(out.headers['content-type']).toBe('application/json; charset=utf-8');
      },
    },
  ],
  'extra-response-headers': [
    {
      req: get('/api/Domains'),
      expect: (out) => expect(out.headers).toMatchObject({ 'cache-control': 'no-store', 'x-request-id': 'req-1' }),
    },
  ],
  'extra-envelope-keys': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
      expect: (out) => expect(json(out)).toMatchObject({ Id: 1, Links: { self: '/api/Claim/1' } }),
    },
    {
      req: get('/api/Claim/Query'),
      upstream: ok({ List: [{}, {}] }),
      expect: (out) => expect(json(out)).toEqual({ List: [{}, {}], Skip: 0, Take: 2 }),
    },
    {
      req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {}),
      upstream: ok({ Inserts: [], Updates: [], Deletes: [] }),
      expect: (out) => expect(json(out).IsAtomic).toBe(true),
    },
  ],
  'extra-result-keys': [
    {
      req: del(`${SCHED}/7`),
      upstream: ok(result(true, 7, null, 'Deleted.')),
      expect: (out) => expect(json(out)).toMatchObject({ IsSuccessful: true, Code: 'OK' }),
    },
    {
      req: post('/api/Quotes/Proposals/12/CreateMember'),
      upstream: ok({ IsSuccessful: true, RecordID: 3, Message: null }),
      expect: (out) => expect(json(out)).toMatchObject({ RecordID: 3, ProposalID: 12 }),
    },
  ],
  // ---------------------------------------------------------------- errors
  'server-error-body-object': [
    {
      req: get('/api/File/5?columns=FileID,DownloadURL'),
      upstream: makeResponse(500, 'Object reference not set to an instance of an object.'),
      expect(out) {
        expect(out.status).toBe(500);
        expect(json(out)).toMatchObject({ message: 'Object reference not set.' });
      },
    },
    { req: get('/api/File/5'), upstream: fileRecord({ FileID: 5 }), expect: status(200) },
  ],
  'server-error-body-empty': [
    {
      req: get('/api/File/5?columns=FileID,DownloadURL'),
      upstream: makeResponse(500, 'Object reference not set to an instance of an object.'),
      expect(out) {
        expect(out.status).toBe(500);
        expect(out.body.length).toBe(0);
      },
    },
    { req: get('/api/File/5'), upstream: fileRecord({ FileID: 5 }), expect: status(200) },
  ],
  'unknown-domain-400': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: codeAndStatus(400, 'UnknownDomain'),
    },
    {
      req: get('/api/Claim/999'),
      upstream: problem(404, 'RecordNotFound', 'no'),
      expect: status(404),
    },
  ],
  'unknown-domain-422': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: codeAndStatus(422, 'UnknownDomain'),
    },
  ],
  'missing-record-400': [
    {
      req: get('/api/Claim/9'),
      upstream: problem(404, 'RecordNotFound', 'x'),
      expect: codeAndStatus(400, 'RecordNotFound'),
    },
  ],
  'missing-record-410': [
    {
      req: get('/api/Claim/9'),
      upstream: problem(404, 'RecordNotFound', 'x'),
      expect: codeAndStatus(410, 'RecordNotFound'),
    },
  ],
  'link-query-refuses-partial-view': [
    {
      // the administrator sees a link the caller does not: the caller's answer becomes a 403
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      grants: { T: { Contact: ['View'] } },
      upstream: (req) =>
        ok({ List: req.headers.token === 'ADMIN' ? [{ ParentID: 1 }, { ParentID: 2 }] : [{ ParentID: 2 }] }),
      expect: (out, f) => {
        expect(f.map((r) => r.headers.token)).toEqual(['T', 'ADMIN']);
        expect(out.status).toBe(403);
      },
    },
    {
      // the same links for both: the caller's answer stays
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      grants: { T: { Contact: ['View'] } },
      upstream: ok({ List: [{ ParentID: 2 }] }),
      expect: (out) => expect(json(out)).toEqual({ List: [{ ParentID: 2 }] }),
    },
    {
      // an administrator's token, and other operations, are passed through untouched
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      upstream: ok({ List: [{ ParentID: 2 }] }),
      expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(200)),
    },
    {
      req: get('/api/Claim/1'),
      grants: { T: { Claim: ['View'] } },
      upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
      expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(200)),
    },
  ],
  'permission-denied-404': [
    { req: get('/api/Claim/9'), upstream: problem(403, 'Forbidden', 'x'), expect: codeAndStatus(404, 'Forbidden') },
  ],
  'permission-denied-401': [
    { req: get('/api/Claim/9'), upstream: problem(403, 'Forbidden', 'x'), expect: codeAndStatus(401, 'Forbidden') },
  ],
  'unauthenticated-403': [
    {
      req: get('/api/Domains'),
      upstream: problem(401, 'Unauthenticated', 'x'),
      expect: codeAndStatus(403, 'Unauthenticated'),
    },
  ],
  'bad-credentials-400': [
    {
      req: post('/Authentication/Authenticate', {}),
      upstream: problem(401, 'Unauthenticated', 'x'),
      expect: codeAndStatus(400, 'Unauthenticated'),
    },
    { req: get('/api/Domains'), upstream: problem(401, 'Unauthenticated', 'x'), expect: status(401) },
  ],
  'malformed-request-422': [
    { req: get('/api/Claim/Query?take=0'), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(422) },
    { req: get('/api/Claim/Query?columns=Nope'), upstream: problem(400, 'UnknownColumn', 'x'), expect: status(422) },
  ],
  'link-bad-request-422': [
    { req: post('/api/Link/Upsert', {}), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(422) },
    { req: get('/api/Claim/Query?take=0'), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(400) },
  ],
  'invalid-schedule-domain-400': [
    {
      req: post('/api/Quotes/Proposals/12/Schedules/Claim/UpsertMulti', {}),
      upstream: problem(404, 'InvalidScheduleDomain', 'x'),
      expect: status(400),
    },
  ],
  'bind-refused-422': [
    { req: post('/api/Quotes/Proposals/12/BindQuote'), upstream: problem(409, 'Conflict', 'x'), expect: status(422) },
  ],
  'not-modifiable-200': [
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => {
        expect(out.status).toBe(200);
        expect(json(out)).toMatchObject({ IsSuccessful: false, RecordID: 0 });
      },
    },
  ],
  'not-modifiable-422': [{ req: post(`${SCHED}/UpsertMulti`, {}), upstream: notModifiable, expect: status(422) }],
  'reinstate-refused-200': [
    {
      req: post(`${SCHED}/7/Reinstate`),
      upstream: makeResponse(409, result(false, 0, null, 'not deleted')),
      expect: (out) => {
        expect(out.status).toBe(200);
        expect(json(out).IsSuccessful).toBe(false);
      },
    },
  ],
  'limits-answered-400': [
    { req: post('/api/Link/Upsert', {}), upstream: problem(413 as 400, 'PayloadTooLarge', 'x'), expect: status(400) },
  ],
  'wrong-method-405': [
    {
      req: makeRequest('PUT', '/api/Claim/1', { headers: T }),
      upstream: problem(404, 'NotFound', 'No route for PUT /api/Claim/1.'),
      expect: (out) => {
        expect(out.status).toBe(405);
        expect(out.headers.allow).toBeTruthy();
      },
    },
  ],
  'undeclared-method-404': [
    {
      req: makeRequest('GET', '/api/Link/Upsert', { headers: T }),
      upstream: {
        ...problem(405, 'MethodNotAllowed', 'GET is not declared for /api/Link/Upsert; it allows POST.'),
        headers: { 'content-type': 'application/problem+json', allow: 'POST' },
      },
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(json(out)).toMatchObject({ status: 404, code: 'NotFound' });
        expect(out.headers.allow).toBeUndefined();
      },
    },
  ],
  'errors-other-shape': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(out.headers['content-type']).toBe('application/json');
        expect(json(out)).toEqual({ error: { code: 'UnknownDomain', message: 'Unknown domain claim.' } });
      },
    },
  ],
  'errors-as-json-string': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: (out) => expect(json(out)).toBe('Unknown domain claim.'),
    },
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => expect(json(out).IsSuccessful).toBe(false),
    },
  ],
  'errors-without-body': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(out.body.length).toBe(0);
      },
    },
  ],
  'problem-as-application-json': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: (out) => expect(out.headers['content-type']).toBe('application/json; charset=utf-8'),
    },
  ],
  // ---------------------------------------------------------------- domains
  'domains-bare-array': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1, Name: 'Claim' }] }),
      expect: (out) => expect(json(out)).toEqual([{ DomainID: 1, Name: 'Claim' }]),
    },
  ],
  'domains-envelope-named': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1 }] }),
      expect: (out) => expect(json(out)).toEqual({ Count: 1, Domains: [{ DomainID: 1 }] }),
    },
  ],
  'domains-list-nested': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1 }] }),
      expect: (out) => expect(json(out)).toEqual({ data: { items: [{ DomainID: 1 }] } }),
    },
  ],
  'total-count-in-header': [
    {
      req: get('/api/Claim/Query?includeTotalCount=true'),
      upstream: ok({ List: [], TotalCount: 35 }),
      expect: (out) => {
        expect(json(out)).toEqual({ List: [] });
        expect(out.headers['x-total-count']).toBe('35');
      },
    },
  ],
  'total-count-nested': [
    {
      req: get('/api/Claim/Query?includeTotalCount=true'),
      upstream: ok({ List: [], TotalCount: 35 }),
      expect: (out) => expect(json(out)).toEqual({ List: [], Meta: { Total: 35 } }),
    },
  ],
  'link-body-nested': [
    {
      req: post('/api/Link/Upsert', {
        Parent: { Domain: 'Claim', RecordID: 4 },
        Child: { Domain: 'Contact', RecordKey: 'k', MatchField: 'Email' },
        Relationship: 'Broker',
      }),
      expect: (_out, f) =>
        expect(json(f[0]!)).toEqual({
          ParentDomain: 'Claim',
          ParentRecordID: 4,
          ChildDomain: 'Contact',
          ChildRecordKey: 'k',
          ChildRecordMatchField: 'Email',
          Relationship: 'Broker',
        }),
    },
  ],
  'domains-other-order': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Task' }, { Name: 'File' }] }),
      expect: (out) => expect(json(out).List.map((d: any) => d.Name)).toEqual(['Task', 'File', 'Claim']),
    },
  ],
  'domains-extra-entry-keys': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ Name: 'Custom.X' }, { Name: 'File' }] }),
      expect: (out) =>
        expect(json(out).List).toEqual([
          { Name: 'Custom.X', IsCustom: true, IsLinkable: false },
          { Name: 'File', IsCustom: false, IsLinkable: true },
        ]),
    },
  ],
  // ---------------------------------------------------------------- query
  'query-params-renamed': [
    {
      req: get('/api/Claim/Query?offset=30&where=x&skip=5&includeTotalCount=true&withTotalCount=true'),
      expect: (_out, f) => {
        const q = f[0]!.query;
        expect(q.getAll('skip')).toEqual(['30']);
        expect(q.get('filter')).toBe('x');
        expect(q.getAll('includeTotalCount')).toEqual(['true']);
        expect(q.has('offset') || q.has('where') || q.has('withTotalCount')).toBe(false);
      },
    },
  ],
  'query-default-order-newest-first': [
    {
      req: get('/api/Claim/Query?columns=ClaimID'),
      side: { 'GET /api/Claim/Query?take=1&columns=ClaimID': { List: [] } },
      expect: (_out, f) => expect(f[0]!.query.get('sort')).toBe('ClaimID desc'),
    },
    {
      req: get('/api/Claim/Query?sort=Name'),
      expect: (_out, f) => expect(f[0]!.query.get('sort')).toBe('Name'),
    },
  ],
  'take-over-maximum-refused': [
    {
      req: get('/api/Claim/Query?take=101'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
    {
      req: get('/api/Claim/Query?take=100'),
      expect: (out, f) => (expect(out.status).toBe(200), expect(f).toHaveLength(1)),
    },
  ],
  'default-columns-wider': [
    {
      req: get('/api/Claim/Query'),
      upstream: ok({ List: [{ A: 1 }] }),
      expect: (out) => expect(json(out).List[0]).toEqual({ A: 1, RowVersion: 'v1' }),
    },
    {
      req: get('/api/Claim/Query?columns=A'),
      upstream: ok({ List: [{ A: 1 }] }),
      expect: (out) => expect(json(out).List[0]).toEqual({ A: 1 }),
    },
  ],
  // ---------------------------------------------------------------- files
  'file-user-ids-as-strings': [
    {
      req: get('/api/File/5?columns=EntryUserID as U,ModifiedUserID'),
      upstream: fileRecord({ U: 3, ModifiedUserID: null }),
      expect: (out) => expect(json(out).Record).toEqual({ U: 'user-3', ModifiedUserID: null }),
    },
    {
      req: get('/api/Claim/5?columns=EntryUserID'),
      upstream: ok({ Record: { EntryUserID: 3 }, Domain: 'Claim', Id: 5 }),
      expect: (out) => expect(json(out).Record.EntryUserID).toBe(3),
    },
  ],
  'file-dates-with-zone': [
    {
      req: get('/api/File/Query?columns=ModifiedDate,EntryDate'),
      upstream: ok({ List: [{ ModifiedDate: '2026-01-01T00:00:00.000', EntryDate: '2026-01-01T00:00:00.000' }] }),
      expect: (out) =>
        expect(json(out).List[0]).toEqual({
          ModifiedDate: '2026-01-01T00:00:00.000Z',
          EntryDate: '2026-01-01T00:00:00.000',
        }),
    },
  ],
  'file-dates-seven-fraction-digits': [
    {
      req: get('/api/Claim/5/Files?columns=EntryDate'),
      upstream: ok({ List: [{ EntryDate: '2026-01-01T00:00:00.123' }] }),
      expect: (out) => expect(json(out).List[0].EntryDate).toBe('2026-01-01T00:00:00.1230000'),
    },
  ],
  'document-status-as-code': [
    {
      req: get('/api/File/5?columns=DocumentStatusID'),
      upstream: fileRecord({ DocumentStatusID: 2 }),
      expect: (out) => expect(json(out).Record.DocumentStatusID).toBe('DS2'),
    },
  ],
  'unlinked-access-mode-as-name': [
    {
      req: get('/api/File/5?columns=UnlinkedAccessMode'),
      upstream: fileRecord({ UnlinkedAccessMode: 0 }),
      expect: (out) => expect(json(out).Record.UnlinkedAccessMode).toBe('Mode0'),
    },
  ],
  'download-url-other-shape': [
    {
      req: get('/api/File/5?columns=DownloadURL'),
      upstream: fileRecord({ DownloadURL: 'Download.aspx?FileID=5&SessionToken=abc' }),
      expect: (out) => expect(json(out).Record.DownloadURL).toMatch(/^Documents\/Download\/5\?s=/),
    },
    {
      req: get('/api/File/5?columns=DownloadURL'),
      upstream: fileRecord({ DownloadURL: '' }),
      expect: (out) => expect(json(out).Record.DownloadURL).toBe(''),
    },
  ],
  'external-columns-unknown': [
    {
      req: get('/api/File/5?columns=FileID,ExternalDirectURL'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
  ],
  'attached-files-without-sort-skip': [
    {
      req: get('/api/Claim/1/Files?sort=FileID&skip=1&take=2'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('take=2'),
    },
  ],
  'attached-files-newest-first': [
    {
      req: get('/api/Claim/1/Files?take=2'),
      upstream: ok({ List: [{ FileID: 1 }, { FileID: 2 }, { FileID: 3 }] }),
      expect: (out, f) => {
        expect(f[0]!.query.get('take')).toBe('100');
        expect(json(out).List).toEqual([{ FileID: 3 }, { FileID: 2 }]);
      },
    },
    { req: get('/api/Claim/1/Files?take=0'), expect: (_out, f) => expect(f[0]!.query.get('take')).toBe('0') },
  ],
  // ---------------------------------------------------------------- links
  'link-body-camel-case': [
    {
      req: post('/api/Link/Upsert', { parentDomain: 'Claim', childRecordId: 4, ParentRecordID: 9 }),
      expect: (_out, f) => expect(json(f[0]!)).toEqual({ ParentDomain: 'Claim', ChildRecordID: 4 }),
    },
  ],
  'link-query-params-renamed': [
    {
      req: get('/api/Link/Query?parentDomain=Claim&parentId=4&parentRecordID=9'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('parentDomain=Claim&parentRecordID=4'),
    },
  ],
  'relationship-column-as-code': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,Relationship'),
      upstream: (req) => {
        expect(req.query.get('columns')).toBe('ParentID,ContactTypeID as Relationship');
        return ok({
          List: [
            { ParentID: 1, Relationship: 3 },
            { ParentID: 2, Relationship: null },
          ],
        });
      },
      expect: (out) =>
        expect(json(out).List).toEqual([
          { ParentID: 1, Relationship: 'CT3' },
          { ParentID: 2, Relationship: null },
        ]),
    },
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ContactTypeID'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
  ],
  'link-query-documented-columns-only': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,ContactTypeID as R'),
      expect: (out, f) => (codeAndStatus(400, 'UnknownColumn')(out), expect(f).toHaveLength(0)),
    },
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentDomainID,ParentID as P,ChildDomainID,ChildID'),
      upstream: ok({ List: [] }),
      expect: (out, f) => (expect(out.status).toBe(200), expect(f).toHaveLength(1)),
    },
    { req: get('/api/Link/Query?childDomain=Contact'), upstream: ok({ List: [] }), expect: status(200) },
  ],
  'link-query-undocumented-columns-left-out': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,ContactTypeID as R,LinkID'),
      upstream: ok({ List: [{ ParentID: 1, R: 3, LinkID: 9 }] }),
      expect: (out) => expect(json(out).List).toEqual([{ ParentID: 1 }]),
    },
  ],
  'link-id-as-string': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=LinkID'),
      upstream: ok({ List: [{ LinkID: 7 }] }),
      expect: (out) => expect(json(out).List[0].LinkID).toBe('L-7'),
    },
  ],
  'link-writes-answer-204': [
    { req: post('/api/Link/Remove', {}), upstream: ok({ IsSuccessful: true }), expect: status(204) },
    { req: post('/api/Link/Remove', {}), upstream: ok({ IsSuccessful: false }), expect: status(200) },
  ],
  'link-remove-missing-404': [
    {
      req: post('/api/Link/Remove', {}),
      upstream: ok({ IsSuccessful: false, Message: 'No link.' }),
      expect: codeAndStatus(404, 'RecordNotFound'),
    },
  ],
  'link-upsert-other-result': [
    {
      req: post('/api/Link/Upsert', {}),
      upstream: ok({ IsSuccessful: true, LinkID: 1, ParentRecordID: 2, ChildRecordID: 3 }),
      expect: (out) => expect(json(out)).toEqual({ Created: true, Link: { Parent: 2, Child: 3 } }),
    },
  ],
  'link-query-newest-first': [
    {
      req: get('/api/Link/Query?childDomain=File'),
      upstream: ok({ List: [{ ParentID: 1 }, { ParentID: 2 }] }),
      expect: (out) => expect(json(out).List).toEqual([{ ParentID: 2 }, { ParentID: 1 }]),
    },
  ],
  // ---------------------------------------------------------------- proposals
  'queue-bind-answers-202': [
    {
      req: post('/api/Quotes/Proposals/12/QueueBindQuote'),
      upstream: makeResponse(200),
      expect: (out) => (expect(out.status).toBe(202), expect(json(out)).toEqual({ Queued: true, ProposalID: 12 })),
    },
  ],
  'queue-bind-ignores-billing': [
    {
      req: post('/api/Quotes/Proposals/12/QueueBindQuote?billingStatus=B&billingFrequencyCode=M&x=1'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('x=1'),
    },
  ],
  'bind-quote-other-result': [
    {
      req: post('/api/Quotes/Proposals/12/BindQuote'),
      upstream: ok({ PolicyID: 4, PolicyNumber: 'P-4' }),
      expect: (out) => expect(json(out)).toEqual({ Bound: true, Policy: { ID: 4, Number: 'P-4' } }),
    },
  ],
  'reinstate-answers-204': [
    { req: post(`${SCHED}/7/Reinstate`), upstream: ok(result(true, 7, null, 'Reinstated.')), expect: status(204) },
  ],
  'not-modifiable-says-locked': [
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => expect(json(out).Message).toBe('Proposal 12 is locked and cannot be changed.'),
    },
  ],
  'not-modifiable-says-read-only': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: makeResponse(409, {
        Inserts: [result(false, 0, 0, 'Proposal with ID# 12 cannot be modified.')],
        Updates: [],
        Deletes: [],
      }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('Proposal 12 is read-only; no changes were made.'),
    },
  ],
  'member-assigned-other-words': [
    {
      req: post('/api/Quotes/Proposals/12/CreateMember'),
      upstream: jsonString(500, 'MemberID is already assigned to Proposal record.'),
      side: { 'GET /api/Proposal/12': { Record: { MemberID: 34 } } },
      expect: (out) => {
        expect(out.status).toBe(500);
        expect(json(out)).toBe('Proposal 12 already has a member (MemberID 34); nothing was created.');
      },
    },
  ],
  'location-name-other-words': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: ok({ Inserts: [result(false, 0, 0, 'LocationName is required.')], Updates: [], Deletes: [] }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('LocationName: a value must be provided.'),
    },
  ],
  'schedule-messages-other-words': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: ok({
        Inserts: [result(true, 17, 0, 'Inserted schedule with id 17 successfully.')],
        Updates: [],
        Deletes: [],
      }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('Schedule 17 was inserted.'),
    },
  ],
  'bind-error-other-words': [
    {
      req: get('/api/Quotes/Proposals/12/BindStatus'),
      upstream: ok({ Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
      expect: (out) =>
        expect(json(out).ErrorMessage).toBe('The proposal has not been rated yet; rate it before binding.'),
    },
  ],
  'warnings-empty-list': [
    {
      req: del(`${SCHED}/7`),
      upstream: ok(result(true, 7, null, 'Deleted.')),
      expect: (out) => expect(json(out).Warnings).toEqual([]),
    },
    // section 7 documents Warnings null for the refused DELETE on a non-modifiable proposal
    { req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(json(out).Warnings).toBeNull() },
  ],
  'bound-date-with-offset': [
    {
      req: get('/api/Quotes/Proposals/12/BindStatus'),
      upstream: ok({ Status: 'Bound', BoundDateUTC: '2026-11-21T05:40:12.345Z' }),
      expect: (out) => expect(json(out).BoundDateUTC).toBe('2026-11-21T05:40:12+00:00'),
    },
  ],
  // ---------------------------------------------------------------- auth
  'token-as-bearer': [
    {
      req: get('/api/Domains', { authorization: 'Bearer abc', token: 'ignored' }),
      expect: (_out, f) => {
        expect(f[0]!.headers.token).toBe('abc');
        expect(f[0]!.headers.authorization).toBeUndefined();
      },
    },
    { req: get('/api/Domains', { token: 'abc' }), expect: (_out, f) => expect(f[0]!.headers.token).toBeUndefined() },
  ],
  'token-in-x-api-key': [
    { req: get('/api/Domains', { 'x-api-key': 'abc' }), expect: (_out, f) => expect(f[0]!.headers.token).toBe('abc') },
  ],
  'authenticate-other-shape': [
    {
      req: post('/Authentication/Authenticate', { account: 'a', username: 'u', password: 'p' }),
      upstream: ok({ Token: 'tok' }),
      expect: (out, f) => {
        expect(json(f[0]!)).toEqual({ Account: 'a', User: 'u', Password: 'p', ClientName: 'control' });
        expect(json(out)).toEqual({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      },
    },
  ],
};

describe('control rewrites on canned exchanges', () => {
  it.each(Object.entries(CASES))('%s', async (name, cases) => {
    for (const c of cases) await run(name, c);
  });

  it('slow-binding answers NotBound until the delay after QueueBindQuote has passed', async () => {
    const memory = new Map<string, any>();
    const bound = ok({
      ProposalID: 12,
      Status: 'Bound',
      PolicyID: 4,
      MemberID: 5,
      PolicyNumber: 'P',
      MemberName: 'M',
      BoundDateUTC: 'x',
      ErrorMessage: null,
    });
    await run(
      'slow-binding',
      {
        req: get('/api/Quotes/Proposals/12/BindStatus'),
        upstream: bound,
        expect: (out) => expect(json(out).Status).toBe('Bound'),
      },
      memory,
    );
    await run(
      'slow-binding',
      { req: post('/api/Quotes/Proposals/12/QueueBindQuote'), upstream: makeResponse(200), expect: status(200) },
      memory,
    );
    await run(
      'slow-binding',
      {
        req: get('/api/Quotes/Proposals/12/BindStatus'),
        upstream: bound,
        expect: (out) => expect(json(out)).toMatchObject({ Status: 'NotBound', PolicyID: null, MemberName: null }),
      },
      memory,
    );
    memory.set('q:12', Date.now() - 60_000);
    await run(
      'slow-binding',
      {
        req: get('/api/Quotes/Proposals/12/BindStatus'),
        upstream: bound,
        expect: (out) => expect(json(out).Status).toBe('Bound'),
      },
      memory,
    );
  });
});

// ------------------------------------------------------------------------------------ catalogue

const openapi = parse(fs.readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8'));

/** JSON pointers (without the leading slash) of every `x-implementation-defined: true` in the OpenAPI document. */
function markers(): string[] {
  const out: string[] = [];
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  (function walk(v: unknown, p: string[]) {
    if (!v || typeof v !== 'object') return;
    if (!Array.isArray(v) && (v as Record<string, unknown>)['x-implementation-defined'] === true) out.push(p.join('/'));
    for (const [k, x] of Object.entries(v)) walk(x, [...p, esc(k)]);
  })(openapi, []);
  return out;
}

/** Markers no control exercises yet, each with the reason. */
const NOT_YET: Record<string, string> = {};

describe('control catalogue', () => {
  it('has at least 40 controls with unique kebab-case names, none shared with a fault', () => {
    expect(CONTROLS.length).toBeGreaterThanOrEqual(40);
    const names = [...CONTROLS.map((c) => c.name), ...FAULTS.map((f) => f.name)];
    expect(new Set(names).size).toBe(names.length);
    for (const c of CONTROLS) expect(c.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it.each(CONTROLS.map((c) => [c.name, c] as const))('%s is documented, quoted and runnable', (_n, c) => {
    expect(c.description).toMatch(/\S/);
    expect(c.description).not.toMatch(/\n/);
    expect(c.allowedBy, 'names the section that allows it').toMatch(/Sections? \d/);
    expect(c.rewrite || c.serverFlags?.length, 'a rewrite or a server flag').toBeTruthy();
    if (c.rewrite) expect(CASES[c.name] ?? (c.name === 'slow-binding' ? [] : undefined), 'a canned case').toBeDefined();
    // the bindings are ones the suite knows (a typo would fail every run of the control)
    if (c.config) expect(() => resolveBindings(c.config!.bindings)).not.toThrow();
  });

  it('exercises every x-implementation-defined marker of spec/openapi.yaml (or says why not yet)', () => {
    const all = markers();
    const named = new Set(CONTROLS.flatMap((c) => c.markers ?? []));
    for (const m of named) expect(all, `marker ${m} exists`).toContain(m);
    const missing = all.filter((m) => !named.has(m) && !(m in NOT_YET));
    expect(missing).toEqual([]);
  });
});
