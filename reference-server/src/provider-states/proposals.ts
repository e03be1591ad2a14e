// Provider state 'a proposal' (docs/architecture.md section 5).
//
// params: type (Quote | Application | Endorsement | Renewal | Rewrite | Reissue), status? (open | B |
// R | 0), boundSet?, pendingExpiryChange?, hasMember?, rated?, applicantValid? (default true),
// locations? (count, default 0).
// Returns: proposalId, type, scheduleDomain, requiredField, otherScheduleDomain, locationIds,
// scheduleFilter (selects the proposal's records of scheduleDomain), scheduleKey (their ID column),
// applicantName (the name a member created from the applicant data gets), memberId.
//
// Teardown removes the proposal and everything that belongs to it, including rows created later by
// operations on it (member from CreateMember, policy from binding, schedule records inserted by the
// suite, bind jobs and status, policy change entries, Data Entry Events).
import { ApiError } from '../errors.js';
import type { StateContext, StateDef } from './registry.js';
import { deleteProposalCascade } from '../proposals/cascade.js';
import { insertLocation, insertMember, insertProposal, insertProposalSet } from '../proposals/create.js';
import { OPEN_STATUS, PROPOSAL_TYPES } from '../proposals/model.js';
import { migrate } from '../proposals/tables.js';
import { own } from '../own.js';

const STATUS_PARAM: Record<string, string> = { open: OPEN_STATUS, Q: OPEN_STATUS, B: 'B', R: 'R', '0': '0' };

function bool(params: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = params[name];
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0') return false;
  throw new ApiError(400, 'MalformedRequest', `Provider state 'a proposal': ${name} must be a boolean.`);
}

function setupProposal(params: Record<string, unknown>, ctx: StateContext): Record<string, unknown> {
  const db = ctx.deps.db;
  migrate(db);
  const typeName = (params.type ?? 'Quote') as string;
  const type = own(PROPOSAL_TYPES, typeName);
  if (type === undefined) {
    throw new ApiError(
      400,
      'MalformedRequest',
      `Provider state 'a proposal': type must be one of ${Object.keys(PROPOSAL_TYPES).join(', ')}.`,
    );
  }
  const statusParam = params.status === undefined || params.status === null ? 'open' : String(params.status);
  const status = own(STATUS_PARAM, statusParam);
  if (!status)
    throw new ApiError(400, 'MalformedRequest', `Provider state 'a proposal': status must be open, B, R or 0.`);
  const boundSet = bool(params, 'boundSet', false);
  const pendingExpiryChange = bool(params, 'pendingExpiryChange', false);
  const hasMember = bool(params, 'hasMember', false);
  const rated = bool(params, 'rated', false);
  const applicantValid = bool(params, 'applicantValid', true);
  const locations = params.locations === undefined || params.locations === null ? 0 : Number(params.locations);
  if (!Number.isInteger(locations) || locations < 0 || locations > 500) {
    throw new ApiError(400, 'MalformedRequest', `Provider state 'a proposal': locations must be an integer 0..500.`);
  }

  // The end of the setupId is its random part (the suite's setupIds are '<test id>-<random>').
  const tag = ctx.setupId.replace(/[^A-Za-z0-9_-]/g, '').slice(-24) || 'state';
  const applicantName = applicantValid ? `Applicant ${tag}` : '';
  const address = { address1: '100 Main St', city: 'Springfield', stateCode: 'IL', zipCode: '62701' };

  const tx = db.transaction(() => {
    let proposalSetId: number | null = null;
    if (boundSet) {
      proposalSetId = insertProposalSet(db, `Set ${tag}`, true);
      ctx.track('proposal_sets', proposalSetId);
    }
    let memberId: number | null = null;
    if (hasMember) {
      memberId = insertMember(db, { name: applicantName || `Member ${tag}`, ...address });
      ctx.track('Member', memberId);
    }
    const proposalId = insertProposal(db, {
      type,
      status,
      applicantName,
      applicantAddress1: address.address1,
      applicantCity: address.city,
      applicantStateCode: address.stateCode,
      applicantZipCode: address.zipCode,
      memberId,
      ratingStatus: rated ? 'C' : null,
      proposalSetId,
      pendingExpiryChange,
    });
    ctx.track('Proposal', proposalId);
    const locationIds: number[] = [];
    for (let i = 1; i <= locations; i++) {
      const id = insertLocation(db, proposalId, {
        name: `Location ${i} ${tag}`,
        address1: `${i} Market St`,
        city: 'Springfield',
        stateCode: 'IL',
        zipCode: '62701',
      });
      ctx.track('ProposalLocation', id);
      locationIds.push(id);
    }
    return { proposalId, memberId, locationIds };
  });
  const r = tx();
  return {
    proposalId: r.proposalId,
    type: typeName,
    scheduleDomain: 'ProposalLocation',
    requiredField: 'LocationName',
    otherScheduleDomain: 'ProposalVehicle',
    locationIds: r.locationIds,
    // The reference's filter syntax (spec 4.2: the filter syntax is the service's own) and key column.
    scheduleFilter: `ProposalID:eq:${r.proposalId}`,
    scheduleKey: 'ProposalLocationID',
    applicantName,
    memberId: r.memberId,
  };
}

/** Runs before the default teardown (which then deletes the tracked rows that are left). */
function teardownProposal(_params: Record<string, unknown>, ctx: StateContext): void {
  const db = ctx.deps.db;
  migrate(db);
  for (const r of ctx.tracked('Proposal')) deleteProposalCascade(db, r.id);
}

const aProposal: StateDef = { setup: setupProposal, teardown: teardownProposal };

/** The states of this file, registered by provider-states/index.ts. */
export const PROPOSAL_STATES: Record<string, StateDef> = {
  'a proposal': aProposal,
};
