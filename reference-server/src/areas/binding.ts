// Binding: GET BindStatus, POST QueueBindQuote, POST BindQuote (spec 2.4, 3, 4.5) and the
// persistent bind worker.
//
// Binding rules of the reference (BIND-013): a proposal is bound when it is modifiable, its rating
// is complete (RatingStatus 'C') and it has a member. Binding creates a Policy for the member, sets
// the proposal's status to B (PROP-006) and marks its proposal set bound, and records the Bound
// status. A failed binding records Error with the reasons, unless the proposal is already Bound.
import type { Hono } from 'hono';
import type Database from 'better-sqlite3';
import type { AppEnv, Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { components } from '../../../spec/generated/openapi.js';
import { findProposal, loadProposal, requireProposalPermission } from '../proposals/lookup.js';
import { BOUND_STATUS } from '../proposals/model.js';
import { modifiability } from '../proposals/modifiability.js';
import { migrate } from '../proposals/tables.js';
import { isoDate, utcTimestamp } from '../time.js';
import { parseIntParam } from '../validation.js';
import { queryParam } from '../query-params.js';

type BindStatusValue = components['schemas']['BindStatus']['Status'];

type BindStatusBody = components['schemas']['BindStatus'];
type BindQuoteResult = components['schemas']['BindQuoteResult'];

interface BindStatusRow {
  ProposalID: number;
  Status: BindStatusValue;
  ErrorMessage: string | null;
  PolicyID: number | null;
  MemberID: number | null;
  PolicyNumber: string | null;
  MemberName: string | null;
  BoundDateUTC: string | null;
}

const MSG_NO_MEMBER = 'MemberID is null on Proposal record';
const MSG_UNRATED = 'Rating must be completed before binding.';
const MSG_CANNOT_BIND = 'Cannot bind or issue this proposal record.';

/** Billing status codes accepted on QueueBindQuote (implementation-defined notes). */
const BILLING_STATUSES = new Set(['B', 'W', 'N', 'S', 'E']);

// ---------------------------------------------------------------------------------------------
// Status

function readBindStatus(db: Database.Database, proposalId: number): BindStatusBody {
  migrate(db);
  const row = db.prepare(`SELECT * FROM bind_status WHERE ProposalID = ?`).get(proposalId) as BindStatusRow | undefined;
  if (!row || row.Status === 'NotBound') {
    // REQ: BIND-002
    return {
      ProposalID: proposalId,
      Status: 'NotBound',
      ErrorMessage: null,
      PolicyID: null,
      MemberID: null,
      PolicyNumber: null,
      MemberName: null,
      BoundDateUTC: null,
    };
  }
  if (row.Status === 'Error') {
    // REQ: BIND-004
    return {
      ProposalID: proposalId,
      Status: 'Error',
      ErrorMessage: row.ErrorMessage || MSG_CANNOT_BIND,
      PolicyID: null,
      MemberID: null,
      PolicyNumber: null,
      MemberName: null,
      BoundDateUTC: null,
    };
  }
  // REQ: BIND-003
  return {
    ProposalID: proposalId,
    Status: 'Bound',
    ErrorMessage: null,
    PolicyID: row.PolicyID,
    MemberID: row.MemberID,
    PolicyNumber: row.PolicyNumber,
    MemberName: row.MemberName,
    BoundDateUTC: row.BoundDateUTC,
  };
}

function writeStatus(db: Database.Database, s: BindStatusBody, now: Date): void {
  db.prepare(
    `INSERT INTO bind_status (ProposalID, Status, ErrorMessage, PolicyID, MemberID, PolicyNumber, MemberName, BoundDateUTC, UpdatedDateUTC)
     VALUES (@ProposalID, @Status, @ErrorMessage, @PolicyID, @MemberID, @PolicyNumber, @MemberName, @BoundDateUTC, @Updated)
     ON CONFLICT (ProposalID) DO UPDATE SET Status = excluded.Status, ErrorMessage = excluded.ErrorMessage,
       PolicyID = excluded.PolicyID, MemberID = excluded.MemberID, PolicyNumber = excluded.PolicyNumber,
       MemberName = excluded.MemberName, BoundDateUTC = excluded.BoundDateUTC, UpdatedDateUTC = excluded.UpdatedDateUTC`,
  ).run({ ...s, Updated: utcTimestamp(now) });
}

function isBound(db: Database.Database, proposalId: number): boolean {
  const row = db.prepare(`SELECT Status FROM bind_status WHERE ProposalID = ?`).get(proposalId) as
    { Status: string } | undefined;
  return row?.Status === 'Bound';
}

// ---------------------------------------------------------------------------------------------
// Binding

type BindOutcome = { ok: true; result: BindQuoteResult } | { ok: false; reason: string };

/**
 * Binds one proposal in one transaction and records the outcome in bind_status. The same rules
 * serve BindQuote and the queued binding.
 */
// REQ: BIND-013
function bindProposal(deps: Deps, proposalId: number): BindOutcome {
  const db = deps.db;
  migrate(db);
  const tx = db.transaction((): BindOutcome => {
    const now = deps.clock();
    const p = findProposal(db, proposalId);
    if (!p) return { ok: false, reason: `Proposal with ID# ${proposalId} was not found.` };
    const reasons: string[] = [];
    const m = modifiability(db, p);
    if (!m.modifiable)
      reasons.push(`${MSG_CANNOT_BIND} The proposal cannot be modified because ${m.reasons.join(' and ')}.`);
    // REQ: BIND-008
    if (p.RatingStatus !== 'C') reasons.push(MSG_UNRATED);
    // REQ: MEM-007
    // REQ: BIND-014 (a queued binding without a member ends in Error, never Bound)
    const member =
      p.MemberID == null
        ? undefined
        : (db.prepare(`SELECT "MemberID", "Name" FROM "Member" WHERE "MemberID" = ?`).get(p.MemberID) as
            { MemberID: number; Name: string | null } | undefined);
    if (!member) reasons.push(p.MemberID == null ? MSG_NO_MEMBER : `${MSG_NO_MEMBER} (member ${p.MemberID} not found)`);
    if (reasons.length > 0 || !member) {
      const reason = reasons.join(' ');
      // A later failed attempt never hides an earlier successful binding.
      if (!isBound(db, proposalId)) {
        writeStatus(
          db,
          {
            ProposalID: proposalId,
            Status: 'Error',
            ErrorMessage: reason,
            PolicyID: null,
            MemberID: null,
            PolicyNumber: null,
            MemberName: null,
            BoundDateUTC: null,
          },
          now,
        );
      }
      return { ok: false, reason };
    }
    const pol = db
      .prepare(
        `INSERT INTO "Policy" ("PolicyNumber", "EffectiveDate", "ExpirationDate", "MemberID") VALUES (?, ?, ?, ?)`,
      )
      .run(null, isoDate(now), isoDate(new Date(now.getTime() + 365 * 86_400_000)), member.MemberID);
    const policyId = Number(pol.lastInsertRowid);
    const policyNumber = `POL-${String(policyId).padStart(6, '0')}`;
    db.prepare(`UPDATE "Policy" SET "PolicyNumber" = ? WHERE "PolicyID" = ?`).run(policyNumber, policyId);
    // REQ: PROP-006
    db.prepare(`UPDATE "Proposal" SET "StatusCode" = ? WHERE "ProposalID" = ?`).run(BOUND_STATUS, proposalId);
    if (p.ProposalSetID != null) {
      db.prepare(`UPDATE proposal_sets SET IsBound = 1 WHERE ProposalSetID = ?`).run(p.ProposalSetID);
    }
    // REQ: BIND-005
    const result: BindQuoteResult = {
      ProposalID: proposalId,
      PolicyID: policyId,
      MemberID: member.MemberID,
      PolicyNumber: policyNumber,
      MemberName: member.Name ?? '',
      BoundDateUTC: utcTimestamp(now),
    };
    writeStatus(db, { ...result, Status: 'Bound', ErrorMessage: null }, now);
    return { ok: true, result };
  });
  return tx();
}

// ---------------------------------------------------------------------------------------------
// Queue and worker

/** Queues a binding (one pending job per proposal). A previous Error is cleared back to NotBound
 * so that the outcome read afterwards belongs to this attempt. */
export function enqueueBind(
  deps: Deps,
  proposalId: number,
  billing: { frequency?: string | null; status?: string | null } = {},
): number {
  const db = deps.db;
  migrate(db);
  const tx = db.transaction(() => {
    const pending = db
      .prepare(
        `SELECT JobID FROM bind_jobs WHERE ProposalID = ? AND State IN ('queued', 'running') ORDER BY JobID LIMIT 1`,
      )
      .get(proposalId) as { JobID: number } | undefined;
    if (pending) return pending.JobID;
    db.prepare(`DELETE FROM bind_status WHERE ProposalID = ? AND Status = 'Error'`).run(proposalId);
    const info = db
      .prepare(
        `INSERT INTO bind_jobs (ProposalID, State, BillingFrequencyCode, BillingStatus, QueuedDateUTC) VALUES (?, 'queued', ?, ?, ?)`,
      )
      .run(proposalId, billing.frequency ?? null, billing.status ?? null, utcTimestamp(deps.clock()));
    return Number(info.lastInsertRowid);
  });
  return tx();
}

/** Runs every queued job once, oldest first. Returns how many jobs ran. */
export function runQueuedBindJobs(deps: Deps, max = 50): number {
  const db = deps.db;
  migrate(db);
  let ran = 0;
  const next = db.prepare(`SELECT JobID, ProposalID FROM bind_jobs WHERE State = 'queued' ORDER BY JobID LIMIT 1`);
  const claim = db.prepare(
    `UPDATE bind_jobs SET State = 'running', StartedDateUTC = ? WHERE JobID = ? AND State = 'queued'`,
  );
  const finish = db.prepare(`UPDATE bind_jobs SET State = 'done', Outcome = ?, FinishedDateUTC = ? WHERE JobID = ?`);
  while (ran < max) {
    const job = next.get() as { JobID: number; ProposalID: number } | undefined;
    if (!job) break;
    if (claim.run(utcTimestamp(deps.clock()), job.JobID).changes !== 1) continue; // taken by another worker
    let outcome: string;
    try {
      const r = bindProposal(deps, job.ProposalID);
      outcome = r.ok ? 'Bound' : 'Error';
    } catch (e) {
      outcome = 'Error';
      try {
        db.prepare(
          `INSERT INTO bind_status (ProposalID, Status, ErrorMessage, UpdatedDateUTC) VALUES (?, 'Error', ?, ?)
           ON CONFLICT (ProposalID) DO UPDATE SET Status = 'Error', ErrorMessage = excluded.ErrorMessage,
             UpdatedDateUTC = excluded.UpdatedDateUTC WHERE Status <> 'Bound'`,
        ).run(job.ProposalID, `Binding failed: ${(e as Error).message}`, utcTimestamp(deps.clock()));
      } catch {
        /* the proposal may be gone; the job still finishes */
      }
    }
    finish.run(outcome, utcTimestamp(deps.clock()), job.JobID);
    ran += 1;
  }
  return ran;
}

/**
 * Starts the bind worker: polls the persistent job table every 25 ms. Jobs survive a restart: jobs
 * left 'running' by a stopped process are queued again (binding is one transaction, so a job that
 * was interrupted left nothing behind). Returns the stop function.
 */
// REQ: BIND-007
// REQ: BIND-009
export function startBindWorker(deps: Deps, intervalMs = 25): () => void {
  migrate(deps.db);
  deps.db.prepare(`UPDATE bind_jobs SET State = 'queued', StartedDateUTC = NULL WHERE State = 'running'`).run();
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    try {
      runQueuedBindJobs(deps);
    } catch {
      /* a closed database or a transient SQLite error: try again at the next tick */
    } finally {
      busy = false;
    }
  }, intervalMs);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

// ---------------------------------------------------------------------------------------------
// Routes

export function register(app: Hono<AppEnv>, deps: Deps): void {
  migrate(deps.db);

  // REQ: BIND-001
  // REQ: BIND-006
  app.get('/api/Quotes/Proposals/:proposalId/BindStatus', (c) => {
    requireProposalPermission(c.get('user'), 'View');
    const id = parseIntParam(c.req.param('proposalId'), 'proposalId');
    loadProposal(deps.db, id);
    return c.json(readBindStatus(deps.db, id), 200);
  });

  // REQ: BIND-011
  app.post('/api/Quotes/Proposals/:proposalId/QueueBindQuote', (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const id = parseIntParam(c.req.param('proposalId'), 'proposalId');
    const frequency = queryParam(c, 'billingFrequencyCode');
    const status = queryParam(c, 'billingStatus');
    if (status !== undefined && !BILLING_STATUSES.has(status)) {
      throw new ApiError(400, 'MalformedRequest', `billingStatus must be one of B, W, N, S, E; got '${status}'.`);
    }
    loadProposal(deps.db, id);
    enqueueBind(deps, id, { frequency: frequency ?? null, status: status ?? null });
    return c.body(null, 200);
  });

  // REQ: BIND-010
  // REQ: BIND-012
  app.post('/api/Quotes/Proposals/:proposalId/BindQuote', (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const id = parseIntParam(c.req.param('proposalId'), 'proposalId');
    loadProposal(deps.db, id);
    const r = bindProposal(deps, id);
    if (!r.ok) throw new ApiError(409, 'Conflict', r.reason);
    return c.json(r.result, 200);
  });
}
