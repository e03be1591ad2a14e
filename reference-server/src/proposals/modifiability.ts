// Whether a proposal can be modified (spec 3): its status, its proposal set, a pending expiry change.
import type Database from 'better-sqlite3';
import { NON_MODIFIABLE_STATUSES, type ProposalRow } from './model.js';
import { migrate } from './tables.js';

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
