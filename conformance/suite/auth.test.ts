// AUTH-*: token authentication and link permissions (spec 5, 7).
// Link bodies are built by t.links (names through the bindings); the effect of a link operation
// is verified through GET /api/Link/Query with its documented parameters.
import type { components, operations } from '../../spec/generated/openapi.js';
import type { ProviderStates } from '../../spec/generated/provider-states.js';
import { expect } from 'vitest';
import { conformance, linkBody } from '../src/suite-api/dsl.js';
import { loadOpenApi } from '../src/spec/openapi.js';
import { isRefusal } from '../src/suite-api/meaning.js';
import {
  type Ctx,
  type Q,
  MAX_TAKE,
  enc,
  get,
  judgedAlone,
  needsColumnsHonoured,
  needsMaximumTake,
  needsReadById,
} from './support/request.js';
import type { Grants, Permission } from './support/states.js';
import { CORE_DOMAIN_IDS as CORE_IDS } from './support/domain-ids.js';
import { inParallel } from './support/parallel.js';
import { linkRowsWithRelationship } from './support/relationship-column.js';
import { createMember, expectBodylessAccepted } from './support/create-member.js';

type Raw = Awaited<ReturnType<Ctx['raw']>>;

const is2xx = (s: number) => s >= 200 && s < 300;
const b64 = (s: string) => Buffer.from(s).toString('base64');

type LinkList = components['schemas']['LinkList'];
type ListEnvelope = components['schemas']['ListEnvelope'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type FileEnvelope = components['schemas']['FileEnvelope'];
type BindStatus = components['schemas']['BindStatus'];
type MemberCreationResult = components['schemas']['MemberCreationResult'];
type AuthenticateResponse = components['schemas']['AuthenticateResponse'];

/** Every permission except the download-related ones. */
const ALL: Permission[] = ['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles'];
const without = (p: Permission) => ALL.filter((x) => x !== p);

/** Whether the link parent→child exists, read through Link/Query (documented parameters). */
async function linkExists(
  t: Ctx,
  parentDomain: string,
  parentId: number,
  childDomain: string,
  childId: number,
): Promise<boolean> {
  const res = await get(t, '/api/Link/Query', {
    childDomain,
    childRecordID: childId,
    parentDomain,
    columns: 'ParentID,ChildID',
  });
  expect(res.status, `GET /api/Link/Query: ${res.text.slice(0, 300)}`).toBe(200);
  const list = (res.json as LinkList).List;
  expect(Array.isArray(list)).toBe(true);
  return list.some((x) => x.ParentID === parentId && x.ChildID === childId);
}

// ---------------------------------------------------------------- operation sweep (AUTH-001/002/011)

type Values<S extends keyof ProviderStates> = ProviderStates[S]['values'];
interface Fixture {
  rec: Values<'a record with associations'>;
  files: Values<'a record with files'>;
  contact: Values<'a contact'>;
  linkedContact: Values<'a contact'>;
  quote: Values<'a proposal'>;
  bindable: Values<'a proposal'>;
  bindable2: Values<'a proposal'>;
  endorsement: Values<'a proposal'>;
}

interface Op {
  op: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Set when the body comes from t.links (upsert/remove). */
  link?: 'upsert' | 'remove';
  secret?: string;
}

/**
 * The operations of the sweep in four families, each a test of its own with the states it needs: a
 * fault in one operation runs (and can fail) only its family's test, and a read never waits for the
 * absence window of the writes. Which operations there are is the spec's (every one that takes the
 * token, in the document's order); which family each is in, and how it is called, is SWEEP's.
 */
type Family = 'reads' | 'link-writes' | 'proposal-writes' | 'schedule-writes';
const FAMILY_STATES: Record<Family, Array<keyof Fixture>> = {
  reads: ['rec', 'files', 'linkedContact', 'bindable'],
  'link-writes': ['rec', 'contact', 'linkedContact'],
  'proposal-writes': ['quote', 'bindable', 'bindable2'],
  'schedule-writes': ['quote', 'endorsement'],
};
const FAMILY_NAMES = Object.keys(FAMILY_STATES) as Family[];

const STATES: { [K in keyof Fixture]: (t: Ctx) => Promise<Fixture[K]> } = {
  rec: (t) => t.given('a record with associations'),
  files: (t) =>
    t.given('a record with files', {
      files: [{ fileName: 'secret-file.txt', contentsBase64: b64('top secret bytes') }],
    }),
  contact: (t) => t.given('a contact'),
  linkedContact: (t) => t.given('a contact'),
  quote: (t) => t.given('a proposal', { type: 'Quote', locations: 3, hasMember: false }),
  bindable: (t) => t.given('a proposal', { type: 'Quote', hasMember: true, rated: true }),
  bindable2: (t) => t.given('a proposal', { type: 'Quote', hasMember: true, rated: true }),
  // two records: the first for the sweep's Reinstate, the second a control (needsReinstatable)
  endorsement: (t) => t.given('a proposal', { type: 'Endorsement', locations: 2 }),
};

/** The states of a family's test (the others are absent: its sweep never reads them). */
async function fixture(t: Ctx, family: Family): Promise<Fixture> {
  const names = FAMILY_STATES[family];
  // independent states at once (one round trip instead of several in a row)
  const values = await Promise.all(names.map((n) => STATES[n](t)));
  const f = Object.fromEntries(names.map((n, i) => [n, values[i]])) as unknown as Fixture;
  if (f.rec && f.linkedContact) {
    const ok = await t.links.upsert({
      parentDomain: f.rec.domain,
      parentId: f.rec.id,
      childDomain: 'Contact',
      childId: f.linkedContact.contactId,
    });
    expect(isRefusal(ok), `setup link: ${ok.text.slice(0, 200)}`).toBe(false);
  }
  if (f.endorsement) {
    // soft-delete the endorsement's locations first, so that Reinstate has something to do
    for (const id of f.endorsement.locationIds.slice(0, 2)) {
      const del = await t.raw(
        `/api/Quotes/Proposals/${f.endorsement.proposalId}/Schedules/${enc(f.endorsement.scheduleDomain)}/${id}`,
        { method: 'DELETE' },
      );
      expect(isRefusal(del)).toBe(false);
    }
  }
  return f;
}

/** The operations the spec guards with the token (all but Authenticate, whose `security` is empty). */
type TokenOperation = Exclude<keyof operations, 'authenticate'>;

/** Every operation of the document that takes the token: its family, and its call on the fixture. */
const SWEEP: { [K in TokenOperation]: { family: Family; call: (f: Fixture) => Op } } = {
  listDomains: {
    family: 'reads',
    call: () => ({ op: 'listDomains', method: 'GET', path: '/api/Domains', secret: 'DisplayNamePlural' }),
  },
  getRecord: {
    family: 'reads',
    call: (f) => ({
      op: 'getRecord',
      method: 'GET',
      path: `/api/${enc(f.rec.domain)}/${f.rec.id}`,
      secret: String(f.rec.textValue),
    }),
  },
  queryRecords: {
    family: 'reads',
    call: (f) => ({
      op: 'queryRecords',
      method: 'GET',
      path: `/api/${enc(f.rec.domain)}/Query?take=100`,
      secret: String(f.rec.textValue),
    }),
  },
  listAttachedFiles: {
    family: 'reads',
    call: (f) => ({
      op: 'listAttachedFiles',
      method: 'GET',
      path: `/api/${enc(f.files.domain)}/${f.files.id}/Files`,
      secret: 'secret-file.txt',
    }),
  },
  queryFiles: {
    family: 'reads',
    call: () => ({ op: 'queryFiles', method: 'GET', path: '/api/File/Query?take=100', secret: 'secret-file.txt' }),
  },
  // Contents under a token is AUTH-003's own test: asked here, its refusal would fail both
  getFile: {
    family: 'reads',
    call: (f) => ({
      op: 'getFile',
      method: 'GET',
      path: `/api/File/${f.files.fileIds[0]}?columns=FileName`,
      secret: 'secret-file.txt',
    }),
  },
  queryLinks: {
    family: 'reads',
    call: (f) => ({
      op: 'queryLinks',
      method: 'GET',
      path: `/api/Link/Query?childDomain=Contact&childRecordID=${f.linkedContact.contactId}&columns=ParentID,ChildID`,
    }),
  },
  upsertLink: { family: 'link-writes', call: () => ({ op: 'upsertLink', method: 'POST', path: '', link: 'upsert' }) },
  removeLink: { family: 'link-writes', call: () => ({ op: 'removeLink', method: 'POST', path: '', link: 'remove' }) },
  getBindStatus: {
    family: 'reads',
    call: (f) => ({
      op: 'getBindStatus',
      method: 'GET',
      path: `/api/Quotes/Proposals/${f.bindable.proposalId}/BindStatus`,
    }),
  },
  queueBindQuote: {
    family: 'proposal-writes',
    call: (f) => ({
      op: 'queueBindQuote',
      method: 'POST',
      path: `/api/Quotes/Proposals/${f.bindable.proposalId}/QueueBindQuote`,
    }),
  },
  bindQuote: {
    family: 'proposal-writes',
    call: (f) => ({
      op: 'bindQuote',
      method: 'POST',
      path: `/api/Quotes/Proposals/${f.bindable2.proposalId}/BindQuote`,
    }),
  },
  createMember: {
    family: 'proposal-writes',
    call: (f) => ({
      op: 'createMember',
      method: 'POST',
      path: `/api/Quotes/Proposals/${f.quote.proposalId}/CreateMember`,
    }),
  },
  upsertSchedules: {
    family: 'schedule-writes',
    call: (f) => ({
      op: 'upsertSchedules',
      method: 'POST',
      path: `${schedulesOf(f.quote)}/UpsertMulti`,
      body: {
        Inserts: [{ Fields: { [f.quote.requiredField]: 'Intruder Insert' } }],
        Updates: [{ ID: f.quote.locationIds[0], Fields: { [f.quote.requiredField]: 'Intruder Update' } }],
        Deletes: [{ ID: f.quote.locationIds[2] }],
      },
    }),
  },
  deleteSchedule: {
    family: 'schedule-writes',
    call: (f) => ({
      op: 'deleteSchedule',
      method: 'DELETE',
      path: `${schedulesOf(f.quote)}/${f.quote.locationIds[1]}`,
    }),
  },
  reinstateSchedule: {
    family: 'schedule-writes',
    call: (f) => ({ op: 'reinstateSchedule', method: 'POST', path: reinstatePath(f) }),
  },
};

/** The spec's operations that take the token, in the document's order; one the sweep lacks fails here. */
const SWEPT: TokenOperation[] = Object.values(loadOpenApi().doc.paths as Record<string, Record<string, unknown>>)
  .flatMap((item) => Object.values(item))
  .flatMap((o) => {
    const op = o as { operationId?: string; security?: unknown[] };
    return op.operationId && !(Array.isArray(op.security) && op.security.length === 0) ? [op.operationId] : [];
  })
  .map((id) => {
    if (!Object.hasOwn(SWEEP, id)) throw new Error(`auth sweep: the spec's operation ${id} has no entry in SWEEP`);
    return id as TokenOperation;
  });

const schedulesOf = (q: Fixture['quote']) => `/api/Quotes/Proposals/${q.proposalId}/Schedules/${enc(q.scheduleDomain)}`;
const reinstatePath = (f: Fixture, which = 0) =>
  `/api/Quotes/Proposals/${f.endorsement.proposalId}/Schedules/${enc(f.endorsement.scheduleDomain)}/${f.endorsement.locationIds[which]}/Reinstate`;

/**
 * A Reinstate the sweep judges was not served: whether a soft-deleted record can be reinstated at
 * all (its DELETE was soft) is SCHED-019's, tried by the suite on the control record, a step. It
 * blocks the test when the control cannot be reinstated either; otherwise the caller was refused.
 */
async function needsReinstatable(t: Ctx, f: Fixture): Promise<void> {
  await t.needs('SCHED-019', 'a soft-deleted Endorsement schedule record can be reinstated (a control)', async () => {
    const control = await t.raw(reinstatePath(f, 1), { method: 'POST' });
    expect(isRefusal(control), `Reinstate of the control record: ${control.status} ${control.text.slice(0, 200)}`).toBe(
      false,
    );
  });
}

function sweep(f: Fixture, family: Family): Op[] {
  return SWEPT.filter((op) => SWEEP[op].family === family).map((op) => SWEEP[op].call(f));
}

/** Calls one operation with `token` (null: no credentials). Link bodies as t.links builds them. */
async function call(t: Ctx, f: Fixture, o: Op, token: string | null): Promise<Raw> {
  if (o.link) {
    const childId = o.link === 'upsert' ? f.contact.contactId : f.linkedContact.contactId;
    const body = linkBody(
      { parentDomain: f.rec.domain, parentId: f.rec.id, childDomain: 'Contact', childId },
      t.bindings,
      o.link,
    );
    const path = o.link === 'upsert' ? t.bindings.paths.linkUpsert : t.bindings.paths.linkRemove;
    return t.raw(path, { method: 'POST', token, body: JSON.stringify(body) });
  }
  return t.raw(o.path, {
    method: o.method,
    token,
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  });
}

/** Nothing the unauthenticated calls of a family attempted happened (reads change nothing). */
async function expectNothingChanged(t: Ctx, f: Fixture, family: Family) {
  if (family === 'link-writes') {
    expect(await linkExists(t, f.rec.domain, f.rec.id, 'Contact', f.contact.contactId), 'link was created').toBe(false);
    expect(await linkExists(t, f.rec.domain, f.rec.id, 'Contact', f.linkedContact.contactId), 'link was removed').toBe(
      true,
    );
  }
  if (family === 'schedule-writes') {
    const q = f.quote;
    const loc0 = await get(t, `/api/${enc(q.scheduleDomain)}/${q.locationIds[0]}`, { columns: q.requiredField });
    expect(loc0.status).toBe(200);
    expect((loc0.json as RecordEnvelope).Record[q.requiredField]).not.toBe('Intruder Update');
    for (const id of [q.locationIds[1], q.locationIds[2]]) {
      const loc = await get(t, `/api/${enc(q.scheduleDomain)}/${id}`, { columns: q.requiredField });
      expect(loc.status, `schedule record ${id} was deleted`).toBe(200);
    }
    // the soft-deleted record is still soft-deleted: reinstating it now works
    const re = await t.raw(reinstatePath(f), { method: 'POST' });
    if (isRefusal(re)) await needsReinstatable(t, f);
    expect(isRefusal(re), `reinstate after refused attempts: ${re.text.slice(0, 200)}`).toBe(false);
  }
  if (family === 'proposal-writes') {
    // the bind attempts did nothing, judged after as long as an accepted binding takes to show
    await t.expectStaysAbsent(
      async () => {
        for (const p of [f.bindable, f.bindable2]) {
          const bs = await get(t, `/api/Quotes/Proposals/${p.proposalId}/BindStatus`);
          expect(bs.status).toBe(200);
          expect((bs.json as BindStatus).Status).toBe('NotBound');
        }
      },
      {
        positive: async () => {
          const control = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
          const q = await t.raw(`/api/Quotes/Proposals/${control.proposalId}/QueueBindQuote`, { method: 'POST' });
          expect(isRefusal(q), `control: QueueBindQuote ${q.status}`).toBe(false);
          await t.poll(
            () => get(t, `/api/Quotes/Proposals/${control.proposalId}/BindStatus`),
            (r) => (r.json as BindStatus | undefined)?.Status !== 'NotBound',
          );
        },
      },
    );
    // the proposal still has no member: creating one now succeeds (a refusal of the bodyless form is
    // MEM-008's, judged by its test: a step here)
    const cm = await createMember(t, f.quote.proposalId);
    expectBodylessAccepted(cm);
    expect(cm.status).toBe(200);
    expect((cm.json as MemberCreationResult).IsSuccessful).toBe(true);
  }
}

for (const family of FAMILY_NAMES) {
  conformance(
    {
      id: `auth.valid-token-served.${family}`,
      title: `a request with a valid API token is served, on every operation of the ${family.replace('-', ' ')}`,
      requirements: ['AUTH-001'],
      mutates: true,
      timeoutMs: 60_000,
    },
    async (t) => {
      const u = await t.given('a user');
      const tok = u.token as string;
      expect(typeof tok).toBe('string');
      const f = await fixture(t, family);
      // the reads below are judged on whether the caller is served; that they answer the record
      // asked for is REC-002's (its test fails a read that answers another record; here it blocks)
      if (family === 'reads') {
        if (f.rec.keyField) await needsReadById(t, f.rec.domain, f.rec.keyField, f.rec.id, tok);
        await needsReadById(t, 'File', 'FileID', f.files.fileIds[0]!, tok);
      }
      for (const o of sweep(f, family)) {
        const res = await call(t, f, o, tok);
        if (o.op === 'getFile' && res.status === 200)
          await needsColumnsHonoured(
            t,
            'FileName',
            [(res.json as FileEnvelope).Record ?? {}],
            'getFile?columns=FileName',
          );
        // CreateMember is sent in its documented form, without a body: its refusal is MEM-008's
        if (o.op === 'createMember') expectBodylessAccepted(res);
        if (o.op === 'reinstateSchedule' && (!is2xx(res.status) || isRefusal(res))) await needsReinstatable(t, f);
        // the query reads ask a page of 100, the documented maximum: refused for that alone, QRY-005's
        if (o.op === 'queryRecords' || o.op === 'queryFiles')
          await needsMaximumTake(t, `${o.op} with a valid token`, res, MAX_TAKE, () =>
            call(t, f, { ...o, path: o.path.replace(`take=${MAX_TAKE}`, `take=${MAX_TAKE - 1}`) }, tok),
          );
        expect(is2xx(res.status), `${o.op} with a valid token: ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
        if (o.op !== 'queueBindQuote' && o.op !== 'bindQuote') {
          expect(isRefusal(res), `${o.op}: ${res.text.slice(0, 200)}`).toBe(false);
        }
        // served with the record's data: which columns a read answers is the column rules' (a step)
        if (o.secret && ['getRecord', 'listAttachedFiles', 'getFile'].includes(o.op))
          await t.needs(
            o.path.includes('columns=') ? 'COL-001' : 'COL-002',
            `${o.op} answers the record’s columns`,
            async () => expect(res.text, o.op).toContain(o.secret),
          );
      }
      if (family === 'link-writes') {
        // the link writes were served; that they took effect is LINK-013's and LINK-015's statement
        const made = await linkExists(t, f.rec.domain, f.rec.id, 'Contact', f.contact.contactId);
        const kept = await linkExists(t, f.rec.domain, f.rec.id, 'Contact', f.linkedContact.contactId);
        judgedAlone('LINK-013', 'the Upsert of the sweep made its link', () => expect(made).toBe(true));
        judgedAlone('LINK-015', 'the Remove of the sweep deleted its link', () => expect(kept).toBe(false));
      }
    },
  );

  conformance(
    {
      id: `auth.missing-or-unknown-token-refused.${family}`,
      title: `a request without a token or with a token the service did not issue is not served, on every operation of the ${family.replace('-', ' ')}: no data, no change`,
      requirements: ['AUTH-002'],
      mutates: true,
      timeoutMs: 60_000,
    },
    async (t) => {
      const f = await fixture(t, family);
      const forged = `forged-${Math.random().toString(36).slice(2)}-token`;
      // the refused calls a few at a time: a refusal changes nothing, so their order cannot matter
      const attempts = [null, forged].flatMap((token) => sweep(f, family).map((o) => ({ token, o })));
      const answers = await inParallel(attempts, ({ token, o }) => call(t, f, o, token));
      for (const [i, { token, o }] of attempts.entries()) {
        const res = answers[i]!;
        const what = `${o.op} ${token === null ? 'without a token' : 'with a forged token'}: ${res.status} ${res.text.slice(0, 200)}`;
        expect(isRefusal(res), what).toBe(true);
        expect(
          is2xx(res.status) && ((res.json as Partial<ListEnvelope> | undefined)?.List?.length ?? 0) > 0,
          what,
        ).toBe(false);
        if (o.secret) expect(res.text, what).not.toContain(o.secret);
        expect(res.text, what).not.toContain(b64('top secret bytes'));
      }
      await expectNothingChanged(t, f, family);
    },
  );
}

conformance(
  {
    id: 'auth.contents-with-api-token',
    title: 'Contents is returned to a caller authenticated with an API token',
    requirements: ['AUTH-003'],
  },
  async (t) => {
    const bytes = Buffer.from([0, 1, 2, 3, 250, 251, 252, 10]);
    const f = await t.given('a file', {
      kind: 'internal',
      linked: true,
      fileName: 'token.bin',
      contentsBase64: bytes.toString('base64'),
    });
    // which permission lets a user read a file is not shown (View is the reference's, AUTH-012): all of them
    const u = await t.given('a user', { grants: { File: [...ALL, 'Full'] } });
    // a read that answers another file is REC-002's failure, a column list ignored COL-001's: both block
    await needsReadById(t, 'File', 'FileID', f.fileId, u.token);
    const res = await get(t, `/api/File/${f.fileId}`, { columns: 'Contents' }, u.token);
    expect(res.status).toBe(200);
    await needsColumnsHonoured(t, 'Contents', [(res.json as FileEnvelope).Record ?? {}], 'getFile?columns=Contents');
    const c = (res.json as FileEnvelope).Record.Contents;
    expect(typeof c).toBe('string');
    // returned: what the administrator reads too; that it holds the stored bytes is FILE-010's (a step)
    const admin = await get(t, `/api/File/${f.fileId}`, { columns: 'Contents' }, await t.adminToken());
    const adminContents = (admin.json as FileEnvelope).Record.Contents;
    await t.needs('FILE-010', 'Contents holds the file’s bytes in base64', async () =>
      expect(Buffer.from(String(adminContents), 'base64').equals(bytes)).toBe(true),
    );
    expect(c, 'Contents to the API-token caller').toBe(adminContents);
  },
);

// ---------------------------------------------------------------- link permission table (AUTH-004..007)

type Child = 'Contact' | 'File';

async function child(t: Ctx, kind: Child): Promise<number> {
  if (kind === 'Contact') return (await t.given('a contact')).contactId;
  const f = await t.given('a file', {
    kind: 'internal',
    linked: false,
    fileName: 'perm.txt',
    contentsBase64: b64('perm'),
  });
  return f.fileId;
}

/**
 * One cell of the permission table: a user with `parentPerms` on the parent domain and
 * `childPerms` on the child domain attempts `op`; `allowed` says whether it must succeed.
 */
async function permissionCase(
  t: Ctx,
  op: 'upsert' | 'remove',
  kind: Child,
  parentPerms: Permission[],
  childPerms: Permission[],
  allowed: boolean,
) {
  const parent = await t.given('a link parent');
  const childId = await child(t, kind);
  const args = { parentDomain: parent.domain as string, parentId: parent.id as number, childDomain: kind, childId };
  if (op === 'remove') {
    const pre = await t.links.upsert(args);
    expect(isRefusal(pre), `setup link: ${pre.text.slice(0, 200)}`).toBe(false);
  }
  const before = await linkExists(t, parent.domain, parent.id, kind, childId);
  expect(before).toBe(op === 'remove');

  const grants: Grants = { [parent.domain]: parentPerms };
  grants[kind] = childPerms;
  const u = await t.given('a user', { grants });
  const res = await t.links[op](args, u.token);
  const after = await linkExists(t, parent.domain, parent.id, kind, childId);
  const what = `${op} ${kind} link with parent ${JSON.stringify(parentPerms)} child ${JSON.stringify(childPerms)}: ${res.status} ${res.text.slice(0, 200)}`;
  if (allowed) {
    expect(isRefusal(res), what).toBe(false);
    // the permission let the request through; that an accepted Upsert makes the link and an
    // accepted Remove deletes it are LINK-013's and LINK-015's statements (judged by their tests)
    judgedAlone(op === 'upsert' ? 'LINK-013' : 'LINK-015', `the accepted ${op} takes effect`, () =>
      expect(after, what).toBe(op === 'upsert'),
    );
  } else {
    expect(isRefusal(res), what).toBe(true);
    expect(after, `${what} (nothing may change)`).toBe(before);
  }
  return res;
}

const TABLE: Array<{ op: 'upsert' | 'remove'; kind: Child; needs: Permission; req: string }> = [
  { op: 'upsert', kind: 'Contact', needs: 'AttachContacts', req: 'AUTH-006' },
  { op: 'remove', kind: 'Contact', needs: 'DetachContacts', req: 'AUTH-006' },
  { op: 'upsert', kind: 'File', needs: 'AttachFiles', req: 'AUTH-007' },
  { op: 'remove', kind: 'File', needs: 'ModifyFiles', req: 'AUTH-007' },
];

const kebab = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
/** The class of the row's requirement: the operation and the permission it needs (spec 5). */
const rowClass = (row: (typeof TABLE)[number]) => `${row.req}:${row.op}-${kebab(row.needs)}`;

for (const row of TABLE) {
  conformance(
    {
      id: `auth.link-${row.op}-${row.kind.toLowerCase()}-with-${kebab(row.needs)}`,
      title: `${row.op} of a ${row.kind} link succeeds for a user holding ${row.needs} on the parent domain and View on ${row.kind}`,
      requirements: [row.req],
      classes: [rowClass(row)],
      mutates: true,
    },
    async (t) => {
      await permissionCase(t, row.op, row.kind, ['View', row.needs], ['View'], true);
    },
  );
  conformance(
    {
      id: `auth.link-${row.op}-${row.kind.toLowerCase()}-without-${kebab(row.needs)}`,
      title: `${row.op} of a ${row.kind} link is refused, changing nothing, for a user lacking ${row.needs} on the parent domain`,
      requirements: ['AUTH-004', row.req],
      classes: [rowClass(row)],
      mutates: true,
    },
    async (t) => {
      await permissionCase(t, row.op, row.kind, without(row.needs), ['View'], false);
    },
  );
  conformance(
    {
      id: `auth.link-${row.op}-${row.kind.toLowerCase()}-with-${kebab(row.needs)}-on-child-only`,
      title: `${row.op} of a ${row.kind} link is refused, changing nothing, when ${row.needs} is held on ${row.kind} but not on the parent domain`,
      requirements: ['AUTH-004', row.req],
      mutates: true,
    },
    async (t) => {
      // the permission is checked on the parent domain (spec 5 rule 4), not on either side
      await permissionCase(t, row.op, row.kind, ['View'], ['View', row.needs], false);
    },
  );
  conformance(
    {
      id: `auth.link-${row.op}-${row.kind.toLowerCase()}-without-child-view`,
      title: `${row.op} of a ${row.kind} link is refused, changing nothing, without View on ${row.kind} even with every parent permission`,
      requirements: ['AUTH-005'],
      classes: [`AUTH-005:${row.kind.toLowerCase()}-${row.op}`],
      mutates: true,
    },
    async (t) => {
      await permissionCase(t, row.op, row.kind, ALL, without('View'), false);
    },
  );
}

conformance(
  {
    id: 'auth.link-upsert-by-match-field-checks-permission',
    title: 'a Contact link whose records are named by match fields is refused without Attach Contacts and made with it',
    requirements: ['AUTH-004', 'AUTH-006', 'LINK-009'],
    mutates: true,
  },
  async (t) => {
    // identification by match field (spec 4.4 rule 2) is no way around the parent permission
    const parent = await t.given('a link parent');
    const contact = await t.given('a contact');
    const args = {
      parentDomain: parent.domain as string,
      parentMatch: { field: parent.textMatchField as string, key: parent.textMatchKey as string },
      childDomain: 'Contact',
      childMatch: { field: contact.textMatchField as string, key: contact.textMatchKey as string },
    };
    const lacking = await t.given('a user', {
      grants: { [parent.domain]: without('AttachContacts'), Contact: ['View'] },
    });
    const refused = await t.links.upsert(args, lacking.token);
    const madeAnyway = await linkExists(t, parent.domain, parent.id, 'Contact', contact.contactId);
    // the refusal is the permission table's statement (spec 5: "| Contact | Attach Contacts |"), not
    // LINK-009's (the match field): a permission check let through fails AUTH-006 and blocks the rest
    judgedAlone('AUTH-006', 'Upsert without Attach Contacts is refused', () => {
      expect(
        isRefusal(refused),
        `upsert by match fields without AttachContacts: ${refused.status} ${refused.text.slice(0, 200)}`,
      ).toBe(true);
      expect(madeAnyway, 'no link was made').toBe(false);
    });

    const holding = await t.given('a user', {
      grants: { [parent.domain]: ['View', 'AttachContacts'], Contact: ['View'] },
    });
    const made = await t.links.upsert(args, holding.token);
    expect(
      isRefusal(made),
      `upsert by match fields with AttachContacts: ${made.status} ${made.text.slice(0, 200)}`,
    ).toBe(false);
    expect(
      await linkExists(t, parent.domain, parent.id, 'Contact', contact.contactId),
      'the link names the matched records',
    ).toBe(true);
  },
);

conformance(
  {
    id: 'auth.link-upsert-existing-contact-link-checks-permission',
    title:
      'an Upsert that would update an existing Contact link is refused without Attach Contacts and changes nothing',
    requirements: ['AUTH-004', 'AUTH-006'],
    mutates: true,
  },
  async (t) => {
    // the permission guards updates of an existing link as much as new links
    const rels = (await t.given('contact relationships')).relationships as string[];
    expect(Array.isArray(rels) && rels.length >= 2, 'state "contact relationships" gives at least two codes').toBe(
      true,
    );
    const parent = await t.given('a link parent');
    const contact = await t.given('a contact');
    const args = {
      parentDomain: parent.domain as string,
      parentId: parent.id as number,
      childDomain: 'Contact',
      childId: contact.contactId as number,
    };
    const made = await t.links.upsert({ ...args, relationship: rels[0] });
    expect(isRefusal(made), `setup link: ${made.status} ${made.text.slice(0, 200)}`).toBe(false);
    // the relationship is read through an undocumented column (spec 2.3: "not shown"): without it,
    // the count of links is still judged, the unchanged relationship is not
    const read = async () => {
      const { rows, relationship } = await linkRowsWithRelationship(
        t,
        { childDomain: 'Contact', childRecordID: contact.contactId, parentDomain: parent.domain },
        'ParentID,ChildID',
        'whether the refused re-upsert changed the relationship is not judged',
      );
      return { rows: rows.filter((l) => l.ParentID === parent.id && l.ChildID === contact.contactId), relationship };
    };
    const before = await read();
    expect(before.rows, 'one link before').toHaveLength(1);

    const lacking = await t.given('a user', {
      grants: { [parent.domain]: without('AttachContacts'), Contact: ['View'] },
    });
    const res = await t.links.upsert({ ...args, relationship: rels[1] }, lacking.token);
    expect(isRefusal(res), `re-upsert without AttachContacts: ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
    const after = await read();
    expect(after.rows, 'still exactly one link').toHaveLength(1);
    if (before.relationship !== undefined && after.relationship !== undefined)
      expect(after.rows[0][after.relationship], 'its relationship is unchanged').toEqual(
        before.rows[0][before.relationship],
      );
  },
);

// ---------------------------------------------------------------- Link/Query with partial permissions (AUTH-004/005)
//
// Spec 5 rule 4: "Link operations check the user's permissions on the parent domain. The user must
// also hold View permission on the child domain." Link/Query is one of the three link endpoints
// (4.4). Which parent permission a query needs, and whether a failed check refuses the whole query
// or leaves the links out, is not shown; so the users below hold NO permission on the parent
// domain (whatever the query needs, they lack it) or no permission on the child domain, and either
// answer is accepted: a refusal, or a list without those links. The forbidden link sits between two
// allowed ones in creation order, so "drop the first or last row" does not pass by luck.

type LinkRow = components['schemas']['LinkRecord'];

/** Link/Query as the administrator: the fixture's links are there (else the test is blocked, not failed). */
async function adminLinks(t: Ctx, q: Q): Promise<LinkRow[]> {
  return t.needs('LINK-011', 'read the links back as the administrator', async () => {
    const res = await get(t, '/api/Link/Query', q);
    expect(res.status, `GET /api/Link/Query ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
    const list = (res.json as LinkList).List;
    expect(Array.isArray(list), 'List is an array').toBe(true);
    return list;
  });
}

/** Link/Query as `token`: a refusal (undefined), or the rows of a successful answer. */
async function linksAs(t: Ctx, q: Q, token: string): Promise<LinkRow[] | undefined> {
  const res = await get(t, '/api/Link/Query', q, token);
  const what = `GET /api/Link/Query ${JSON.stringify(q)} as a user with partial permissions: ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, `${what} (a refusal is not a server error)`).toBeLessThan(500);
  if (isRefusal(res)) return undefined;
  const list = (res.json as LinkList).List;
  expect(Array.isArray(list), `${what}: List is an array`).toBe(true);
  return list;
}

/** Spec 2.1: "Core DomainIDs are fixed in every environment." */
const CORE_DOMAIN_IDS: Record<Child, number> = { Contact: CORE_IDS.Contact!, File: CORE_IDS.File! };

const hasLink = (rows: LinkRow[], k: Record<string, unknown>) =>
  rows.some((r) => Object.entries(k).every(([f, v]) => r[f] === v));

conformance(
  {
    id: 'auth.link-query-hides-links-of-parent-domain-without-permission',
    title:
      'Link/Query does not show a user the links whose parent is in a domain the user holds no permission on (refused or left out)',
    requirements: ['AUTH-004'],
    mutates: true,
  },
  async (t) => {
    // independent states at once; the links below are made one after another, in this order
    const [contact, before, hidden, after] = await Promise.all([
      t.given('a contact'),
      t.given('a link parent', { domain: 'Policy' }),
      t.given('a link parent', { domain: 'Claim' }),
      t.given('a link parent', { domain: 'Policy' }),
    ]);
    for (const p of [before, hidden, after]) {
      const made = await t.links.upsert({
        parentDomain: p.domain,
        parentId: p.id,
        childDomain: 'Contact',
        childId: contact.contactId,
      });
      expect(isRefusal(made), `setup link ${p.domain} ${p.id}: ${made.status} ${made.text.slice(0, 200)}`).toBe(false);
    }
    const q = { childDomain: 'Contact', childRecordID: contact.contactId, columns: 'ParentDomainID,ParentID' };
    const key = (p: typeof hidden) => ({ ParentDomainID: p.domainId, ParentID: p.id });
    const all = await adminLinks(t, q);
    // a contact keeps its links to several parents (LINK-005): set-up of this test, not its rule
    await t.needs('LINK-005', 'the contact stays linked to all three parents', async () => {
      for (const p of [before, hidden, after])
        expect(hasLink(all, key(p)), `admin sees ${p.domain} ${p.id}`).toBe(true);
    });

    // View on the child and on Policy; nothing at all on Claim
    const u = await t.given('a user', { grants: { Contact: ['View'], Policy: ['View'] } });
    const rows = await linksAs(t, q, u.token);
    if (rows !== undefined) expect(hasLink(rows, key(hidden)), 'the link to the Claim parent is not shown').toBe(false);
  },
);

conformance(
  {
    id: 'auth.link-query-hides-links-to-child-domain-without-view',
    title:
      'Link/Query does not show a user the links whose child is in a domain the user may not view, even with every parent permission (refused or left out)',
    requirements: ['AUTH-005'],
    mutates: true,
  },
  async (t) => {
    const [parent, fileBefore, contact, fileAfter] = await Promise.all([
      t.given('a link parent', { domain: 'Claim' }),
      child(t, 'File'),
      child(t, 'Contact'),
      child(t, 'File'),
    ]);
    const children: Array<[Child, number]> = [
      ['File', fileBefore],
      ['Contact', contact],
      ['File', fileAfter],
    ];
    for (const [kind, id] of children) {
      const made = await t.links.upsert({
        parentDomain: parent.domain,
        parentId: parent.id,
        childDomain: kind,
        childId: id,
      });
      expect(isRefusal(made), `setup link to ${kind} ${id}: ${made.status} ${made.text.slice(0, 200)}`).toBe(false);
    }
    const key = (kind: Child, id: number) => ({ ChildDomainID: CORE_DOMAIN_IDS[kind], ChildID: id });
    const q = {
      parentDomain: parent.domain,
      [t.bindings.linkQuery.parentRecordId]: parent.id,
      columns: 'ChildDomainID,ChildID',
    };
    const all = await adminLinks(t, q);
    for (const [kind, id] of children) expect(hasLink(all, key(kind, id)), `admin sees ${kind} ${id}`).toBe(true);

    // every permission on the parent domain and View on File; nothing at all on Contact
    const u = await t.given('a user', { grants: { [parent.domain]: ALL, File: ['View'] } });
    const rows = await linksAs(t, q, u.token);
    if (rows !== undefined)
      expect(hasLink(rows, key('Contact', contact)), 'the link to the Contact child is not shown').toBe(false);
  },
);

// ---------------------------------------------------------------- implementation-defined

conformance(
  {
    id: 'auth.reference-token-issuance',
    title:
      'the reference issues tokens at POST /Authentication/Authenticate, reads the Token header, and tokens last 30 minutes',
    requirements: ['AUTH-010'],
    profile: 'implementation-defined',
  },
  async (t) => {
    const u = await t.given('a user');
    // the token travels in the `Token` header, and only there
    const ok = await t.raw('/api/Domains', { token: null, headers: { Token: u.token } });
    expect(ok.status).toBe(200);
    const bearer = await t.raw('/api/Domains', { token: null, headers: { Authorization: `Bearer ${u.token}` } });
    expect(bearer.status).toBe(401);
    const query = await t.raw(`/api/Domains?Token=${enc(u.token)}`, { token: null });
    expect(query.status).toBe(401);

    // the issuing endpoint needs no token and takes {Account, User, Password, ClientName}
    const auth = (body: unknown) =>
      t.raw('/Authentication/Authenticate', { method: 'POST', token: null, body: JSON.stringify(body) });
    const wrong = await auth({
      Account: 'provider-states',
      User: `nobody-${Date.now()}`,
      Password: 'wrong',
      ClientName: 'conformance-suite',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('content-type') ?? '').toMatch(/application\/problem\+json/);
    expect(wrong.json).toMatchObject({ status: 401, code: 'Unauthenticated' });
    expect(wrong.text).not.toMatch(/"Token"/);
    const malformed = await auth({ Account: 'x', User: 5 });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ code: 'MalformedRequest' });

    // an expired token is refused
    const expired = await t.given('an expired token');
    expect((await t.raw('/api/Domains', { token: null, headers: { Token: expired.token } })).status).toBe(401);

    // issuance with real credentials: the reference's 'a user' state reveals them
    expect(typeof u.account, "'a user' returns account/user/password").toBe('string');
    expect(typeof u.user).toBe('string');
    expect(typeof u.password).toBe('string');
    {
      const t0 = Date.now();
      const res = await auth({
        Account: u.account,
        User: u.user,
        Password: u.password,
        ClientName: 'conformance-suite',
      });
      expect(res.status, res.text).toBe(200);
      const body = res.json as AuthenticateResponse;
      expect(typeof body.Token).toBe('string');
      const expires = Date.parse(body.Expires);
      expect(Math.abs(expires - t0 - 30 * 60_000)).toBeLessThan(2 * 60_000);
      expect((await t.raw('/api/Domains', { token: null, headers: { Token: body.Token } })).status).toBe(200);
    }
  },
);

conformance(
  {
    id: 'auth.reference-unauthenticated-401',
    title: 'the reference answers a missing, unknown or expired token with 401 Unauthenticated on every operation',
    requirements: ['AUTH-011', 'GEN-003'],
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 60_000,
  },
  async (t) => {
    const expired = (await t.given('an expired token')).token as string;
    for (const family of FAMILY_NAMES) {
      const f = await fixture(t, family);
      for (const token of [null, 'unknown-token-xyz', expired]) {
        for (const o of sweep(f, family)) {
          const res = await call(t, f, o, token);
          const what = `${o.op} with ${token === expired ? 'an expired token' : JSON.stringify(token)}`;
          expect(res.status, what).toBe(401);
          expect(res.headers.get('content-type') ?? '', what).toMatch(/application\/problem\+json/);
          expect(res.json, what).toMatchObject({ status: 401, code: 'Unauthenticated' });
        }
      }
    }
    // the expired token was once valid: it names a real user (the state says so); still refused
    expect(typeof expired).toBe('string');
  },
);

conformance(
  {
    id: 'auth.reference-forbidden-403',
    title: 'the reference answers a permission failure with 403 Forbidden, and reading a record needs View',
    requirements: ['AUTH-012', 'GEN-003'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const r = await t.given('a record with associations');
    const noView = await t.given('a user', { grants: { [r.domain]: without('View') } });
    const withView = await t.given('a user', { grants: { [r.domain]: ['View'] } });
    for (const [path, q] of [
      [`/api/${enc(r.domain)}/${r.id}`, { columns: r.textField }],
      [`/api/${enc(r.domain)}/Query`, { columns: r.textField }],
    ] as Array<[string, Q]>) {
      const res = await get(t, path, q, noView.token);
      expect(res.status, path).toBe(403);
      expect(res.json, path).toMatchObject({ status: 403, code: 'Forbidden' });
      expect(res.text).not.toContain(String(r.textValue));
      expect((await get(t, path, q, withView.token)).status, `${path} with View`).toBe(200);
    }
    // a link operation without the parent permission
    const up = await permissionCase(t, 'upsert', 'Contact', without('AttachContacts'), ['View'], false);
    expect(up.status).toBe(403);
    expect(up.json).toMatchObject({ status: 403, code: 'Forbidden' });
    const rm = await permissionCase(t, 'remove', 'File', without('ModifyFiles'), ['View'], false);
    expect(rm.status).toBe(403);
    expect(rm.json).toMatchObject({ status: 403, code: 'Forbidden' });
    // and without View on the child
    const nv = await permissionCase(t, 'upsert', 'File', ALL, without('View'), false);
    expect(nv.status).toBe(403);
    expect(nv.json).toMatchObject({ code: 'Forbidden' });
  },
);
