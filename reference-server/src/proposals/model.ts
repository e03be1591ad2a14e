// The proposal model (spec 2.7, 3, 4.5): types and status codes, schedule domains, the proposal row.
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
type ProposalTypeName = keyof typeof PROPOSAL_TYPES;
export type ProposalTypeCode = (typeof PROPOSAL_TYPES)[ProposalTypeName];
export const ENDORSEMENT: ProposalTypeCode = 'E';

/** Status codes that make a proposal non-modifiable (spec 2.7). */
// REQ: PROP-002
export const NON_MODIFIABLE_STATUSES = ['B', 'R', '0'] as const;
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
