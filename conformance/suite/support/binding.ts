// Helpers shared by the binding and member suite files: BindStatus read and checked against the
// generated type, binding calls, and the two ways of waiting for asynchronous work (spec 3: "binding
// runs asynchronously"): until an outcome shows (`t.poll`, to the run's --async-timeout), or, for an
// outcome that must not show, for as long as the positive case needed (`t.expectStaysAbsent`).
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { currentRun } from '../../src/suite-api/dsl.js';
import { type Ctx, judgedAlone } from './request.js';

export type BindStatus = components['schemas']['BindStatus'];
export type MemberCreationResult = components['schemas']['MemberCreationResult'];

/** Meaning of the section 7 text (MEM-005 `meaning:`): a member, and that one is already there. */
export const MEMBER = /\bmember/i;
export const ALREADY = /\b(already|assigned|exists?|existing|has an?)\b/i;

export const DETAIL_FIELDS = ['PolicyID', 'MemberID', 'PolicyNumber', 'MemberName', 'BoundDateUTC'] as const;
/** ISO 8601 date-time in UTC: `Z` or a zero offset. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The bind status object of spec 2.4 (BIND-001): every field present, with its documented type. */
export function expectStatusShape(s: unknown, proposalId: number): asserts s is BindStatus {
  expect(isObject(s), `bind status object: ${JSON.stringify(s)}`).toBe(true);
  const o = s as Record<string, unknown>;
  expect(o.ProposalID, 'ProposalID is the proposal').toBe(proposalId);
  expect(['Bound', 'NotBound', 'Error'], `Status ${JSON.stringify(o.Status)}`).toContain(o.Status);
  for (const k of ['ErrorMessage', ...DETAIL_FIELDS]) expect(o, `field ${k} is present`).toHaveProperty(k);
  const nullable = (k: string, type: 'string' | 'integer') =>
    expect(
      o[k] === null || (type === 'integer' ? Number.isInteger(o[k]) : typeof o[k] === 'string'),
      `${k} is ${type === 'integer' ? 'an integer' : 'a string'} or null: ${JSON.stringify(o[k])}`,
    ).toBe(true);
  nullable('ErrorMessage', 'string');
  nullable('PolicyID', 'integer');
  nullable('MemberID', 'integer');
  nullable('PolicyNumber', 'string');
  nullable('MemberName', 'string');
  nullable('BoundDateUTC', 'string');
}

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
  judgedAlone('BIND-006', 'BindStatus answers HTTP 200', () =>
    expect(res.response.status, `BindStatus of proposal ${proposalId} answers 200`).toBe(200),
  );
  const s: unknown = res.data;
  judgedAlone('BIND-001', 'BindStatus answers the documented bind status object', () =>
    expectStatusShape(s, proposalId),
  );
  return s as BindStatus;
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

/**
 * A proposal never bound reports NotBound (the caller's statement), and then every detail null:
 * BIND-002's statement alone, judged so (a test that uses a NotBound status as its starting point
 * or its control is blocked by BIND-002 when the details are filled).
 */
export function expectNotBound(s: BindStatus) {
  expect(s.Status).toBe('NotBound');
  judgedAlone('BIND-002', 'NotBound reports every detail field null', () => {
    expect(s.ErrorMessage).toBeNull();
    for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null while NotBound`).toBeNull();
  });
}

/**
 * A Bound status (the caller's statement: the binding happened), then its details: filled with
 * ErrorMessage null is BIND-003's statement, the timestamp BIND-005's; each is judged as its own
 * requirement's failure alone, so a test about the binding outcome is blocked by them.
 */
export function expectBound(s: BindStatus, memberId: number | null) {
  expect(s.Status, `bound (ErrorMessage: ${s.ErrorMessage})`).toBe('Bound');
  expectBoundDetails(s);
  if (memberId !== null) expect(s.MemberID, "the proposal's member").toBe(memberId);
  judgedAlone('BIND-005', 'BoundDateUTC is an ISO 8601 timestamp in UTC', () => expectUtcTimestamp(s.BoundDateUTC));
}

/**
 * A Bound status has PolicyID, MemberID, PolicyNumber and MemberName filled and ErrorMessage null:
 * BIND-003's statement alone. A test that reads a detail of a Bound status (the member's name, its
 * ID) relies on it and is blocked by BIND-003 when a detail is missing.
 */
export function expectBoundDetails(s: BindStatus) {
  judgedAlone('BIND-003', 'Bound reports the details filled and ErrorMessage null', () => {
    expect(s.ErrorMessage).toBeNull();
    expect(Number.isInteger(s.PolicyID) && (s.PolicyID as number) > 0, `PolicyID ${s.PolicyID}`).toBe(true);
    expect(Number.isInteger(s.MemberID) && (s.MemberID as number) > 0, `MemberID ${s.MemberID}`).toBe(true);
    expect(
      typeof s.PolicyNumber === 'string' && s.PolicyNumber.trim() !== '',
      `PolicyNumber ${JSON.stringify(s.PolicyNumber)}`,
    ).toBe(true);
    expect(
      typeof s.MemberName === 'string' && s.MemberName.trim() !== '',
      `MemberName ${JSON.stringify(s.MemberName)}`,
    ).toBe(true);
  });
}

/**
 * BoundDateUTC is an ISO 8601 timestamp in UTC (BIND-005), the time of binding: a local time written
 * with a UTC designator would be hours off. The two clocks are compared only within the run's
 * --clock-tolerance (configurable, shown in the report).
 */
export function expectUtcTimestamp(v: unknown) {
  expect(typeof v, 'BoundDateUTC is a string').toBe('string');
  expect(v as string, 'BoundDateUTC is ISO 8601 in UTC').toMatch(ISO_UTC);
  const ms = Date.parse(v as string);
  expect(Number.isNaN(ms), `BoundDateUTC parses: ${String(v)}`).toBe(false);
  expect(Math.abs(ms - Date.now()), `BoundDateUTC ${String(v)} is the time of binding (UTC)`).toBeLessThan(
    currentRun().clockToleranceMs,
  );
}

/** An Error status (the caller's statement), then a non-empty ErrorMessage and null details: BIND-004's statement alone. */
export function expectErrorStatus(s: BindStatus) {
  expect(s.Status).toBe('Error');
  judgedAlone('BIND-004', 'Error reports a non-empty ErrorMessage and null details', () => {
    expect(
      typeof s.ErrorMessage === 'string' && s.ErrorMessage.trim() !== '',
      `ErrorMessage ${JSON.stringify(s.ErrorMessage)}`,
    ).toBe(true);
    for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null on Error`).toBeNull();
  });
}
