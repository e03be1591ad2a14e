// Helpers shared by the binding and member suite files: BindStatus read and checked against the
// generated type, binding calls, and the two ways of waiting for asynchronous work (spec 3: "binding
// runs asynchronously"): until an outcome shows (`t.poll`, to the run's --async-timeout), or, for an
// outcome that must not show, for as long as the positive case needed (`t.expectStaysAbsent`).
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { type BindStatus, judgeBindStatus } from '../../src/judge/bind.js';
import type { Finding } from '../../src/judge/finding.js';
import { currentRun } from '../../src/suite-api/dsl.js';
import { expectFinding } from '../../src/suite-api/findings.js';
import { type Ctx, judgedAlone } from './request.js';

export type { BindStatus };
export type MemberCreationResult = components['schemas']['MemberCreationResult'];

/** Meaning of the section 7 text (MEM-005 `meaning:`): a member, and that one is already there. */
export const MEMBER = /\bmember/i;
export const ALREADY = /\b(already|assigned|exists?|existing|has an?)\b/i;

/**
 * GET BindStatus: always HTTP 200 (BIND-006) with the documented object (BIND-001). Every binding
 * and member test reads its outcome through it; the status code and the shape are the statements
 * of BIND-006 and BIND-001 alone, so an answer that breaks one fails that requirement only (a test
 * naming it among others, or not at all, ends blocked by it: one cause, one red line).
 */
export async function bindStatus(t: Ctx, proposalId: number): Promise<BindStatus> {
  const res = await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
    params: { path: { proposalId } },
  });
  const found = judgeBindStatus({ pathParams: { proposalId }, status: res.response.status, body: res.data });
  const what = `BindStatus of proposal ${proposalId}`;
  judgedAlone('BIND-006', 'BindStatus answers HTTP 200', () => expectFinding(found, 'BIND-006', what));
  judgedAlone('BIND-001', 'BindStatus answers the documented bind status object', () =>
    expectFinding(found, 'BIND-001', what),
  );
  return res.data as BindStatus;
}

export async function queueBind(t: Ctx, proposalId: number) {
  return t.api.POST('/api/Quotes/Proposals/{proposalId}/QueueBindQuote', { params: { path: { proposalId } } });
}

export async function bindQuote(t: Ctx, proposalId: number) {
  return t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', { params: { path: { proposalId } } });
}

/** Polls BindStatus until it leaves NotBound, up to the run's deadline for asynchronous work. */
export async function settled(t: Ctx, proposalId: number): Promise<BindStatus> {
  return t.poll(
    () => bindStatus(t, proposalId),
    (s) => s.Status !== 'NotBound',
  );
}

/**
 * A proposal that must not be bound is not, judged after as long as a binding needs to show here
 * (t.expectStaysAbsent: the `positive` control's time when given, else the longest poll of this
 * file, never more than --async-timeout), counted from `since`, when the binding was asked for.
 * Returns the status then read.
 */
export async function expectNeverBound(
  t: Ctx,
  proposalId: number,
  why: string,
  opts: { since: number; positive?: () => Promise<unknown> },
): Promise<BindStatus> {
  let last: BindStatus | undefined;
  await t.expectStaysAbsent(async () => {
    last = await bindStatus(t, proposalId);
    expect(last.Status, `${why}: BindStatus must not report a binding (${JSON.stringify(last)})`).not.toBe('Bound');
    expect(last.PolicyID, `${why}: no policy`).toBeNull();
  }, opts);
  return last as BindStatus;
}

/** The judge's findings on a status already read (its HTTP status was judged as it was read), after `earlier`. */
const judged = (s: BindStatus, earlier?: BindStatus): Finding[] =>
  judgeBindStatus(
    { pathParams: { proposalId: s.ProposalID }, status: 200, body: s },
    { nowMs: Date.now(), toleranceMs: currentRun().clockToleranceMs },
    earlier,
  );

/** A Bound status read again, no call on the proposal between, is the same Bound status (BIND-003). */
export const expectStaysBound = (earlier: BindStatus, again: BindStatus) =>
  expectFinding(judged(again, earlier), 'BIND-003', 'the details stay once bound');

/**
 * A proposal never bound reports NotBound (the caller's statement), and then every detail null:
 * BIND-002's statement alone, judged so (a test that uses a NotBound status as its starting point
 * or its control is blocked by BIND-002 when the details are filled).
 */
export function expectNotBound(s: BindStatus) {
  expect(s.Status).toBe('NotBound');
  judgedAlone('BIND-002', 'NotBound reports every detail field null', () => expectFinding(judged(s), 'BIND-002'));
}

/**
 * A Bound status (the caller's statement: the binding happened), then its details: filled with
 * ErrorMessage null is BIND-003's statement, the timestamp BIND-005's (an ISO 8601 UTC timestamp,
 * the time of binding within the run's --clock-tolerance: a local time written with a UTC designator
 * would be hours off); each is judged as its own requirement's failure alone, so a test about the
 * binding outcome is blocked by them.
 */
export function expectBound(s: BindStatus, memberId: number | null) {
  expect(s.Status, `bound (ErrorMessage: ${s.ErrorMessage})`).toBe('Bound');
  expectBoundDetails(s);
  if (memberId !== null) expect(s.MemberID, "the proposal's member").toBe(memberId);
  judgedAlone('BIND-005', 'BoundDateUTC is an ISO 8601 timestamp in UTC', () => expectFinding(judged(s), 'BIND-005'));
}

/**
 * A Bound status has PolicyID, MemberID, PolicyNumber and MemberName filled and ErrorMessage null:
 * BIND-003's statement alone. A test that reads a detail of a Bound status (the member's name, its
 * ID) relies on it and is blocked by BIND-003 when a detail is missing.
 */
export function expectBoundDetails(s: BindStatus) {
  judgedAlone('BIND-003', 'Bound reports the details filled and ErrorMessage null', () =>
    expectFinding(judged(s), 'BIND-003'),
  );
}

/** An Error status (the caller's statement), then a non-empty ErrorMessage and null details: BIND-004's statement alone. */
export function expectErrorStatus(s: BindStatus) {
  expect(s.Status).toBe('Error');
  judgedAlone('BIND-004', 'Error reports a non-empty ErrorMessage and null details', () =>
    expectFinding(judged(s), 'BIND-004'),
  );
}
