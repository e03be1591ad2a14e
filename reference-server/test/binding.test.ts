// Binding: BindStatus, QueueBindQuote, BindQuote and the bind worker (spec 2.4, 3, 4.5).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enqueueBind, runQueuedBindJobs, startBindWorker } from '../src/areas/binding.js';
import { harness, type H } from './support/proposal-harness.js';

const P = (id: number | string) => `/api/Quotes/Proposals/${id}`;
const status = (h: H, id: number | string, token?: string) => h.call('GET', `${P(id)}/BindStatus`, { token });
const queue = (h: H, id: number | string, q = '') => h.call('POST', `${P(id)}/QueueBindQuote${q}`);
const bind = (h: H, id: number | string) => h.call('POST', `${P(id)}/BindQuote`);
const UTC_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FIELDS = [
  'BoundDateUTC',
  'ErrorMessage',
  'MemberID',
  'MemberName',
  'PolicyID',
  'PolicyNumber',
  'ProposalID',
  'Status',
];

async function waitFor(h: H, id: number, done: (s: any) => boolean, timeoutMs = 3000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await status(h, id);
    expect(s.status).toBe(200);
    if (done(s.json) || Date.now() > until) return s.json;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('BindStatus and BindQuote', () => {
  let h: H;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.created.close());

  it('BIND-001 BIND-002 BIND-006: a proposal never bound reports NotBound with every detail null (HTTP 200)', async () => {
    const p = await h.proposal();
    const s = await status(h, p.proposalId);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(s.json).sort()).toEqual(FIELDS);
    expect(s.json).toEqual({
      ProposalID: p.proposalId,
      Status: 'NotBound',
      ErrorMessage: null,
      PolicyID: null,
      MemberID: null,
      PolicyNumber: null,
      MemberName: null,
      BoundDateUTC: null,
    });
  });

  it('BIND-010 BIND-012 BIND-003 BIND-005 PROP-006: BindQuote binds a rated proposal with a member', async () => {
    const p = await h.proposal({ hasMember: true, rated: true, locations: 1 });
    const res = await bind(h, p.proposalId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual([
      'BoundDateUTC',
      'MemberID',
      'MemberName',
      'PolicyID',
      'PolicyNumber',
      'ProposalID',
    ]);
    expect(res.json).toMatchObject({ ProposalID: p.proposalId, MemberID: p.memberId, MemberName: p.applicantName });
    expect(res.json.PolicyNumber).toMatch(/^POL-\d{6,}$/);
    expect(res.json.BoundDateUTC).toMatch(UTC_ISO);
    const policy = h.deps.db.prepare(`SELECT * FROM "Policy" WHERE PolicyID = ?`).get(res.json.PolicyID) as any;
    expect(policy).toMatchObject({ PolicyNumber: res.json.PolicyNumber, MemberID: p.memberId });
    const s = await status(h, p.proposalId);
    expect(s.status).toBe(200);
    expect(s.json).toEqual({ ...res.json, Status: 'Bound', ErrorMessage: null });
    // PROP-006: bound → status B → not modifiable
    const prop = h.deps.db.prepare(`SELECT StatusCode FROM "Proposal" WHERE ProposalID = ?`).get(p.proposalId) as any;
    expect(prop.StatusCode).toBe('B');
    const up = await h.call('POST', `${P(p.proposalId)}/Schedules/ProposalLocation/UpsertMulti`, {
      body: { Inserts: [{ Fields: { LocationName: 'late' } }], Updates: [], Deletes: [] },
    });
    expect(up.status).toBe(409);
    // binding twice is refused and the status stays Bound
    const again = await bind(h, p.proposalId);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('Conflict');
    expect((await status(h, p.proposalId)).json.Status).toBe('Bound');
  });

  it('BIND-012 BIND-013 MEM-007 BIND-004: BindQuote failures are 409 Conflict naming the reason, and BindStatus reports Error', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ hasMember: false, rated: true }, /MemberID is null on Proposal record/],
      [{ hasMember: true, rated: false }, /Rating must be completed before binding/],
      [{ hasMember: true, rated: true, status: 'R' }, /Cannot bind or issue this proposal record/],
      [{ hasMember: true, rated: true, boundSet: true }, /Cannot bind or issue this proposal record/],
      [{ hasMember: true, rated: true, pendingExpiryChange: true }, /Cannot bind or issue this proposal record/],
    ];
    for (const [params, reason] of cases) {
      const p = await h.proposal(params);
      const policies = h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "Policy"`).get();
      const res = await bind(h, p.proposalId);
      expect(res.status, JSON.stringify(params)).toBe(409);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json).toMatchObject({ status: 409, code: 'Conflict' });
      expect(res.json.detail).toMatch(reason);
      expect(h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "Policy"`).get()).toEqual(policies);
      const s = await status(h, p.proposalId);
      expect(s.status).toBe(200);
      expect(s.json).toMatchObject({
        Status: 'Error',
        PolicyID: null,
        MemberID: null,
        PolicyNumber: null,
        MemberName: null,
        BoundDateUTC: null,
      });
      expect(s.json.ErrorMessage).toMatch(reason);
    }
  });

  it('PROP-007 GEN-004 AUTH-012: 404 for a missing proposal, 400 for a bad ID, 403 without View/Edit, 401 without token', async () => {
    for (const [m, path] of [
      ['GET', 'BindStatus'],
      ['POST', 'QueueBindQuote'],
      ['POST', 'BindQuote'],
    ] as const) {
      const missing = await h.call(m, `${P(424242)}/${path}`);
      expect(missing.status, path).toBe(404);
      expect(missing.json.code).toBe('RecordNotFound');
      expect((await h.call(m, `${P('abc')}/${path}`)).status, path).toBe(400);
      expect((await h.call(m, `${P(1)}/${path}`, { token: null })).status, path).toBe(401);
    }
    const p = await h.proposal({ hasMember: true, rated: true });
    const none = h.userToken({ Claim: ['View'] });
    expect((await status(h, p.proposalId, none)).status).toBe(403);
    const viewer = h.userToken({ Proposal: ['View'] });
    expect((await status(h, p.proposalId, viewer)).status).toBe(200);
    const q = await h.call('POST', `${P(p.proposalId)}/QueueBindQuote`, { token: viewer });
    expect(q.status).toBe(403);
    const b = await h.call('POST', `${P(p.proposalId)}/BindQuote`, { token: viewer });
    expect(b.status).toBe(403);
    expect(b.json.code).toBe('Forbidden');
    expect((await status(h, p.proposalId)).json.Status).toBe('NotBound');
  });
});

describe('QueueBindQuote and the bind worker', () => {
  let h: H;
  beforeEach(() => {
    h = harness({ bindWorker: true });
  });
  afterEach(() => h.created.close());

  it('BIND-011 BIND-007 BIND-003 BIND-005: a queued binding moves NotBound → Bound', async () => {
    const p = await h.proposal({ hasMember: true, rated: true });
    expect((await status(h, p.proposalId)).json.Status).toBe('NotBound');
    const q = await queue(h, p.proposalId, '?billingFrequencyCode=M');
    expect(q.status).toBe(200);
    expect(q.text).toBe('');
    const s = await waitFor(h, p.proposalId, (x) => x.Status !== 'NotBound');
    expect(s.Status).toBe('Bound');
    expect(s.ErrorMessage).toBeNull();
    expect(s.MemberID).toBe(p.memberId);
    expect(s.MemberName).toBe(p.applicantName);
    expect(Number.isInteger(s.PolicyID)).toBe(true);
    expect(s.PolicyNumber).toMatch(/^POL-/);
    expect(s.BoundDateUTC).toMatch(UTC_ISO);
    const job = h.deps.db.prepare(`SELECT * FROM bind_jobs WHERE ProposalID = ?`).get(p.proposalId) as any;
    expect(job).toMatchObject({ State: 'done', Outcome: 'Bound', BillingFrequencyCode: 'M' });
  });

  it('BIND-008 BIND-004 BIND-013: a queued binding of an unrated proposal moves NotBound → Error with a reason', async () => {
    const p = await h.proposal({ hasMember: true, rated: false });
    expect((await queue(h, p.proposalId, '?billingStatus=N')).status).toBe(200);
    const s = await waitFor(h, p.proposalId, (x) => x.Status !== 'NotBound');
    expect(s).toEqual({
      ProposalID: p.proposalId,
      Status: 'Error',
      ErrorMessage: expect.stringMatching(/Rating must be completed before binding/),
      PolicyID: null,
      MemberID: null,
      PolicyNumber: null,
      MemberName: null,
      BoundDateUTC: null,
    });
  });

  it('BIND-013: queued bindings end in Error without a member or when not modifiable', async () => {
    const noMember = await h.proposal({ rated: true });
    const rejected = await h.proposal({ rated: true, hasMember: true, status: '0' });
    await queue(h, noMember.proposalId);
    await queue(h, rejected.proposalId);
    const a = await waitFor(h, noMember.proposalId, (x) => x.Status !== 'NotBound');
    const b = await waitFor(h, rejected.proposalId, (x) => x.Status !== 'NotBound');
    expect(a.Status).toBe('Error');
    expect(a.ErrorMessage).toMatch(/MemberID is null/);
    expect(b.Status).toBe('Error');
    expect(b.ErrorMessage).toMatch(/Cannot bind or issue/);
  });

  it('BIND-011: billingStatus outside B/W/N/S/E is refused with 400 and queues nothing', async () => {
    const p = await h.proposal({ hasMember: true, rated: true });
    const r = await queue(h, p.proposalId, '?billingStatus=Q');
    expect(r.status).toBe(400);
    expect(h.deps.db.prepare(`SELECT COUNT(*) AS n FROM bind_jobs`).get()).toEqual({ n: 0 });
  });

  it('re-queuing after an Error clears it; a fixed proposal then binds', async () => {
    const p = await h.proposal({ hasMember: true, rated: false });
    await queue(h, p.proposalId);
    expect((await waitFor(h, p.proposalId, (x) => x.Status !== 'NotBound')).Status).toBe('Error');
    h.deps.db.prepare(`UPDATE "Proposal" SET RatingStatus = 'C' WHERE ProposalID = ?`).run(p.proposalId);
    await queue(h, p.proposalId);
    expect((await waitFor(h, p.proposalId, (x) => x.Status === 'Bound')).Status).toBe('Bound');
  });
});

describe('persistent jobs', () => {
  it('BIND-007: queued jobs survive a restart and are run by the next worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rflps-bind-'));
    const dbPath = join(dir, 'ref.db');
    try {
      const first = harness({ dbPath, bindWorker: false });
      const p = await first.proposal({ hasMember: true, rated: true });
      const u = await first.proposal({ hasMember: true, rated: false });
      expect((await queue(first, p.proposalId)).status).toBe(200);
      expect((await queue(first, u.proposalId)).status).toBe(200);
      // a job left 'running' by a crash is picked up again
      first.deps.db.prepare(`UPDATE bind_jobs SET State = 'running' WHERE ProposalID = ?`).run(u.proposalId);
      await new Promise((r) => setTimeout(r, 80));
      expect((await status(first, p.proposalId)).json.Status).toBe('NotBound');
      first.created.close();

      const second = harness({ dbPath, bindWorker: false });
      const stop = startBindWorker(second.deps);
      try {
        const s = await waitFor(second, p.proposalId, (x) => x.Status !== 'NotBound');
        expect(s.Status).toBe('Bound');
        const e = await waitFor(second, u.proposalId, (x) => x.Status !== 'NotBound');
        expect(e.Status).toBe('Error');
        const states = second.deps.db.prepare(`SELECT DISTINCT State FROM bind_jobs`).all();
        expect(states).toEqual([{ State: 'done' }]);
      } finally {
        stop();
        second.created.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runQueuedBindJobs runs each job once and enqueueBind keeps one pending job per proposal', async () => {
    const h = harness({ bindWorker: false });
    try {
      const p = await h.proposal({ hasMember: true, rated: true });
      const j1 = enqueueBind(h.deps, p.proposalId);
      const j2 = enqueueBind(h.deps, p.proposalId);
      expect(j2).toBe(j1);
      expect(runQueuedBindJobs(h.deps)).toBe(1);
      expect(runQueuedBindJobs(h.deps)).toBe(0);
      expect((await status(h, p.proposalId)).json.Status).toBe('Bound');
      // queuing a bound proposal again fails in the job but never hides Bound
      enqueueBind(h.deps, p.proposalId);
      expect(runQueuedBindJobs(h.deps)).toBe(1);
      expect((await status(h, p.proposalId)).json.Status).toBe('Bound');
    } finally {
      h.created.close();
    }
  });
});
