// Schedule operation results as the proposal (PROP) and schedule (SCHED) controls read and reword
// them.
import type { Control } from '../fault.js';
import { bodyJson, withResponseJson } from '../exchange.js';
import { operationOf } from '../operations.js';
import { only } from './util.js';

/** Every schedule operation result of an answer (one object, or the three arrays of UpsertMulti). */
export function results(body: any): any[] {
  if (!body || typeof body !== 'object') return [];
  if ('IsSuccessful' in body) return [body];
  return ['Inserts', 'Updates', 'Deletes'].flatMap((k) => (Array.isArray(body[k]) ? body[k] : []));
}

/** Schedule answers (successful or not) with each result's Message rewritten by `fn`. */
export function scheduleMessages(fn: (msg: string, proposalId: string) => string): NonNullable<Control['rewrite']> {
  return only(['upsertSchedules', 'deleteSchedule', 'reinstateSchedule'], async (req, _ctx, next) => {
    const route = operationOf(req);
    const res = await next(req);
    if (route.op !== 'upsertSchedules' && route.op !== 'deleteSchedule' && route.op !== 'reinstateSchedule') return res;
    const body = bodyJson(res);
    const rs = results(body);
    if (rs.length === 0) return res;
    for (const r of rs) if (typeof r.Message === 'string') r.Message = fn(r.Message, route.proposalId);
    return withResponseJson(res, body);
  });
}

/** A message that refuses a change because the proposal cannot be modified. */
export const NOT_MODIFIABLE = /cannot (be )?modif/i;
