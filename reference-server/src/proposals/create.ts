// Creating proposals and what hangs off them (provider states and the demo seed).
import type Database from 'better-sqlite3';
import { OPEN_STATUS, type ProposalTypeCode } from './model.js';
import { migrate } from './tables.js';

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

export function insertVehicle(
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
