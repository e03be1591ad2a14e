// Faults of member creation (MEM): spec 2.6, 4.5.
// Bodies are `Json` (the exchange's parsed body, of no known shape until a fault looks at it).
import type { Fault, FaultContext } from '../fault.js';
import { bodyJson, jsonString, problem, withResponseJson } from '../exchange.js';
import { on, onJsonResponse, readProposal } from './util.js';

const MEM: Fault[] = [
  {
    name: 'create-member-twice-succeeds',
    area: 'MEM',
    description:
      'CreateMember on a proposal that already has a member answers 200 with the existing member instead of the 500 error.',
    requirements: ['MEM-005', 'MEM-003'],
    rewrite: on(['createMember'], async (req, route, ctx, next) => {
      const res = await next(req);
      const body = bodyJson(res);
      if (res.status !== 500 || typeof body !== 'string' || !/already/i.test(body)) return res;
      const p = await readProposal(ctx, route.proposalId);
      return withResponseJson(
        res,
        { IsSuccessful: true, RecordID: p?.MemberID ?? 0, Message: null },
        200,
        'application/json',
      );
    }),
  },
  {
    name: 'create-member-validation-error-500',
    area: 'MEM',
    description:
      'A CreateMember validation failure is answered HTTP 500 with a JSON string instead of 200 with IsSuccessful false.',
    requirements: ['MEM-006'],
    rewrite: on(['createMember'], async (req, _route, _ctx, next) => {
      const res = await next(req);
      const body = bodyJson(res);
      if (res.status !== 200 || body?.IsSuccessful !== false) return res;
      return jsonString(500, String(body.Message ?? 'Member validation failed.'));
    }),
  },
  {
    name: 'create-member-message-on-success',
    area: 'MEM',
    description: 'A successful CreateMember fills Message ("Member created successfully.") instead of null.',
    requirements: ['MEM-002'],
    rewrite: onJsonResponse(['createMember'], (body) => {
      if (body?.IsSuccessful === true && body.Message === null) body.Message = 'Member created successfully.';
    }),
  },
  {
    name: 'create-member-requires-body',
    area: 'MEM',
    description: 'CreateMember without a body is refused (400) because the server binds a required JSON body.',
    requirements: ['MEM-008'],
    rewrite: on(['createMember'], async (req, _route, _ctx, next) => {
      if (req.body.length > 0 && req.body.toString().trim() !== '') return next(req);
      return problem(400, 'MalformedRequest', 'A JSON request body is required.');
    }),
  },
];

/** Member names a CreateMember body asked for: proposal id → name. */
function injectedNames(ctx: FaultContext): Map<number, string> {
  const m: Map<number, string> = ctx.memory.get('injectedNames') ?? new Map();
  ctx.memory.set('injectedNames', m);
  return m;
}

const MEM_BODY: Fault[] = [
  {
    name: 'create-member-body-sets-name',
    area: 'MEM',
    description:
      "CreateMember takes the member's name from a request body when one is sent, overriding the applicant data.",
    requirements: ['MEM-004'],
    rewrite: on(['createMember', 'getBindStatus'], async (req, route, ctx, next) => {
      const pid = Number(route.proposalId);
      const names = injectedNames(ctx);
      if (route.op === 'createMember') {
        const sent = bodyJson(req);
        const res = await next(req);
        const name = sent && typeof sent === 'object' ? (sent.Name ?? sent.MemberName) : undefined;
        if (typeof name === 'string' && res.status === 200 && bodyJson(res)?.IsSuccessful === true)
          names.set(pid, name);
        return res;
      }
      const res = await next(req);
      const body = bodyJson(res);
      const name = names.get(pid);
      if (name === undefined || res.status !== 200 || body?.Status !== 'Bound') return res;
      return withResponseJson(res, { ...body, MemberName: name });
    }),
  },
];

export const MEM_FAULTS: Fault[] = [...MEM, ...MEM_BODY];
