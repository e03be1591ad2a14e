// Controls of the JSON shape: key order, whitespace, media-type parameters, extra keys and headers.
import type { Control } from '../fault.js';
import { bodyJson, isOk, routeOf, withResponseJson, type Json } from '../exchange.js';
import { everyJsonBody } from './util.js';

/** The same value with the keys of every object in reverse order. */
function reverseKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reverseKeys(x)]),
    );
  return v;
}

export const SHAPE_CONTROLS: Control[] = [
  {
    name: 'reversed-key-order',
    area: 'GEN',
    description: 'Every JSON object (envelopes, records, results, errors) lists its keys in reverse order.',
    allowedBy: 'Section 4: "All bodies are JSON." (JSON objects are unordered; no key order is documented)',
    rewrite: everyJsonBody(reverseKeys),
  },
  {
    name: 'pretty-printed-json',
    area: 'GEN',
    description:
      'Every JSON body is indented with two spaces and ends with a newline; the media type carries `charset=utf-8`.',
    allowedBy: 'Section 4: "All bodies are JSON." (whitespace and media-type parameters are not shown)',
    select: ['GEN-', 'REC-', 'FILE-', 'SCHED-', 'MEM-'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      const body = bodyJson(res);
      if (body === undefined) return res;
      const type = (res.headers['content-type'] ?? 'application/json').split(';')[0]!;
      return {
        status: res.status,
        headers: { ...res.headers, 'content-type': `${type}; charset=utf-8` },
        body: Buffer.from(JSON.stringify(body, null, 2) + '\n'),
      };
    },
  },
  {
    name: 'extra-response-headers',
    area: 'GEN',
    description: 'Every answer carries extra headers: X-Request-ID, Cache-Control: no-store, ETag, X-Powered-By, Vary.',
    allowedBy: 'Section 4: "All bodies are JSON." (headers other than the token header are not shown)',
    select: ['GEN-', 'REC-', 'QRY-', 'LINK-', 'BIND-'],
    rewrite: async (req, ctx, next) => {
      const res = await next(req);
      const n = (ctx.memory.get('n') ?? 0) + 1;
      ctx.memory.set('n', n);
      return {
        ...res,
        headers: {
          ...res.headers,
          'x-request-id': `req-${n}`,
          'cache-control': 'no-store',
          etag: `W/"${n}"`,
          'x-powered-by': 'control',
          vary: 'Accept, Token',
        },
      };
    },
  },
  {
    name: 'extra-envelope-keys',
    area: 'GEN',
    description:
      'Envelopes carry keys beyond the documented ones: `Links` beside Record/Domain/Id, `Skip`/`Take` beside List, `IsAtomic` beside Inserts/Updates/Deletes.',
    allowedBy:
      'Section 4.2: "Response | object with `Record` (...), `Domain` (...), `Id` (...)" and "object with `List`" (further members are not excluded)',
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      const route = routeOf(req);
      const body = bodyJson(res);
      if (!isOk(res) || !body || typeof body !== 'object' || Array.isArray(body)) return res;
      if ('Record' in body && 'Id' in body) body.Links = { self: `${req.path}` };
      else if (Array.isArray(body.List)) Object.assign(body, { Skip: 0, Take: body.List.length });
      else if (route.op === 'upsertSchedules' && Array.isArray(body.Inserts))
        body.IsAtomic = req.query.get('isAtomic') === 'true';
      else return res;
      return withResponseJson(res, body);
    },
  },
  {
    name: 'extra-result-keys',
    area: 'GEN',
    description:
      'Result objects carry extra keys: schedule results `Code`, the member result `ProposalID`, the bind status `UpdatedDateUTC`.',
    allowedBy:
      'Sections 2.4-2.6 list the fields of the bind status, the schedule operation result and the member creation result (further members are not excluded)',
    select: ['SCHED-', 'MEM-', 'BIND-', 'PROP-'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      const route = routeOf(req);
      const body = bodyJson(res);
      if (!body || typeof body !== 'object' || Array.isArray(body)) return res;
      const tag = (r: any) => {
        if (r && typeof r === 'object' && 'IsSuccessful' in r) r.Code = r.IsSuccessful ? 'OK' : 'REFUSED';
      };
      if (route.op === 'upsertSchedules') for (const k of ['Inserts', 'Updates', 'Deletes']) body[k]?.forEach?.(tag);
      else if (route.op === 'deleteSchedule' || route.op === 'reinstateSchedule') tag(body);
      else if (route.op === 'createMember') body.ProposalID = Number(route.proposalId);
      else if (route.op === 'getBindStatus' && isOk(res)) body.UpdatedDateUTC = '2026-01-01T00:00:00Z';
      else return res;
      return withResponseJson(res, body);
    },
  },
];
