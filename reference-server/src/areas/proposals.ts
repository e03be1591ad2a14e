// Proposals: shared rules of the proposal area (spec 2.7, 3, 4.5) used by the binding, members and
// schedules modules, the tables the proposal area adds beside the data dictionary, and the demo seed.
//
// The proposal routes themselves live in binding.ts (BindStatus, QueueBindQuote, BindQuote),
// members.ts (CreateMember) and schedules.ts (UpsertMulti, DELETE, Reinstate); `register` here only
// makes sure the extra tables exist.
import type { Hono } from 'hono';
import type Database from 'better-sqlite3';
import { timestamp, type AppEnv, type Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import { parseBoolParam, parseIntParam } from '../validation.js';
import { requirePermission } from '../auth.js';
import { type User } from '../permissions.js';

// ---------------------------------------------------------------------------------------------
// Types and codes

/** Proposal type codes (reference choice, implementation-defined notes): N Quote, A Application,
 * E Endorsement, R Renewal, W Rewrite, I Reissue. */
// REQ: PROP-001
export const PROPOSAL_TYPES = {
  Quote: 'N',
  Application: 'A',
  Endorsement: 'E',
  Renewal: 'R',
  Rewrite: 'W',
  Reissue: 'I',
} as const;
export type ProposalTypeName = keyof typeof PROPOSAL_TYPES;
export type ProposalTypeCode = (typeof PROPOSAL_TYPES)[ProposalTypeName];
export const ENDORSEMENT: ProposalTypeCode = 'E';

/** Status codes that make a proposal non-modifiable (spec 2.7). */
// REQ: PROP-002
const NON_MODIFIABLE_STATUSES = ['B', 'R', '0'] as const;
/** Open (quoted, modifiable) status of the reference. */
// REQ: PROP-006
export const OPEN_STATUS = 'Q';
export const BOUND_STATUS = 'B';

/** Schedule domains of a proposal, with their required field (spec 2.5, data dictionary). */
export const SCHEDULE_DOMAINS: Record<string, { required: string }> = {
  ProposalLocation: { required: 'LocationName' },
  ProposalVehicle: { required: 'VIN' },
};

export interface ProposalRow {
  ProposalID: number;
  ProposalNumber: string | null;
  ProposalType: string | null;
  StatusCode: string | null;
  ApplicantName: string | null;
  ApplicantAddress1: string | null;
  ApplicantCity: string | null;
  ApplicantStateCode: string | null;
  ApplicantZipCode: string | null;
  MemberID: number | null;
  RatingStatus: string | null;
  ProposalSetID: number | null;
  PendingExpiryChange: number | boolean | null;
  [k: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Extra tables (beside the dictionary's domain tables)

const migrated = new WeakSet<Database.Database>();

/** Creates the tables of the proposal area that are not domains. Idempotent. */
export function migrate(db: Database.Database): void {
  if (migrated.has(db)) return;
  db.exec(`
    CREATE TABLE IF NOT EXISTS proposal_sets (
      ProposalSetID INTEGER PRIMARY KEY AUTOINCREMENT,
      Name TEXT,
      IsBound INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS bind_status (
      ProposalID INTEGER PRIMARY KEY,
      Status TEXT NOT NULL CHECK (Status IN ('NotBound', 'Bound', 'Error')),
      ErrorMessage TEXT,
      PolicyID INTEGER,
      MemberID INTEGER,
      PolicyNumber TEXT,
      MemberName TEXT,
      BoundDateUTC TEXT,
      UpdatedDateUTC TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS bind_jobs (
      JobID INTEGER PRIMARY KEY AUTOINCREMENT,
      ProposalID INTEGER NOT NULL,
      State TEXT NOT NULL CHECK (State IN ('queued', 'running', 'done')),
      BillingFrequencyCode TEXT,
      BillingStatus TEXT,
      Outcome TEXT,
      QueuedDateUTC TEXT NOT NULL,
      StartedDateUTC TEXT,
      FinishedDateUTC TEXT
    );
    CREATE INDEX IF NOT EXISTS bind_jobs_state ON bind_jobs (State, JobID);
    CREATE INDEX IF NOT EXISTS bind_jobs_proposal ON bind_jobs (ProposalID);
  `);
  migrated.add(db);
}

export function register(_app: Hono<AppEnv>, deps: Deps): void {
  migrate(deps.db);
}

// ---------------------------------------------------------------------------------------------
// Request helpers

/** Parses an integer path parameter; anything else is malformed input (400 MalformedRequest). */
// REQ: GEN-004
export function parseId(raw: string | undefined, what: string): number {
  return parseIntParam(raw, what);
}

/** Booleans in query strings: true/false, True/False, Yes/No, Y/N, 1/0; anything else is 400. */
export function parseBool(raw: string | undefined, name: string, dflt: boolean): boolean {
  return parseBoolParam(raw, name, dflt);
}

/** The authenticated user set by the auth middleware. */
export function currentUser(c: { get(key: 'user'): User }): User {
  return c.get('user');
}

/** View on Proposal to read, Edit on Proposal to change (403 Forbidden otherwise). */
export function requireProposalPermission(user: User, perm: 'View' | 'Edit'): void {
  requirePermission(user, 'Proposal', perm);
}

export function findProposal(db: Database.Database, id: number): ProposalRow | undefined {
  return db.prepare(`SELECT * FROM "Proposal" WHERE "ProposalID" = ?`).get(id) as ProposalRow | undefined;
}

/** The proposal, or 404 RecordNotFound. */
// REQ: PROP-007
export function loadProposal(db: Database.Database, id: number): ProposalRow {
  const p = findProposal(db, id);
  if (!p) throw new ApiError(404, 'RecordNotFound', `Proposal with ID# ${id} was not found.`);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Modifiability (spec 3)

export interface Modifiability {
  modifiable: boolean;
  /** Why it is not modifiable (empty when modifiable). */
  reasons: string[];
}

function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true' || v === 'Y';
}

function isProposalSetBound(db: Database.Database, proposalSetId: number | null): boolean {
  if (proposalSetId === null || proposalSetId === undefined) return false;
  migrate(db);
  const row = db.prepare(`SELECT IsBound FROM proposal_sets WHERE ProposalSetID = ?`).get(proposalSetId) as
    { IsBound: number } | undefined;
  return !!row && truthy(row.IsBound);
}

export function modifiability(db: Database.Database, p: ProposalRow): Modifiability {
  const reasons: string[] = [];
  // REQ: PROP-002
  if (p.StatusCode !== null && (NON_MODIFIABLE_STATUSES as readonly string[]).includes(String(p.StatusCode))) {
    reasons.push(`its status is ${p.StatusCode}`);
  }
  // REQ: PROP-003
  if (isProposalSetBound(db, p.ProposalSetID)) reasons.push('its proposal set is bound');
  // REQ: PROP-004
  if (truthy(p.PendingExpiryChange)) reasons.push('it has a pending expiry-date-change endorsement');
  return { modifiable: reasons.length === 0, reasons };
}

/** Message of a refused change on a non-modifiable proposal: names the ID and says it cannot be modified. */
// REQ: SCHED-018
export function cannotModifyMessage(proposalId: number, m: Modifiability): string {
  const why = m.reasons.length ? ` because ${m.reasons.join(' and ')}` : '';
  return `Cannot modify Proposal with ID# ${proposalId}: the proposal cannot be modified${why}.`;
}

// ---------------------------------------------------------------------------------------------
// Time

/** Timestamp of the data dictionary: ISO 8601 with fractional seconds, no zone designator (UTC). */
export function localTimestamp(d: Date): string {
  return timestamp(d);
}
/** UTC ISO 8601 timestamp with 'Z' (BoundDateUTC). */
export function utcTimestamp(d: Date): string {
  return d.toISOString();
}
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Cleanup: everything that belongs to a proposal (used by the provider state teardown)

/** Deletes a proposal and every row that belongs to it: schedule records, policy change entries,
 * data entry events, bind jobs and status, the policy created by binding, its member (when no other
 * proposal uses it) and its proposal set (when no other proposal is in it). */
export function deleteProposalCascade(db: Database.Database, proposalId: number): void {
  migrate(db);
  const tx = db.transaction(() => {
    const p = findProposal(db, proposalId);
    const status = db.prepare(`SELECT PolicyID, MemberID FROM bind_status WHERE ProposalID = ?`).get(proposalId) as
      { PolicyID: number | null; MemberID: number | null } | undefined;
    for (const domain of Object.keys(SCHEDULE_DOMAINS)) {
      db.prepare(`DELETE FROM "${domain}" WHERE "ProposalID" = ?`).run(proposalId);
    }
    db.prepare(`DELETE FROM "PolicyChange" WHERE "ProposalID" = ?`).run(proposalId);
    db.prepare(`DELETE FROM "DataEntryEvent" WHERE "ProposalID" = ?`).run(proposalId);
    db.prepare(`DELETE FROM bind_jobs WHERE ProposalID = ?`).run(proposalId);
    db.prepare(`DELETE FROM bind_status WHERE ProposalID = ?`).run(proposalId);
    db.prepare(`DELETE FROM "Proposal" WHERE "ProposalID" = ?`).run(proposalId);
    if (status?.PolicyID != null) {
      db.prepare(`DELETE FROM "Policy" WHERE "PolicyID" = ?`).run(status.PolicyID);
    }
    const memberIds = new Set<number>();
    if (p?.MemberID != null) memberIds.add(p.MemberID);
    if (status?.MemberID != null) memberIds.add(status.MemberID);
    for (const m of memberIds) {
      const usedByProposal = db.prepare(`SELECT 1 FROM "Proposal" WHERE "MemberID" = ? LIMIT 1`).get(m);
      const usedByPolicy = db.prepare(`SELECT 1 FROM "Policy" WHERE "MemberID" = ? LIMIT 1`).get(m);
      if (!usedByProposal && !usedByPolicy) db.prepare(`DELETE FROM "Member" WHERE "MemberID" = ?`).run(m);
    }
    if (p?.ProposalSetID != null) {
      const other = db.prepare(`SELECT 1 FROM "Proposal" WHERE "ProposalSetID" = ? LIMIT 1`).get(p.ProposalSetID);
      if (!other) db.prepare(`DELETE FROM proposal_sets WHERE ProposalSetID = ?`).run(p.ProposalSetID);
    }
  });
  tx();
}

// ---------------------------------------------------------------------------------------------
// Creation helpers (provider state and seed)

export interface NewProposal {
  type: ProposalTypeCode;
  status?: string;
  number?: string;
  applicantName?: string | null;
  applicantAddress1?: string | null;
  applicantCity?: string | null;
  applicantStateCode?: string | null;
  applicantZipCode?: string | null;
  memberId?: number | null;
  ratingStatus?: string | null;
  proposalSetId?: number | null;
  pendingExpiryChange?: boolean;
}

export function insertProposal(db: Database.Database, n: NewProposal): number {
  const info = db
    .prepare(
      `INSERT INTO "Proposal" ("ProposalNumber", "ProposalType", "StatusCode", "ApplicantName", "ApplicantAddress1",
        "ApplicantCity", "ApplicantStateCode", "ApplicantZipCode", "MemberID", "RatingStatus", "ProposalSetID",
        "PendingExpiryChange") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      n.number ?? null,
      n.type,
      n.status ?? OPEN_STATUS,
      n.applicantName ?? null,
      n.applicantAddress1 ?? null,
      n.applicantCity ?? null,
      n.applicantStateCode ?? null,
      n.applicantZipCode ?? null,
      n.memberId ?? null,
      n.ratingStatus ?? null,
      n.proposalSetId ?? null,
      n.pendingExpiryChange ? 1 : 0,
    );
  const id = Number(info.lastInsertRowid);
  if (n.number === undefined) {
    db.prepare(`UPDATE "Proposal" SET "ProposalNumber" = ? WHERE "ProposalID" = ?`).run(
      `PRP-${String(id).padStart(6, '0')}`,
      id,
    );
  }
  return id;
}

export function insertMember(
  db: Database.Database,
  m: {
    name: string | null;
    address1?: string | null;
    city?: string | null;
    stateCode?: string | null;
    zipCode?: string | null;
  },
): number {
  const info = db
    .prepare(`INSERT INTO "Member" ("Name", "Address1", "City", "StateCode", "ZipCode") VALUES (?, ?, ?, ?, ?)`)
    .run(m.name, m.address1 ?? null, m.city ?? null, m.stateCode ?? null, m.zipCode ?? null);
  return Number(info.lastInsertRowid);
}

export function insertProposalSet(db: Database.Database, name: string, isBound: boolean): number {
  migrate(db);
  const info = db.prepare(`INSERT INTO proposal_sets (Name, IsBound) VALUES (?, ?)`).run(name, isBound ? 1 : 0);
  return Number(info.lastInsertRowid);
}

export function insertLocation(
  db: Database.Database,
  proposalId: number,
  l: { name: string; address1?: string; city?: string; stateCode?: string; zipCode?: string },
): number {
  const info = db
    .prepare(
      `INSERT INTO "ProposalLocation" ("ProposalID", "LocationName", "Address1", "City", "StateCode", "ZipCode", "IsDeleted")
       VALUES (?, ?, ?, ?, ?, ?, 0)`,
    )
    .run(proposalId, l.name, l.address1 ?? null, l.city ?? null, l.stateCode ?? null, l.zipCode ?? null);
  return Number(info.lastInsertRowid);
}

function insertVehicle(
  db: Database.Database,
  proposalId: number,
  v: { vin: string; make?: string; model?: string; year?: number },
): number {
  const info = db
    .prepare(
      `INSERT INTO "ProposalVehicle" ("ProposalID", "VIN", "Make", "Model", "Year", "IsDeleted") VALUES (?, ?, ?, ?, ?, 0)`,
    )
    .run(proposalId, v.vin, v.make ?? null, v.model ?? null, v.year ?? null);
  return Number(info.lastInsertRowid);
}

// ---------------------------------------------------------------------------------------------
// Demo seed

const DEMO_PREFIX = 'DEMO-';

/** Seeds a few proposals of every type and status, with locations and vehicles (`--seed demo`).
 * Idempotent: does nothing when demo proposals already exist. Returns the created proposal IDs. */
export function seedProposals(deps: Deps): number[] {
  const db = deps.db;
  migrate(db);
  const existing = db.prepare(`SELECT 1 FROM "Proposal" WHERE "ProposalNumber" LIKE ? LIMIT 1`).get(`${DEMO_PREFIX}%`);
  if (existing) return [];
  const now = deps.clock();
  const ids: number[] = [];
  const cities = [
    ['Springfield', 'IL', '62701'],
    ['Madison', 'WI', '53703'],
    ['Columbus', 'OH', '43215'],
    ['Austin', 'TX', '78701'],
    ['Denver', 'CO', '80202'],
    ['Portland', 'OR', '97204'],
  ];
  let n = 0;
  const make = (type: ProposalTypeCode, status: string, opts: Partial<NewProposal> = {}, withMember = false) => {
    n += 1;
    const [city, st, zip] = cities[n % cities.length];
    const name = `Demo Applicant ${n}`;
    const memberId = withMember
      ? insertMember(db, { name, address1: `${100 + n} Main St`, city, stateCode: st, zipCode: zip })
      : null;
    const id = insertProposal(db, {
      type,
      status,
      number: `${DEMO_PREFIX}${String(n).padStart(4, '0')}`,
      applicantName: name,
      applicantAddress1: `${100 + n} Main St`,
      applicantCity: city,
      applicantStateCode: st,
      applicantZipCode: zip,
      memberId,
      ratingStatus: 'C',
      ...opts,
    });
    for (let i = 1; i <= 2; i++) {
      insertLocation(db, id, {
        name: `Demo Location ${n}.${i}`,
        address1: `${i * 10} Market St`,
        city,
        stateCode: st,
        zipCode: zip,
      });
    }
    insertVehicle(db, id, {
      vin: `1HGCM82633A${String(100000 + n).slice(-6)}`,
      make: 'Honda',
      model: 'Accord',
      year: 2018 + (n % 6),
    });
    ids.push(id);
    return { id, memberId, name };
  };
  const tx = db.transaction(() => {
    // every type, open
    for (const code of Object.values(PROPOSAL_TYPES)) make(code, OPEN_STATUS);
    // an unrated one and one with a member, ready to bind
    make('N', OPEN_STATUS, { ratingStatus: null });
    make('N', OPEN_STATUS, {}, true);
    // rejected and cancelled
    make('A', 'R');
    make('R', '0');
    // a bound set and a pending expiry change
    const setId = insertProposalSet(db, 'Demo bound set', true);
    make('W', OPEN_STATUS, { proposalSetId: setId });
    make('E', OPEN_STATUS, { pendingExpiryChange: true });
    // a bound proposal with its policy and bind status
    const b = make('I', BOUND_STATUS, {}, true);
    const pol = db
      .prepare(
        `INSERT INTO "Policy" ("PolicyNumber", "EffectiveDate", "ExpirationDate", "MemberID") VALUES (?, ?, ?, ?)`,
      )
      .run(null, isoDate(now), isoDate(new Date(now.getTime() + 365 * 86400000)), b.memberId);
    const policyId = Number(pol.lastInsertRowid);
    const policyNumber = `POL-${String(policyId).padStart(6, '0')}`;
    db.prepare(`UPDATE "Policy" SET "PolicyNumber" = ? WHERE "PolicyID" = ?`).run(policyNumber, policyId);
    db.prepare(
      `INSERT INTO bind_status (ProposalID, Status, ErrorMessage, PolicyID, MemberID, PolicyNumber, MemberName, BoundDateUTC, UpdatedDateUTC)
       VALUES (?, 'Bound', NULL, ?, ?, ?, ?, ?, ?)`,
    ).run(b.id, policyId, b.memberId, policyNumber, b.name, utcTimestamp(now), utcTimestamp(now));
  });
  tx();
  return ids;
}
