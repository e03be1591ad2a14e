// Helpers shared by the proposal and schedule suite files: the schedule operations of spec 4.5
// through the typed client, and reading a schedule record back through GET /api/{domain}/{id}.
import { expect } from 'vitest';
import { type Ctx } from './request.js';

export type Row = Record<string, any>;
export type Batch = {
  Inserts?: Array<{ Fields: Record<string, unknown> }>;
  Updates?: Array<{ ID: number; Fields: Record<string, unknown> }>;
  Deletes?: Array<{ ID: number }>;
};

/** The ProposalLocation fields the spec names (2.5). */
export const LOC_FIELDS = ['LocationName', 'Address1', 'City', 'StateCode', 'ZipCode'] as const;
/**
 * A "cannot be modified" message, in any wording: a refusal to change (section 7 requires the
 * meaning, not the words), e.g. "cannot be modified", "is locked and cannot be changed",
 * "is read-only; no changes were made". The proposal ID is checked beside it.
 */
export const CANNOT_MODIFY =
  /(cannot|can't|can ?not|unable to|not (be )?(allowed|permitted) to).{0,60}(modif|chang|edit|updat)|not modifiable|non-?modifiable|read-?only|locked|no changes? (were|was|have been|has been) (made|applied)/i;

export function expect2xx(status: number) {
  expect(status >= 200 && status < 300, `a successful call answers 2xx (got ${status})`).toBe(true);
}

export function tag(): string {
  return Math.random().toString(36).slice(2, 8);
}

export async function upsertMulti(t: Ctx, proposalId: number, domain: string, body: Batch, isAtomic?: boolean) {
  const full = { Inserts: body.Inserts ?? [], Updates: body.Updates ?? [], Deletes: body.Deletes ?? [] };
  const res = await t.api.POST('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti', {
    params: { path: { proposalId, domain }, query: isAtomic === undefined ? {} : { isAtomic } },
    body: full,
  } as any);
  return { res, status: res.response.status, body: (res.data ?? res.error) as any };
}

export async function deleteSchedule(t: Ctx, proposalId: number, domain: string, scheduleId: number) {
  const res = await t.api.DELETE('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}', {
    params: { path: { proposalId, domain, scheduleId } },
  } as any);
  return { res, status: res.response.status, body: (res.data ?? res.error) as any };
}

export async function reinstate(t: Ctx, proposalId: number, domain: string, scheduleId: number) {
  const res = await t.api.POST('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}/Reinstate', {
    params: { path: { proposalId, domain, scheduleId } },
  } as any);
  return { res, status: res.response.status, body: (res.data ?? res.error) as any };
}

/** The schedule record's ProposalLocation fields, or null when it cannot be read. */
export async function readRecord(
  t: Ctx,
  domain: string,
  id: number,
  columns: readonly string[] = LOC_FIELDS,
): Promise<Row | null> {
  const res = await t.api.GET('/api/{domain}/{id}', {
    params: { path: { domain, id }, query: { columns: columns.join(',') } },
  } as any);
  if (!res.response.ok) return null;
  const rec = (res.data as any)?.Record;
  return rec && typeof rec === 'object' ? rec : null;
}
