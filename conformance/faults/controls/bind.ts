// Controls of binding (BIND): slower binding, the answers of QueueBindQuote and BindQuote, the
// undocumented payload parameters, other words, the format of BoundDateUTC, and the error answers.
import type { Control } from '../fault.js';
import { bodyJson, cloneRequest, isOk, type ProxyResponse, withResponseJson } from '../exchange.js';
import { operationOf } from '../operations.js';
import { only, onSuccess, recode } from './util.js';
import { readRecord } from '../catalogue/util.js';

const SLOW_BIND_MS = 8_000;

export const BIND_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'bind-refused-422',
    area: 'BIND',
    description: 'BindQuote on a proposal that cannot be bound is answered 422 instead of 409.',
    allowedBy:
      'Section 4.5: "POST /api/Quotes/Proposals/{proposalId}/BindQuote: binds a proposal. ... Payload and response: not shown."',
    markers: ['components/responses/BindConflict'],
    select: ['BIND-', 'MEM-'],
    rewrite: recode(['Conflict'], 422, ['bindQuote', 'queueBindQuote']),
  },
  // Slower binding, the answers of QueueBindQuote and BindQuote, the undocumented payload parameters,
  // other words, the format of BoundDateUTC.
  {
    name: 'queued-endorsement-ends-error',
    area: 'BIND',
    description:
      'A queued binding of an Endorsement proposal ends in Error ("Endorsements are bound by an underwriter."), all details null, where the reference binds it.',
    allowedBy:
      'Section 3: "outcome reported by BindStatus as Bound or Error"; Section 4.5: "Conditions that decide between Bound and Error after queuing, beyond the one example reason: not shown."',
    select: ['BIND-'],
    rewrite: only(['queueBindQuote', 'getBindStatus'], async (req, ctx, next) => {
      const route = operationOf(req);
      const res = await next(req);
      if (route.op === 'queueBindQuote' && isOk(res)) {
        const p = await readRecord(ctx, 'Proposal', String(route.proposalId), ['ProposalType']);
        if (p?.ProposalType === 'E') ctx.memory.set(`endorsement:${route.proposalId}`, true);
        return res;
      }
      const body = bodyJson(res);
      if (route.op !== 'getBindStatus' || !isOk(res) || !ctx.memory.has(`endorsement:${route.proposalId}`)) return res;
      if (!body || body.Status !== 'Bound') return res;
      return withResponseJson(res, {
        ...body,
        Status: 'Error',
        ErrorMessage: 'Endorsements are bound by an underwriter.',
        PolicyID: null,
        MemberID: null,
        PolicyNumber: null,
        MemberName: null,
        BoundDateUTC: null,
      });
    }),
  },
  {
    name: 'slow-binding',
    area: 'BIND',
    description: `Queued binding takes ${SLOW_BIND_MS / 1000} s: BindStatus says NotBound (all detail fields null) until then.`,
    allowedBy:
      'Section 3: "Proposal bind status | NotBound | POST QueueBindQuote | ... | binding runs asynchronously" (no duration is documented)',
    select: ['BIND-', 'MEM-007'],
    delaysMs: SLOW_BIND_MS,
    rewrite: only(['queueBindQuote', 'getBindStatus'], async (req, ctx, next) => {
      const route = operationOf(req);
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
      const route = operationOf(req);
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
      const op = operationOf(req).op;
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
