// Authentication operation by operation, the link permission table of spec section 5 combination
// by combination, and the documented request limits (10 MB body → 413, URL over 10,000
// characters → 414) at their boundaries, on every operation that can meet them (app.request).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type CreatedApp } from '../../src/app.js';
import { createUser, issueToken } from '../../src/auth.js';
import { PERMISSIONS, type Permission } from '../../src/permissions.js';
import { seedDemo } from '../../src/seed.js';
import { MAX_BODY_BYTES, MAX_URL_CHARS } from '../../src/limits.js';
import { Auditor, diffSnapshots, report, snapshot } from './support.js';
import { fixtureFrom, fixtureStates, loadOps, templates, type Fixture, type Template } from './fuzz-model.js';
import { readResponse } from '../support/response.js';

let now = Date.parse('2026-03-01T10:00:00Z');
let created: CreatedApp;
let fx: Fixture;
let admin: string;
const auditor = new Auditor();
const ops = loadOps();

async function call(
  method: string,
  url: string,
  init: { token?: string | null; headers?: Record<string, string>; body?: string } = {},
) {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const token = init.token === undefined ? admin : init.token;
  if (token !== null) headers.Token = token;
  if (init.body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  const r = await created.app.request(url, { method, headers, body: init.body });
  const res = await readResponse(r);
  return { status: res.status, contentType: res.headers.get('content-type'), text: res.text, json: res.json };
}

async function state(name: string, params: Record<string, unknown> = {}) {
  const r = await call('POST', '/_provider-states', {
    token: null,
    body: JSON.stringify({
      state: name,
      params: { setupId: `al-${Math.random().toString(36).slice(2)}`, ...params },
      action: 'setup',
    }),
  });
  expect(r.status, r.text).toBe(200);
  return r.json as Record<string, any>;
}

function urlOf(t: Template, extraQuery: Array<[string, string]> = []): string {
  const op = ops.get(t.op)!;
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(t.pathParams[n]!));
  const q = [...t.query, ...extraQuery];
  return path + (q.length ? `?${new URLSearchParams(q)}` : '');
}

/** One template per operation of the spec (the first one of fuzz-model's list). */
function onePerOperation(): Template[] {
  const seen = new Set<string>();
  return templates(fx).filter((t) => !seen.has(t.op) && seen.add(t.op));
}

beforeAll(async () => {
  created = createApp({ providerStates: true, bindWorker: false, log: () => {}, clock: () => new Date(now) });
  seedDemo(created.deps);
  admin = issueToken(created.deps, createUser(created.deps.db, { name: 'al-admin' })).token;
  const states = await fixtureStates(state, 'al');
  fx = fixtureFrom(created.deps.db, states, { token: admin, expiredToken: 'unused' });
});

afterAll(() => created?.close());

describe('AUTH-002 AUTH-011: every operation refuses a missing, unknown or expired token with 401 Unauthenticated', () => {
  it('the templates cover every operation of the spec', () => {
    const covered = new Set(onePerOperation().map((t) => t.op));
    expect([...ops.keys()].filter((id) => !covered.has(id))).toEqual([]);
  });

  it('operation by operation: no token, unknown, forged, wrong header, expired (at exactly 30 minutes), deleted user; nothing changes', async () => {
    // tokens issued now expire at now + 30 min; one is issued 30 min "ago" by moving the clock
    const issuedAt = now;
    const expiring = issueToken(created.deps, createUser(created.deps.db, { name: 'al-expiring' })).token;
    const gone = createUser(created.deps.db, { name: 'al-gone' });
    const goneToken = issueToken(created.deps, gone).token;
    created.deps.db.prepare('DELETE FROM users WHERE UserID = ?').run(gone);
    const before = snapshot(created.deps.db);
    const cases: Array<{ name: string; token: string | null; headers?: Record<string, string> }> = [
      { name: 'no token', token: null },
      { name: 'empty token', token: '' },
      { name: 'unknown token', token: 'not-a-token-the-service-issued' },
      { name: 'forged token of the right shape', token: admin.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) },
      { name: 'token in Authorization: Bearer', token: null, headers: { Authorization: `Bearer ${admin}` } },
      { name: 'token of a deleted user', token: goneToken },
    ];
    let checked = 0;
    const sweep = async (name: string, token: string | null, headers?: Record<string, string>) => {
      for (const t of onePerOperation()) {
        const op = ops.get(t.op)!;
        if (!op.path.startsWith('/api/')) continue; // Authenticate is the one operation without a token
        const url = urlOf(t);
        const body = t.body === undefined ? undefined : JSON.stringify(t.body);
        const r = await call(op.method, url, { token, headers, body });
        const problems = auditor.audit(
          { method: op.method, url, requestText: body, status: r.status, contentType: r.contentType, bodyText: r.text },
          { exact: [401] },
        );
        expect(problems, `${t.op} with ${name}`).toEqual([]);
        expect(r.contentType ?? '').toMatch(/^application\/problem\+json/);
        expect(r.json, `${t.op} with ${name}`).toMatchObject({ status: 401, code: 'Unauthenticated' });
        checked++;
      }
    };
    for (const c of cases) await sweep(c.name, c.token, c.headers);
    now = issuedAt + 30 * 60 * 1000 - 1;
    // one millisecond before expiry the token still works
    expect((await call('GET', '/api/Domains', { token: expiring })).status).toBe(200);
    now = issuedAt + 30 * 60 * 1000;
    await sweep('an expired token', expiring);
    await sweep('an admin token, also expired', admin);
    now = issuedAt;
    expect(diffSnapshots(before, snapshot(created.deps.db))).toEqual([]);
    // every operation that takes a token (all of the spec's but Authenticate), under every case
    const operations = onePerOperation().filter((t) => ops.get(t.op)!.path.startsWith('/api/')).length;
    report('auth-tokens', { operations, tokenCases: cases.length + 2, requests: checked });
    expect(operations).toBe(ops.size - 1);
    expect(checked).toBe(operations * (cases.length + 2));
  });
});

// ---------------------------------------------------------------------------------------------
// The link permission table (spec 5)

type Child = 'Contact' | 'File';
const NEEDS: Record<'upsert' | 'remove', Record<Child, Permission>> = {
  upsert: { Contact: 'AttachContacts', File: 'AttachFiles' },
  remove: { Contact: 'DetachContacts', File: 'ModifyFiles' },
};
const ALL = [...PERMISSIONS];
const without = (p: Permission) => ALL.filter((x) => x !== p);

describe('AUTH-004..AUTH-008: the link permission table, combination by combination', () => {
  it('upsert/remove x Contact/File x parent permission held or not x View on the child held or not x by ID or by match field', async () => {
    const db = created.deps.db;
    let combos = 0;
    const outcomes = { allowed: 0, refused: 0 };
    for (const op of ['upsert', 'remove'] as const) {
      for (const kind of ['Contact', 'File'] as const) {
        const needed = NEEDS[op][kind];
        const parentSets: Array<[string, Permission[]]> = [
          ['nothing', []],
          ['View only', ['View']],
          ['Edit only', ['Edit']],
          [`${needed} only`, [needed]],
          [`View+${needed}`, ['View', needed]],
          [`all but ${needed}`, without(needed)],
          ['all', ALL],
        ];
        const childSets: Array<[string, Permission[]]> = [
          ['nothing', []],
          ['View', ['View']],
          ['all but View', without('View')],
          [`View+${needed}`, ['View', needed]],
        ];
        for (const [pName, pPerms] of parentSets) {
          for (const [cName, cPerms] of childSets) {
            for (const ident of ['id', 'match'] as const) {
              combos++;
              const parent = await state('a link parent');
              const childId =
                kind === 'Contact'
                  ? (await state('a contact')).contactId
                  : (
                      await state('a file', {
                        kind: 'internal',
                        linked: false,
                        fileName: 'perm.txt',
                        contentsBase64: 'cGVybQ==',
                      })
                    ).fileId;
              const contactKey =
                kind === 'Contact'
                  ? (
                      db.prepare('SELECT ContactCode FROM Contact WHERE ContactID = ?').get(childId) as {
                        ContactCode: number;
                      }
                    ).ContactCode
                  : undefined;
              const linkCount = () =>
                (
                  db
                    .prepare(
                      'SELECT COUNT(*) AS n FROM links WHERE ParentDomainID = ? AND ParentID = ? AND ChildDomainID = ? AND ChildID = ?',
                    )
                    .get(parent.domainId, parent.id, kind === 'Contact' ? 2 : 4, childId) as { n: number }
                ).n;
              if (op === 'remove') {
                db.prepare(
                  'INSERT INTO links (ParentDomainID, ParentID, ChildDomainID, ChildID) VALUES (?, ?, ?, ?)',
                ).run(parent.domainId, parent.id, kind === 'Contact' ? 2 : 4, childId);
              }
              const before = linkCount();
              const user = issueToken(
                created.deps,
                createUser(db, { name: `perm-${combos}`, grants: { [parent.domain]: pPerms, [kind]: cPerms } }),
              ).token;
              const body: Record<string, unknown> =
                ident === 'id' || kind === 'File'
                  ? {
                      ParentDomain: parent.domain,
                      ParentRecordID: parent.id,
                      ChildDomain: kind,
                      ChildRecordID: childId,
                    }
                  : {
                      ParentDomain: parent.domain,
                      ParentRecordMatchField: parent.textMatchField,
                      ParentRecordKey: parent.textMatchKey,
                      ChildDomain: kind,
                      ChildRecordMatchField: 'ContactCode',
                      ChildRecordKey: contactKey,
                    };
              const url = op === 'upsert' ? '/api/Link/Upsert' : '/api/Link/Remove';
              const r = await call('POST', url, { token: user, body: JSON.stringify(body) });
              const allowed = pPerms.includes(needed) && cPerms.includes('View');
              const what = `${op} ${kind} (${ident}) with parent [${pName}] child [${cName}]: ${r.status} ${r.text.slice(0, 200)}`;
              expect(
                auditor.audit(
                  {
                    method: 'POST',
                    url,
                    requestText: JSON.stringify(body),
                    status: r.status,
                    contentType: r.contentType,
                    bodyText: r.text,
                  },
                  { exact: [allowed ? 200 : 403] },
                ),
                what,
              ).toEqual([]);
              if (allowed) {
                outcomes.allowed++;
                expect(r.json.IsSuccessful, what).toBe(true);
                expect(linkCount(), what).toBe(op === 'upsert' ? 1 : 0);
              } else {
                outcomes.refused++;
                expect(r.json, what).toMatchObject({ status: 403, code: 'Forbidden' });
                expect(linkCount(), `${what}: nothing may change`).toBe(before);
              }
            }
          }
        }
      }
    }
    report('permission-table', { combinations: combos, ...outcomes });
    expect(combos).toBe(2 * 2 * 7 * 4 * 2);
  }, 60_000);

  it('the "other child domain" row: a non-linkable child is refused with 400 whatever the user holds, and nothing is written', async () => {
    const parent = await state('a link parent');
    const note = created.deps.db.prepare('SELECT min(NoteID) AS id FROM Note').get() as { id: number };
    for (const grants of [
      { [parent.domain]: ['Edit'], Note: ['View'] },
      { [parent.domain]: ['View'], Note: [] },
      undefined,
    ] as Array<Record<string, Permission[]> | undefined>) {
      const user = issueToken(
        created.deps,
        createUser(created.deps.db, { name: `other-${Math.random()}`, grants }),
      ).token;
      for (const url of ['/api/Link/Upsert', '/api/Link/Remove']) {
        const body = JSON.stringify({
          ParentDomain: parent.domain,
          ParentRecordID: parent.id,
          ChildDomain: 'Note',
          ChildRecordID: note.id,
        });
        const r = await call('POST', url, { token: user, body });
        expect(
          auditor.audit(
            { method: 'POST', url, requestText: body, status: r.status, contentType: r.contentType, bodyText: r.text },
            { exact: [400] },
          ),
        ).toEqual([]);
        expect(r.json.code).toBe('MalformedRequest');
      }
    }
    expect(created.deps.db.prepare('SELECT COUNT(*) AS n FROM links WHERE ChildDomainID = 5').get()).toEqual({ n: 0 });
  });

  it('GET /api/Link/Query needs View on each domain it names', async () => {
    for (const [grants, url, status] of [
      [{ Claim: ['View'], Contact: ['View'] }, '/api/Link/Query?parentDomain=Claim&childDomain=Contact', 200],
      [{ Contact: ['View'] }, '/api/Link/Query?parentDomain=Claim&childDomain=Contact', 403],
      [{ Claim: ['View'] }, '/api/Link/Query?parentDomain=Claim&childDomain=Contact', 403],
      [{ Claim: ['View'] }, '/api/Link/Query?parentDomain=Claim', 200],
      [{ Claim: ['Edit', 'AttachContacts'] }, '/api/Link/Query?parentDomain=Claim', 403],
    ] as Array<[Record<string, Permission[]>, string, number]>) {
      const user = issueToken(created.deps, createUser(created.deps.db, { name: `lq-${Math.random()}`, grants })).token;
      const r = await call('GET', url, { token: user });
      expect(
        auditor.audit(
          { method: 'GET', url, status: r.status, contentType: r.contentType, bodyText: r.text },
          { exact: [status] },
        ),
        `${JSON.stringify(grants)} ${url}`,
      ).toEqual([]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Limits

describe('LIM-001: documented limits at their boundaries, on every operation', () => {
  it(`URL of exactly ${MAX_URL_CHARS} characters is served; ${MAX_URL_CHARS + 1} gets 414 UriTooLong (path + query)`, async () => {
    let n = 0;
    for (const t of onePerOperation()) {
      const op = ops.get(t.op)!;
      const body = t.body === undefined ? undefined : JSON.stringify(t.body);
      const base = urlOf(t, [['pad', '']]);
      for (const extra of [0, 1]) {
        const url = base + 'x'.repeat(MAX_URL_CHARS - base.length + extra);
        expect(url.length).toBe(MAX_URL_CHARS + extra);
        const r = await call(op.method, url, { body });
        n++;
        if (extra === 1) {
          expect(r.status, `${t.op} ${url.length}`).toBe(414);
          expect(r.json).toMatchObject({ status: 414, code: 'UriTooLong' });
          if (t.op !== 'authenticate')
            expect(
              auditor.audit({
                method: op.method,
                url,
                requestText: body,
                status: r.status,
                contentType: r.contentType,
                bodyText: r.text,
              }),
              t.op,
            ).toEqual([]);
        } else {
          expect(r.status, `${t.op} at the limit: ${r.text.slice(0, 200)}`).not.toBe(414);
        }
      }
    }
    report('limits-url', { operations: onePerOperation().length, requests: n });
  });

  it(`a body of exactly ${MAX_BODY_BYTES} bytes is read; one byte more gets 413 PayloadTooLarge (every operation with a body)`, async () => {
    // every operation documents 413, but only these read a body: at the limit it must be read
    expect(onePerOperation().every((t) => ops.get(t.op)!.statuses.includes(413))).toBe(true);
    const withBody = onePerOperation().filter((t) => ops.get(t.op)!.body !== undefined);
    expect(withBody.map((t) => t.op).sort()).toEqual(['authenticate', 'removeLink', 'upsertLink', 'upsertSchedules']);
    for (const t of withBody) {
      const op = ops.get(t.op)!;
      const url = urlOf(t);
      const frame = '{"pad":""}';
      for (const extra of [0, 1]) {
        const body = `{"pad":"${'x'.repeat(MAX_BODY_BYTES - frame.length + extra)}"}`;
        expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES + extra);
        const r = await call(op.method, url, { body });
        expect(
          auditor.audit(
            { method: op.method, url, requestText: '', status: r.status, contentType: r.contentType, bodyText: r.text },
            extra ? { exact: [413] } : {},
          ),
          `${t.op} +${extra}`,
        ).toEqual([]);
        if (extra) expect(r.json).toMatchObject({ status: 413, code: 'PayloadTooLarge' });
        // at the limit the body is read: refused for its content (400; UpsertMulti's arrays are required)
        else expect(r.status, `${t.op}: ${r.text.slice(0, 200)}`).toBe(400);
      }
    }
    report('limits-body', { operations: withBody.length, requests: withBody.length * 2 });
  }, 60_000);

  it('LIM-002: UpsertMulti takes 100 items; 101 get 413 and change nothing', async () => {
    const url = `/api/Quotes/Proposals/${fx.quote.id}/Schedules/ProposalLocation/UpsertMulti?isAtomic=true`;
    const count = () =>
      (
        created.deps.db.prepare('SELECT COUNT(*) AS n FROM ProposalLocation WHERE ProposalID = ?').get(fx.quote.id) as {
          n: number;
        }
      ).n;
    const before = count();
    const items = (n: number) =>
      JSON.stringify({
        Inserts: Array.from({ length: n }, (_, i) => ({ Fields: { LocationName: `L${i}` } })),
        Updates: [],
        Deletes: [],
      });
    const over = await call('POST', url, { body: items(101) });
    expect(over.status).toBe(413);
    expect(count()).toBe(before);
    const at = await call('POST', url, { body: items(100) });
    expect(at.status).toBe(200);
    expect(count()).toBe(before + 100);
  });

  it('the caps on list parameters answer 400, not a server error, at the most a URL can hold', async () => {
    const fill = (unit: string, sep: string, prefix: string) => {
      let s = prefix + unit;
      while (s.length + sep.length + unit.length <= MAX_URL_CHARS) s += sep + unit;
      return s;
    };
    const urls = [
      fill('VIN', ',', '/api/ProposalVehicle/Query?columns='),
      fill('VIN', ',', '/api/ProposalVehicle/Query?sort='),
      fill('VIN', ',', `/api/ProposalVehicle/${fx.quote.locationIds[0]}?columns=`),
      fill('City==1', '||', '/api/Location/Query?linqFilter='),
      fill('City:eq:1', '%26%26', '/api/Location/Query?filter='),
      '/api/Location/Query?linqFilter=' + '('.repeat(4_900) + 'City==1' + ')'.repeat(4_900),
      fill('LinkID', ',', '/api/Link/Query?parentDomain=Claim&columns='),
    ];
    for (const url of urls) {
      expect(url.length).toBeLessThanOrEqual(MAX_URL_CHARS);
      const r = await call('GET', url);
      expect(
        auditor.audit(
          { method: 'GET', url, status: r.status, contentType: r.contentType, bodyText: r.text },
          { exact: [400] },
        ),
        url.slice(0, 80),
      ).toEqual([]);
    }
  });
});
