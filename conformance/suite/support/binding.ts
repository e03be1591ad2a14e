// Helpers shared by the binding and member suite files: BindStatus read and checked against the
// generated type, binding calls, and the two ways of waiting for asynchronous work (spec 3: "binding
// runs asynchronously"): until an outcome shows, or, for an outcome that must never show, to the
// same deadline. Both use `t.poll` without a timeout of their own, so the run's deadline applies.
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { type Ctx } from './request.js';

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

/** GET BindStatus: always HTTP 200 (BIND-006) with the documented object (BIND-001). */
export async function bindStatus(t: Ctx, proposalId: number): Promise<BindStatus> {
  const res = await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
    params: { path: { proposalId } },
  });
  expect(res.response.status, `BindStatus of proposal ${proposalId} answers 200`).toBe(200);
  const s: unknown = res.data;
  expectStatusShape(s, proposalId);
  return s;
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

/** The message `t.poll` throws when its deadline passes (conformance/src/dsl.ts). */
const POLL_TIMEOUT = /^poll: condition not met/;

/**
 * Reads `read` until the run's deadline for asynchronous work and fails as soon as `bad` holds: an
 * effect that must never happen is looked for as long as a positive outcome is waited for.
 * Returns the last value read.
 */
export async function neverWithin<T>(t: Ctx, read: () => Promise<T>, bad: (v: T) => boolean, what: string) {
  let last: T | undefined;
  try {
    const seen = await t.poll(
      async () => (last = await read()),
      (v) => bad(v),
    );
    expect.fail(`${what}: ${JSON.stringify(seen)}`);
  } catch (e) {
    if (!(e instanceof Error) || !POLL_TIMEOUT.test(e.message)) throw e;
  }
  return last as T;
}

/** A proposal without a member is never bound: BindStatus never says Bound until the deadline. */
export async function neverBound(t: Ctx, proposalId: number, why: string): Promise<BindStatus> {
  return neverWithin(
    t,
    () => bindStatus(t, proposalId),
    (s) => s.Status === 'Bound' || s.PolicyID !== null,
    `${why}: BindStatus must not report a binding`,
  );
}

export function expectNotBound(s: BindStatus) {
  expect(s.Status).toBe('NotBound');
  expect(s.ErrorMessage).toBeNull();
  for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null while NotBound`).toBeNull();
}

export function expectBound(s: BindStatus, memberId: number | null) {
  expect(s.Status, `bound (ErrorMessage: ${s.ErrorMessage})`).toBe('Bound');
  expect(s.ErrorMessage).toBeNull();
  expect(Number.isInteger(s.PolicyID) && (s.PolicyID as number) > 0, `PolicyID ${s.PolicyID}`).toBe(true);
  expect(Number.isInteger(s.MemberID) && (s.MemberID as number) > 0, `MemberID ${s.MemberID}`).toBe(true);
  if (memberId !== null) expect(s.MemberID, "the proposal's member").toBe(memberId);
  expect(
    typeof s.PolicyNumber === 'string' && s.PolicyNumber.trim() !== '',
    `PolicyNumber ${JSON.stringify(s.PolicyNumber)}`,
  ).toBe(true);
  expect(
    typeof s.MemberName === 'string' && s.MemberName.trim() !== '',
    `MemberName ${JSON.stringify(s.MemberName)}`,
  ).toBe(true);
  expectUtcTimestamp(s.BoundDateUTC);
}

/**
 * BoundDateUTC is an ISO 8601 timestamp in UTC (BIND-005). It is not compared with the runner's
 * clock: the spec promises no agreement between the two clocks.
 */
export function expectUtcTimestamp(v: unknown) {
  expect(typeof v, 'BoundDateUTC is a string').toBe('string');
  expect(v as string, 'BoundDateUTC is ISO 8601 in UTC').toMatch(ISO_UTC);
  expect(Number.isNaN(Date.parse(v as string)), `BoundDateUTC parses: ${String(v)}`).toBe(false);
}

export function expectErrorStatus(s: BindStatus) {
  expect(s.Status).toBe('Error');
  expect(
    typeof s.ErrorMessage === 'string' && s.ErrorMessage.trim() !== '',
    `ErrorMessage ${JSON.stringify(s.ErrorMessage)}`,
  ).toBe(true);
  for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null on Error`).toBeNull();
}
