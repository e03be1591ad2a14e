// Faults of proposals and modifiability (PROP): spec 2.7, 3, 4.5, 7.
// Bodies are `Json` (the exchange's parsed body, of no known shape until a fault looks at it).
import type { Fault, FaultContext } from '../fault.js';
import { bodyJson, isOk, keysOf, makeResponse, type ProxyRequest, withResponseJson } from '../exchange.js';
import {
  allSuccessful,
  failedResult,
  hideRecord,
  hiding,
  isNotModifiableAnswer,
  NON_MODIFIABLE_STATUSES,
  okResult,
  on,
  type ProposalFacts,
  readProposal,
  readRecord,
  type RouteOf,
  tokenOf,
  truthy,
  upsertBody,
} from './util.js';

/**
 * A modifiability check that misses one reason: when the upstream refuses because the proposal
 * cannot be modified and `missed(facts)` says the reason is the one the imitated server does not
 * check, the change is reported as done (a DELETE also hides the record afterwards).
 */
function modifiabilityGap(missed: (p: ProposalFacts) => boolean): Fault['rewrite'] {
  return hiding(
    on(['deleteSchedule', 'upsertSchedules'], async (req, route, ctx, next) => {
      const res = await next(req);
      if (!isNotModifiableAnswer(res)) return res;
      const p = await readProposal(ctx, route.proposalId);
      if (!p || !missed(p)) return res;
      if (route.op === 'deleteSchedule') {
        const rec = await readRecord(ctx, route.domain, route.scheduleId, ['ProposalID']);
        if (!rec || rec.ProposalID !== Number(route.proposalId)) return res;
        hideRecord(ctx, route.domain, Number(route.scheduleId));
        return withResponseJson(
          res,
          okResult(
            Number(route.scheduleId),
            null,
            `Deleted schedule with id ${Number(route.scheduleId)} successfully.`,
          ),
          200,
        );
      }
      const body = upsertBody(req);
      if (!body) return res;
      return withResponseJson(res, allSuccessful(body, ctx), 200);
    }),
  );
}

/** The reference's message for a schedule ID that is no active record of the proposal. */
function notOnProposal(domain: string, sid: number, proposalId: string): string {
  return `${domain} schedule with id ${sid} was not found on Proposal with ID# ${Number(proposalId)}.`;
}

/**
 * Whether the upstream accepts a change of this schedule record from this caller: an UpsertMulti
 * with one update of no fields, sent with the caller's token, goes through every check a DELETE
 * makes (token, Edit permission, proposal, schedule domain, modifiability, an active record of the
 * proposal) and changes nothing.
 */
async function passesScheduleChecks(
  req: ProxyRequest,
  route: RouteOf<'deleteSchedule' | 'reinstateSchedule'>,
  ctx: FaultContext,
): Promise<boolean> {
  const sid = Number(route.scheduleId);
  if (!Number.isSafeInteger(sid)) return false;
  const r = await ctx.call(
    'POST',
    `/api/Quotes/Proposals/${encodeURIComponent(route.proposalId)}/Schedules/${encodeURIComponent(route.domain)}/UpsertMulti`,
    { token: tokenOf(req, ctx) ?? null, body: { Inserts: [], Updates: [{ ID: sid, Fields: {} }], Deletes: [] } },
  );
  return r.status === 200 && r.json?.Updates?.[0]?.IsSuccessful === true;
}

const isOpen = (p: ProposalFacts) => !NON_MODIFIABLE_STATUSES.includes(String(p.StatusCode));

/**
 * The bug "modifiability cached per proposal type": the first schedule change of each proposal
 * type decides whether every later proposal of that type is modifiable. A later proposal judged
 * modifiable by the cache but not by the upstream is answered as changed (as modifiabilityGap
 * does); one judged not modifiable by the cache but modifiable is refused as the reference refuses
 * (HTTP 409, every item failed with its message), and nothing reaches the upstream.
 */
const modifiabilityPerType: Fault['rewrite'] = hiding(
  on(['deleteSchedule', 'upsertSchedules'], async (req, route, ctx, next) => {
    const p = await readProposal(ctx, route.proposalId);
    if (!p) return next(req);
    const cache: Map<string, boolean> = ctx.memory.get('modifiable') ?? new Map();
    ctx.memory.set('modifiable', cache);
    const type = String(p.ProposalType);
    const cached = cache.get(type);
    if (cached === false) {
      const actual = !NON_MODIFIABLE_STATUSES.includes(String(p.StatusCode)) && !truthy(p.PendingExpiryChange);
      // a proposal whose own set is bound is refused by the upstream too: only an open one is wronged
      if (actual) {
        const pid = Number(route.proposalId);
        const msg = `Cannot modify Proposal with ID# ${pid}.`;
        if (route.op === 'deleteSchedule') return makeResponse(409, failedResult(0, null, msg));
        const body = upsertBody(req);
        if (!body) return next(req);
        return makeResponse(409, {
          Inserts: body.Inserts.map((_, i) => failedResult(0, i, msg)),
          Updates: body.Updates.map((u, i) => failedResult(u?.ID ?? 0, i, msg)),
          Deletes: body.Deletes.map((_, i) => failedResult(0, i, msg)),
        });
      }
      return next(req);
    }
    const res = await next(req);
    const refused = isNotModifiableAnswer(res);
    if (cached === undefined) {
      if (isOk(res) || refused) cache.set(type, !refused);
      return res;
    }
    if (!refused) return res;
    // cached as modifiable: the imitated server changes what the upstream refused
    if (route.op === 'deleteSchedule') {
      const rec = await readRecord(ctx, route.domain, route.scheduleId, ['ProposalID']);
      if (!rec || rec.ProposalID !== Number(route.proposalId)) return res;
      hideRecord(ctx, route.domain, Number(route.scheduleId));
      const sid = Number(route.scheduleId);
      return withResponseJson(res, okResult(sid, null, `Deleted schedule with id ${sid} successfully.`), 200);
    }
    const body = upsertBody(req);
    return body ? withResponseJson(res, allSuccessful(body, ctx), 200) : res;
  }),
);

export const PROP_FAULTS: Fault[] = [
  {
    name: 'delete-ignores-modifiability',
    area: 'PROP',
    description:
      'Schedule DELETE skips the modifiability check: a record of a bound, rejected or cancelled proposal is deleted.',
    requirements: ['PROP-002', 'SCHED-018'],
    rewrite: hiding(
      on(['deleteSchedule'], async (req, route, ctx, next) => {
        const res = await next(req);
        if (!isNotModifiableAnswer(res)) return res;
        const rec = await readRecord(ctx, route.domain, route.scheduleId, ['ProposalID']);
        if (!rec || rec.ProposalID !== Number(route.proposalId)) return res;
        hideRecord(ctx, route.domain, Number(route.scheduleId));
        return withResponseJson(
          res,
          okResult(
            Number(route.scheduleId),
            null,
            `Deleted schedule with id ${Number(route.scheduleId)} successfully.`,
          ),
          200,
        );
      }),
    ),
  },
  {
    name: 'bound-proposal-set-ignored',
    area: 'PROP',
    description:
      'Modifiability looks at the proposal status only: a proposal whose proposal set is bound can still be changed.',
    // a proposal wrongly modifiable takes UpsertMulti and DELETE: PROP-005 and SCHED-018 state both
    requirements: ['PROP-003', 'PROP-005', 'SCHED-018'],
    rewrite: modifiabilityGap((p) => isOpen(p) && !truthy(p.PendingExpiryChange)),
  },
  {
    name: 'pending-expiry-change-ignored',
    area: 'PROP',
    description: 'A pending expiry-date-change endorsement does not make the proposal non-modifiable.',
    // a proposal wrongly modifiable takes UpsertMulti and DELETE: PROP-005 and SCHED-018 state both
    requirements: ['PROP-004', 'PROP-005', 'SCHED-018'],
    rewrite: modifiabilityGap((p) => isOpen(p) && truthy(p.PendingExpiryChange)),
  },
  {
    name: 'endorsement-modifiability-unchecked',
    area: 'PROP',
    description:
      'The modifiability check sits on the permanent-delete path only: schedules of a non-modifiable Endorsement (whose delete is soft) are changed and deleted.',
    requirements: ['PROP-002', 'PROP-005', 'SCHED-018'],
    rewrite: modifiabilityGap((p) => p.ProposalType === 'E'),
  },
  {
    name: 'endorsement-delete-permanent',
    area: 'PROP',
    description:
      'Schedule delete ignores the proposal type: an Endorsement record is deleted permanently, so Reinstate finds nothing.',
    requirements: ['PROP-001', 'SCHED-019', 'SCHED-021'],
    rewrite: hiding(
      on(['deleteSchedule', 'upsertSchedules'], async (req, route, ctx, next) => {
        const res = await next(req);
        const body = bodyJson(res);
        if (!isOk(res) || body === undefined) return res;
        const p = await readProposal(ctx, route.proposalId);
        if (p?.ProposalType !== 'E') return res;
        if (route.op === 'deleteSchedule') {
          if (body.IsSuccessful !== true) return res;
          hideRecord(ctx, route.domain, Number(route.scheduleId));
          body.Message = String(body.Message ?? '').replace(/\s*It can be reinstated\.?/i, '');
          return withResponseJson(res, body);
        }
        for (const r of Array.isArray(body.Deletes) ? body.Deletes : [])
          if (r?.IsSuccessful === true) hideRecord(ctx, route.domain, r.RecordID);
        return res;
      }),
    ),
  },
  {
    name: 'all-deletes-soft',
    area: 'PROP',
    description:
      'Schedule delete is always soft: records of Quote, Application, Renewal, Rewrite and Reissue proposals stay readable and reinstatable.',
    requirements: ['PROP-001', 'SCHED-022'],
    // The imitated server checks a delete and a reinstatement as the upstream does (token, Edit
    // permission, proposal, schedule domain, modifiability, an active record of that proposal) and
    // only then sets IsDeleted instead of deleting: whatever it would refuse, the upstream refuses.
    rewrite: on(['deleteSchedule', 'reinstateSchedule', 'getRecord', 'getFile'], async (req, route, ctx, next) => {
      const soft: Set<string> = ctx.memory.get('soft') ?? new Set();
      ctx.memory.set('soft', soft);
      if (route.op === 'getRecord' || route.op === 'getFile') {
        const res = await next(req);
        if (!soft.has(`${route.domain}/${Number(route.id)}`)) return res;
        const body = bodyJson(res);
        if (!isOk(res) || !body?.Record) return res;
        for (const k of keysOf(req, 'IsDeleted'))
          if (k in body.Record) body.Record[k] = typeof body.Record[k] === 'number' ? 1 : true;
        return withResponseJson(res, body);
      }
      const key = `${route.domain}/${Number(route.scheduleId)}`;
      const sid = Number(route.scheduleId);
      if (route.op === 'reinstateSchedule') {
        if (!soft.has(key) || !(await passesScheduleChecks(req, route, ctx))) return next(req);
        soft.delete(key);
        return makeResponse(200, okResult(sid, null, `Reinstated schedule with id ${sid} successfully.`));
      }
      if (!soft.has(key)) {
        const p = await readProposal(ctx, route.proposalId);
        if (!p || p.ProposalType === 'E') return next(req);
      }
      if (!(await passesScheduleChecks(req, route, ctx))) return next(req);
      // A record it soft-deleted is no active record any more: the reference's answer (HTTP 200).
      if (soft.has(key))
        return makeResponse(200, failedResult(0, null, notOnProposal(route.domain, sid, route.proposalId)));
      soft.add(key);
      return makeResponse(
        200,
        okResult(sid, null, `Deleted schedule with id ${sid} successfully. It can be reinstated.`),
      );
    }),
  },
  {
    // issue 42 item 5: a precondition every schedule test relies on
    name: 'modifiability-cached-per-proposal-type',
    area: 'PROP',
    description:
      'The modifiability answer is cached per proposal type: the first schedule change of each type decides for every later proposal of that type, modifiable or not.',
    // a later proposal not modifiable for any of the three reasons (status, bound set, pending
    // expiry change) is taken as modifiable: which of PROP-002/003/004 shows depends on which
    // proposal of a type the run changes first (seen both ways in two CI runs of one commit)
    requirements: ['PROP-002', 'PROP-003', 'PROP-004', 'PROP-005', 'SCHED-018'],
    rewrite: modifiabilityPerType,
  },
];
