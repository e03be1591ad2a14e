// Cleanup: everything that belongs to a proposal (used by the provider state teardown).
import type Database from 'better-sqlite3';
import { findProposal } from './lookup.js';
import { SCHEDULE_DOMAINS } from './model.js';
import { migrate } from './tables.js';

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
