// CreateMember in its documented form (spec 4.5: "| Body | none |"), and the step of every test
// that sends it: that the bodyless call is not refused for its form is MEM-008's statement, judged as
// its failure alone. A test that creates a member as its set-up, or calls CreateMember to see another
// rule (the refusal of a second member, the JSON of that error, a valid token served), is blocked by
// MEM-008 when the form is refused, instead of failing its own requirement on an answer to a form.
import { expect } from 'vitest';
import type { RawResponse } from '../../src/suite-api/client.js';
import { type Ctx, judgedAlone } from './request.js';

/** POST CreateMember without a body (the operation takes none). */
export async function createMember(t: Ctx, proposalId: number, token?: string | null): Promise<RawResponse> {
  return t.raw(`/api/Quotes/Proposals/${proposalId}/CreateMember`, {
    method: 'POST',
    ...(token === undefined ? {} : { token }),
  });
}

/** Statuses that refuse a request for its form or body (not its proposal, its token or its member). */
const FORM_REFUSED = [400, 411, 415, 422];

/**
 * A CreateMember without a body, on a proposal without a member and with valid applicant data, is
 * not refused for its form: the only thing such a call can lack is the body, which the operation
 * does not take (MEM-008's statement, judged as its failure alone; a test that creates a member as
 * its set-up is blocked by it).
 */
export function expectBodylessAccepted(res: RawResponse): void {
  judgedAlone('MEM-008', 'CreateMember without a body is not refused for its form', () =>
    expect(FORM_REFUSED, `CreateMember without a body: ${res.status} ${res.text.slice(0, 200)}`).not.toContain(
      res.status,
    ),
  );
}

/**
 * A bodyless CreateMember on a fresh proposal (no member, valid applicant data) as a control, for a
 * test that judges CreateMember's answer on a proposal that has a member: a refusal of the form
 * (MEM-008) shows here and is not taken for the answer about the member. The proposal gets its member.
 */
export async function needsBodylessFormAccepted(t: Ctx): Promise<void> {
  const fresh = await t.given('a proposal', { type: 'Quote', hasMember: false });
  expectBodylessAccepted(await createMember(t, fresh.proposalId));
}
