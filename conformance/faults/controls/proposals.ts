// Controls of proposals: slower binding, the answers of QueueBindQuote, BindQuote and Reinstate,
// the undocumented payload parameters, synonyms of every message the suite checks for meaning,
// and the open parts of the result objects.
import type { Control } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  jsonString,
  routeOf,
  withResponseJson,
  type ProxyResponse,
} from '../exchange.js';
import { noContent, only, onSuccess } from './util.js';

/** Every schedule operation result of an answer (one object, or the three arrays of UpsertMulti). */
function results(body: any): any[] {
  if (!body || typeof body !== 'object') return [];
  if ('IsSuccessful' in body) return [body];
  return ['Inserts', 'Updates', 'Deletes'].flatMap((k) => (Array.isArray(body[k]) ? body[k] : []));
}

/** Schedule answers (successful or not) with each result's Message rewritten by `fn`. */
function scheduleMessages(fn: (msg: string, proposalId: string) => string): NonNullable<Control['rewrite']> {
  return only(['upsertSchedules', 'deleteSchedule', 'reinstateSchedule'], async (req, _ctx, next) => {
    const route = routeOf(req);
    const res = await next(req);
    if (route.op !== 'upsertSchedules' && route.op !== 'deleteSchedule' && route.op !== 'reinstateSchedule') return res;
    const body = bodyJson(res);
    const rs = results(body);
    if (rs.length === 0) return res;
    for (const r of rs) if (typeof r.Message === 'string') r.Message = fn(r.Message, route.proposalId);
    return withResponseJson(res, body);
  });
}

const NOT_MODIFIABLE = /cannot (be )?modif/i;
const SLOW_BIND_MS = 8_000;

export const PROPOSAL_CONTROLS: Control[] = [
  {
    name: 'slow-binding',
    area: 'BIND',
    description: `Queued binding takes ${SLOW_BIND_MS / 1000} s: BindStatus says NotBound (all detail fields null) until then.`,
    allowedBy:
      'Section 3: "Proposal bind status | NotBound | POST QueueBindQuote | ... | binding runs asynchronously" (no duration is documented)',
    select: ['BIND-', 'MEM-007'],
    rewrite: only(['queueBindQuote', 'getBindStatus'], async (req, ctx, next) => {
      const route = routeOf(req);
      const res = await next(req);
      if (route.op === 'queueBindQuote' && isOk(res)) {
        if (!ctx.memory.has(`q:${route.proposalId}`)) ctx.memory.set(`q:${route.proposalId}`, Date.now());
        return res;
      }
      if (route.op !== 'getBindStatus' || !isOk(res)) return res;
      const since = ctx.memory.get(`q:${route.proposalId}`) as number | undefined;
      const body = bodyJson(res);
      if (since === undefined || Date.now() - since >= SLOW_BIND_MS || !body || body.Status === 'NotBound') return res;
      return withResponseJson(res, {
        ...body,
        Status: 'NotBound',
        ErrorMessage: null,
        PolicyID: null,
        MemberID: null,
        PolicyNumber: null,
        MemberName: null,
        BoundDateUTC: null,
      });
    }),
  },
  {
    name: 'queue-bind-answers-202',
    area: 'BIND',
    description:
      'QueueBindQuote answers 202 Accepted with `{"Queued": true, "ProposalID": n}` instead of an empty 200.',
    allowedBy:
      'Section 4.5: "POST .../QueueBindQuote: queues asynchronous binding; the outcome is read through BindStatus. Payload and response: not shown."',
    markers: ['paths/~1api~1Quotes~1Proposals~1{proposalId}~1QueueBindQuote/post/responses/200'],
    select: ['BIND-', 'MEM-007'],
    rewrite: only(['queueBindQuote'], async (req, _ctx, next) => {
      const route = routeOf(req);
      const res = await next(req);
      if (route.op !== 'queueBindQuote' || res.status !== 200) return res;
      return withResponseJson(res, { Queued: true, ProposalID: Number(route.proposalId) }, 202, 'application/json');
    }),
  },
  {
    name: 'queue-bind-ignores-billing',
    area: 'BIND',
    description: 'QueueBindQuote has no billing parameters: `billingFrequencyCode` and `billingStatus` are ignored.',
    allowedBy: 'Section 4.5: "QueueBindQuote ... Payload and response: not shown."',
    markers: ['components/parameters/BillingFrequencyCode', 'components/parameters/BillingStatus'],
    select: ['BIND-'],
    rewrite: only(['queueBindQuote', 'bindQuote'], async (req, _ctx, next) => {
      const op = routeOf(req).op;
      if (op !== 'queueBindQuote' && op !== 'bindQuote') return next(req);
      const r = cloneRequest(req);
      r.query.delete('billingFrequencyCode');
      r.query.delete('billingStatus');
      return next(r);
    }),
  },
  {
    name: 'bind-quote-other-result',
    area: 'BIND',
    description:
      'A successful BindQuote answers `{"Bound": true, "Policy": {"ID", "Number"}}` instead of the reference result.',
    allowedBy: 'Section 4.5: "POST .../BindQuote: binds a proposal. ... Payload and response: not shown."',
    markers: [
      'components/schemas/BindQuoteResult',
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1BindQuote/post/responses/200',
    ],
    select: ['BIND-', 'MEM-'],
    rewrite: onSuccess(['bindQuote'], (res, body) =>
      withResponseJson(res, {
        Bound: true,
        Policy: { ID: body?.PolicyID ?? null, Number: body?.PolicyNumber ?? null },
      }),
    ),
  },
  {
    name: 'reinstate-answers-204',
    area: 'SCHED',
    description: 'A successful Reinstate answers 204 without a body.',
    allowedBy:
      'Section 4.5: "POST .../Reinstate: restores a soft-deleted schedule record of an Endorsement proposal. Payload and response: not shown."',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}~1Reinstate/post/responses/200',
    ],
    select: ['SCHED-', 'AUTH-'],
    rewrite: onSuccess(['reinstateSchedule'], (res) => noContent(res)),
  },
  {
    name: 'not-modifiable-says-locked',
    area: 'PROP',
    description: 'A change refused on a non-modifiable proposal says "Proposal 12 is locked and cannot be changed."',
    allowedBy:
      'Section 7: "`Message` saying that the proposal with the given ID cannot be modified" (the wording is not shown)',
    select: ['PROP-', 'SCHED-'],
    rewrite: scheduleMessages((m, pid) =>
      NOT_MODIFIABLE.test(m) ? `Proposal ${Number(pid)} is locked and cannot be changed.` : m,
    ),
  },
  {
    name: 'not-modifiable-says-read-only',
    area: 'PROP',
    description: 'A change refused on a non-modifiable proposal says "Proposal 12 is read-only; no changes were made."',
    allowedBy:
      'Section 7: "`Message` saying that the proposal with the given ID cannot be modified" (the wording is not shown)',
    select: ['PROP-', 'SCHED-'],
    rewrite: scheduleMessages((m, pid) =>
      NOT_MODIFIABLE.test(m) ? `Proposal ${Number(pid)} is read-only; no changes were made.` : m,
    ),
  },
  {
    name: 'member-assigned-other-words',
    area: 'MEM',
    description:
      'CreateMember on a proposal with a member answers the JSON string "Proposal 12 already has a member (MemberID 34); nothing was created."',
    allowedBy:
      'Section 7: "HTTP 500; body is a JSON string saying that a MemberID is already assigned to the proposal record" (the wording is not shown)',
    select: ['MEM-'],
    rewrite: only(['createMember'], async (req, ctx, next) => {
      const route = routeOf(req);
      const res = await next(req);
      if (route.op !== 'createMember' || res.status !== 500 || typeof bodyJson(res) !== 'string') return res;
      const r = await ctx.call('GET', `/api/Proposal/${Number(route.proposalId)}?columns=MemberID`);
      const member = r.json?.Record?.MemberID ?? '?';
      return jsonString(
        500,
        `Proposal ${Number(route.proposalId)} already has a member (MemberID ${member}); nothing was created.`,
      );
    }),
  },
  {
    name: 'location-name-other-words',
    area: 'SCHED',
    description:
      'A ProposalLocation without LocationName fails with "LocationName: a value must be provided." instead of "LocationName is required."',
    allowedBy: 'Section 4.5 rule 6: "fails with the message that LocationName is required" (the wording is not shown)',
    select: ['SCHED-', 'PROP-'],
    rewrite: scheduleMessages((m) =>
      /LocationName is required/i.test(m) ? 'LocationName: a value must be provided.' : m,
    ),
  },
  {
    name: 'schedule-messages-other-words',
    area: 'SCHED',
    description:
      'Successful schedule operations say "Schedule 17 was inserted." (updated, deleted, reinstated) instead of the reference wording.',
    allowedBy:
      'Section 2.5: "Message | Outcome text, for example that a schedule with the given ID was inserted, updated or deleted successfully" (the wording is not shown)',
    select: ['SCHED-'],
    rewrite: scheduleMessages((m) => {
      const x = /^(Inserted|Updated|Deleted|Reinstated) schedule with id (\d+) successfully\.(.*)$/i.exec(m);
      return x ? `Schedule ${x[2]} was ${x[1]!.toLowerCase()}.${x[3]}` : m;
    }),
  },
  {
    name: 'bind-error-other-words',
    area: 'BIND',
    description:
      'A proposal that is not rated fails binding with "The proposal has not been rated yet; rate it before binding."',
    allowedBy:
      'Section 3: "Error (ErrorMessage filled; an example reason is that rating must be completed before binding)" (the wording is not shown)',
    select: ['BIND-'],
    rewrite: onSuccess(['getBindStatus'], (res, body) => {
      if (!body || typeof body.ErrorMessage !== 'string' || !/rating must be completed/i.test(body.ErrorMessage))
        return res;
      return withResponseJson(res, {
        ...body,
        ErrorMessage: 'The proposal has not been rated yet; rate it before binding.',
      });
    }),
  },
  {
    name: 'warnings-empty-list',
    area: 'SCHED',
    description:
      'Schedule operation results carry `Warnings: []` instead of null (except the refused DELETE on a non-modifiable proposal, where section 7 documents null).',
    allowedBy:
      'Section 2.5: "Warnings | null or list | Warnings; only null is seen" (section 7 documents `Warnings` null only for the schedule DELETE on a proposal that cannot be modified)',
    select: ['SCHED-', 'PROP-'],
    rewrite: only(['upsertSchedules', 'deleteSchedule', 'reinstateSchedule'], async (req, _ctx, next) => {
      const op = routeOf(req).op;
      const res = await next(req);
      if (op !== 'upsertSchedules' && op !== 'deleteSchedule' && op !== 'reinstateSchedule') return res;
      const body = bodyJson(res);
      const rs = results(body);
      if (rs.length === 0) return res;
      const documentedNull = (r: any) =>
        op === 'deleteSchedule' && r.IsSuccessful === false && NOT_MODIFIABLE.test(String(r.Message));
      for (const r of rs) if (r.Warnings === null && !documentedNull(r)) r.Warnings = [];
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'bound-date-with-offset',
    area: 'BIND',
    description:
      'BoundDateUTC is written with a `+00:00` offset and no fraction (`2026-11-21T05:40:12+00:00`) instead of `Z`.',
    allowedBy: 'Section 2.4: "BoundDateUTC | timestamp (UTC, ISO 8601) or null" (the ISO 8601 form is not shown)',
    select: ['BIND-'],
    rewrite: onSuccess(['getBindStatus'], (res: ProxyResponse, body) => {
      if (!body || typeof body.BoundDateUTC !== 'string') return res;
      const d = new Date(body.BoundDateUTC);
      if (Number.isNaN(d.getTime())) return res;
      return withResponseJson(res, { ...body, BoundDateUTC: `${d.toISOString().slice(0, 19)}+00:00` });
    }),
  },
];
