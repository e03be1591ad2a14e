// Member creation: POST /api/Quotes/Proposals/{proposalId}/CreateMember (spec 2.6, 3, 4.5, 7).
import type { Hono } from 'hono';
import type Database from 'better-sqlite3';
import type { AppEnv, Deps } from '../deps.js';
import { jsonString } from '../errors.js';
import type { components } from '../../../spec/generated/openapi.js';
import { insertMember } from '../proposals/create.js';
import { loadProposal, requireProposalPermission } from '../proposals/lookup.js';
import { type ProposalRow } from '../proposals/model.js';
import { parseIntParam } from '../validation.js';

type MemberCreationResultBody = components['schemas']['MemberCreationResult'];

const MSG_MEMBER_ASSIGNED = 'MemberID is already assigned to Proposal record.';

/** Validation of the applicant data a member is built from; returns the failures. */
function validateApplicant(p: ProposalRow): string[] {
  const errors: string[] = [];
  const name = typeof p.ApplicantName === 'string' ? p.ApplicantName.trim() : '';
  if (!name) errors.push('ApplicantName is required to create a Member.');
  const state = p.ApplicantStateCode;
  if (state != null && state !== '' && !/^[A-Za-z]{2}$/.test(String(state))) {
    errors.push(`ApplicantStateCode '${state}' is not a valid two-letter state code.`);
  }
  return errors;
}

type CreateMemberOutcome =
  { kind: 'assigned' } | { kind: 'invalid'; message: string } | { kind: 'created'; memberId: number };

/** Creates the member from the proposal's applicant data only and assigns it, in one transaction. */
// REQ: MEM-002
// REQ: MEM-004
// REQ: MEM-010
function createMemberForProposal(db: Database.Database, proposalId: number): CreateMemberOutcome {
  const tx = db.transaction((): CreateMemberOutcome => {
    const p = loadProposal(db, proposalId);
    // REQ: MEM-003
    // REQ: MEM-005
    if (p.MemberID !== null && p.MemberID !== undefined) return { kind: 'assigned' };
    // REQ: MEM-006
    const errors = validateApplicant(p);
    if (errors.length) return { kind: 'invalid', message: errors.join(' ') };
    const memberId = insertMember(db, {
      name: String(p.ApplicantName).trim(),
      address1: p.ApplicantAddress1,
      city: p.ApplicantCity,
      stateCode: p.ApplicantStateCode,
      zipCode: p.ApplicantZipCode,
    });
    db.prepare(`UPDATE "Proposal" SET "MemberID" = ? WHERE "ProposalID" = ?`).run(memberId, proposalId);
    return { kind: 'created', memberId };
  });
  return tx();
}

export function register(app: Hono<AppEnv>, deps: Deps): void {
  // REQ: MEM-001
  // REQ: MEM-008
  // The request body is never read: the member is built wholly from the applicant data.
  app.post('/api/Quotes/Proposals/:proposalId/CreateMember', (c) => {
    requireProposalPermission(c.get('user'), 'Edit');
    const id = parseIntParam(c.req.param('proposalId'), 'proposalId');
    const r = createMemberForProposal(deps.db, id);
    if (r.kind === 'assigned') {
      // REQ: MEM-005 (spec 7: HTTP 500 with a bare JSON string body; nothing created)
      return jsonString(c, 500, MSG_MEMBER_ASSIGNED);
    }
    if (r.kind === 'invalid') {
      const body: MemberCreationResultBody = { IsSuccessful: false, RecordID: 0, Message: r.message };
      return c.json(body, 200);
    }
    const body: MemberCreationResultBody = { IsSuccessful: true, RecordID: r.memberId, Message: null };
    return c.json(body, 200);
  });
}
