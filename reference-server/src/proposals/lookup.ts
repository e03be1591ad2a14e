// Finding a proposal and checking the caller may use it.
import type Database from 'better-sqlite3';
import { requirePermission } from '../auth.js';
import { ApiError } from '../errors.js';
import type { User } from '../permissions.js';
import type { ProposalRow } from './model.js';

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
