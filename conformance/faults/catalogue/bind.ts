// Faults of binding (BIND): spec 2.4, 3, 4.5.
// Bodies are `Json` (the exchange's parsed body, of no known shape until a fault looks at it).
import type { Fault, FaultContext } from '../fault.js';
import {
  bodyJson,
  type Json,
  makeResponse,
  type ProxyRequest,
  type ProxyResponse,
  withResponseJson,
} from '../exchange.js';
import { fakeId, on, readProposal, tokenOf } from './util.js';

function bindStatusRewrite(
  fn: (
    body: Json,
    req: ProxyRequest,
    ctx: FaultContext,
    res: ProxyResponse,
  ) => ProxyResponse | void | Promise<ProxyResponse | void>,
): Fault['rewrite'] {
  return on(['getBindStatus'], async (req, _route, ctx, next) => {
    const res = await next(req);
    const body = bodyJson(res);
    if (res.status !== 200 || !body || typeof body !== 'object') return res;
    const out = await fn(body, req, ctx, res);
    return out ?? withResponseJson(res, body);
  });
}

const BIND: Fault[] = [
  {
    name: 'bind-error-answered-4xx',
    area: 'BIND',
    description: 'BindStatus answers the Error status with HTTP 422 instead of 200.',
    requirements: ['BIND-006', 'BIND-008'],
    rewrite: bindStatusRewrite((body, _req, _ctx, res) =>
      body.Status === 'Error' ? withResponseJson(res, body, 422) : undefined,
    ),
  },
  {
    name: 'not-bound-details-filled',
    area: 'BIND',
    description:
      "NotBound fills the detail fields from the proposal (its MemberID, the applicant's name, an empty PolicyNumber).",
    requirements: ['BIND-002'],
    rewrite: bindStatusRewrite(async (body, _req, ctx) => {
      if (body.Status !== 'NotBound') return;
      const p = await readProposal(ctx, body.ProposalID);
      body.MemberID = p?.MemberID ?? null;
      body.MemberName = p?.ApplicantName ?? '';
      body.PolicyNumber = '';
    }),
  },
  {
    name: 'bound-date-without-zone',
    area: 'BIND',
    description: 'BoundDateUTC is serialised without a zone designator (a local-looking timestamp).',
    // The documented format is also the schema's: the generic check (GEN-002) is the root failure,
    // and the tests of BIND-005 are blocked by it (one cause, one failure).
    requirements: ['BIND-005'],
    rewrite: bindStatusRewrite((body) => {
      if (typeof body.BoundDateUTC === 'string')
        body.BoundDateUTC = body.BoundDateUTC.replace(/(Z|[+-]\d\d:?\d\d)$/i, '');
    }),
  },
  {
    name: 'bound-member-name-missing',
    area: 'BIND',
    description: 'A Bound status leaves MemberName null (the member is not joined).',
    requirements: ['BIND-003'],
    rewrite: bindStatusRewrite((body) => {
      if (body.Status === 'Bound') body.MemberName = null;
    }),
  },
  {
    name: 'bind-error-message-null',
    area: 'BIND',
    description: 'An Error status carries no ErrorMessage (null).',
    requirements: ['BIND-004'],
    rewrite: bindStatusRewrite((body) => {
      if (body.Status === 'Error') body.ErrorMessage = null;
    }),
  },
  {
    name: 'bind-creates-missing-member',
    area: 'BIND',
    description: 'Binding a proposal without a member silently creates the member first instead of refusing.',
    // binding after QueueBindQuote without a member is what BIND-014 forbids
    requirements: ['MEM-007', 'BIND-014'],
    rewrite: on(['bindQuote', 'queueBindQuote'], async (req, route, ctx, next) => {
      const p = await readProposal(ctx, route.proposalId);
      if (p && (p.MemberID === null || p.MemberID === undefined)) {
        await ctx.call('POST', `/api/Quotes/Proposals/${Number(route.proposalId)}/CreateMember`, {
          token: tokenOf(req, ctx) ?? null,
        });
      }
      return next(req);
    }),
  },
];

/** Proposals queued for binding while they had no member. */
function queuedWithoutMember(ctx: FaultContext): Set<number> {
  const m: Set<number> = ctx.memory.get('queuedWithoutMember') ?? new Set();
  ctx.memory.set('queuedWithoutMember', m);
  return m;
}

/** When a proposal without a member was queued: proposal id → ms since the epoch. */
function queuedAt(ctx: FaultContext): Map<number, number> {
  const m: Map<number, number> = ctx.memory.get('queuedAt') ?? new Map();
  ctx.memory.set('queuedAt', m);
  return m;
}

/** How long after queueing the imitated retry binds a proposal that has no member. */
const LATE_BIND_MS = 1500;

const BIND_LATE: Fault[] = [
  {
    name: 'queue-bind-without-member-bound-late',
    area: 'BIND',
    description: `A binding refused for want of a member is retried by the queue and succeeds ${LATE_BIND_MS / 1000} s later (with a placeholder member), later than an accepted binding shows.`,
    requirements: ['BIND-014'],
    rewrite: on(['queueBindQuote', 'getBindStatus'], async (req, route, ctx, next) => {
      const pid = Number(route.proposalId);
      const queued = queuedAt(ctx);
      if (route.op === 'queueBindQuote') {
        const p = await readProposal(ctx, pid);
        if (p && (p.MemberID === null || p.MemberID === undefined) && !queued.has(pid)) queued.set(pid, Date.now());
        return next(req);
      }
      const res = await next(req);
      const at = queued.get(pid);
      if (at === undefined || Date.now() - at < LATE_BIND_MS || res.status !== 200 || bodyJson(res)?.Status === 'Bound')
        return res;
      return withResponseJson(res, {
        ProposalID: pid,
        Status: 'Bound',
        ErrorMessage: null,
        PolicyID: fakeId(ctx),
        MemberID: fakeId(ctx),
        PolicyNumber: `POL-${pid}`,
        MemberName: 'Placeholder member',
        BoundDateUTC: new Date(at + LATE_BIND_MS).toISOString(),
      });
    }),
  },
  {
    name: 'queue-bind-without-member-bound',
    area: 'BIND',
    description:
      'The binding queue does not check for a member: a queued proposal without one ends Bound (with a placeholder member) where the service would report Error.',
    requirements: ['BIND-014'],
    rewrite: on(['queueBindQuote', 'getBindStatus'], async (req, route, ctx, next) => {
      const pid = Number(route.proposalId);
      const queued = queuedWithoutMember(ctx);
      if (route.op === 'queueBindQuote') {
        const p = await readProposal(ctx, pid);
        if (p && (p.MemberID === null || p.MemberID === undefined)) queued.add(pid);
        return next(req);
      }
      const res = await next(req);
      const body = bodyJson(res);
      if (!queued.has(pid) || res.status !== 200 || body?.Status !== 'Error') return res;
      const p = await readProposal(ctx, pid);
      return withResponseJson(res, {
        ProposalID: pid,
        Status: 'Bound',
        ErrorMessage: null,
        PolicyID: fakeId(ctx),
        MemberID: fakeId(ctx),
        PolicyNumber: `POL-${pid}`,
        MemberName: p?.ApplicantName || 'Placeholder member',
        BoundDateUTC: new Date().toISOString(),
      });
    }),
  },
];

const BIND_QUEUE: Fault[] = [
  {
    name: 'queued-endorsement-never-binds',
    area: 'BIND',
    description:
      'The binding queue picks up Quote-like proposals only: QueueBindQuote on an Endorsement proposal is accepted (200) and never run, so BindStatus reports NotBound for good.',
    requirements: ['BIND-007'],
    rewrite: on(['queueBindQuote'], async (req, route, ctx, next) => {
      const p = await readProposal(ctx, Number(route.proposalId));
      // the queue accepts the request and drops it: the answer the service gives to a queued binding
      if (p?.ProposalType === 'E') return makeResponse(200);
      return next(req);
    }),
  },
];

// issue 44: blind misses of sequences (set 2), one bug of a request that depends on an earlier one
const BIND_SEQUENCE: Fault[] = [
  {
    name: 'bind-error-message-read-once',
    area: 'BIND',
    description:
      'The reason of a failed binding is handed out once: the first BindStatus read of the Error status carries its ErrorMessage, every later read answers Error with ErrorMessage null.',
    requirements: ['BIND-004', 'BIND-008'],
    rewrite: bindStatusRewrite((body, _req, ctx) => {
      if (body.Status !== 'Error' || body.ErrorMessage === null || body.ErrorMessage === undefined) return;
      const read: Set<string> = ctx.memory.get('errorRead') ?? new Set();
      ctx.memory.set('errorRead', read);
      const key = String(body.ProposalID);
      if (read.has(key)) body.ErrorMessage = null;
      else read.add(key);
    }),
  },
];

export const BIND_FAULTS: Fault[] = [...BIND, ...BIND_LATE, ...BIND_QUEUE, ...BIND_SEQUENCE];
