// Controls of the generic parts (GEN): the JSON shape (key order, whitespace, media-type parameters,
// extra keys and headers), error answers where the specification does not show them, and the
// provider-state endpoint.
import type { Control } from '../fault.js';
import {
  bodyJson,
  cloneResponse,
  isOk,
  type Json,
  makeResponse,
  type ProxyResponse,
  withResponseJson,
} from '../exchange.js';
import { operationOf } from '../operations.js';
import { everyJsonBody, NOT_SHOWN, onError, problemCode, recode, restatus } from './util.js';

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

/** A problem-details answer of the reference (anything with `code` and `detail`). */
function isProblem(res: ProxyResponse): boolean {
  return problemCode(res) !== undefined;
}

function detailOf(res: ProxyResponse): string {
  const b = bodyJson(res);
  return typeof b?.detail === 'string' ? b.detail : `Request failed with status ${res.status}.`;
}

/** The slow-answer control: every STALL_EVERY-th request through the proxy waits STALL_MS first. */
export const STALL_EVERY = 40;
export const STALL_MS = 12_000;

export const GEN_CONTROLS: Control[] = [
  // Time: the spec states no latency. A slow answer is no verdict (the run waits up to its request
  // time-out, 30 s by default, and asks a read once more after it).
  {
    name: 'slow-answer-one-in-forty',
    area: 'GEN',
    description: `One request in ${STALL_EVERY} is answered only after ${STALL_MS / 1000} s; every answer is the reference's.`,
    allowedBy:
      'Section 8: "Rate limits and maximum body sizes: not shown." (the limits it lists hold none of time; the spec states no latency anywhere)',
    // two files' tests, enough requests for a few stalls: what the proof needs, at the least cost to
    // CI. Not the model-based test (it judges DOM-007/DOM-008 too): its hundreds of requests meet a
    // stall every forty and outlast its time limit, which ends it `error` (exit 3, never 1), a gap
    // issue 42 names; this control proves the single requests of the area files.
    select: ['REC-', 'DOM-001', 'DOM-002', 'DOM-003', 'DOM-004', 'DOM-005', 'DOM-006'],
    delaysMs: STALL_MS,
    rewrite: async (req, ctx, next) => {
      const n = ((ctx.memory.get('calls') as number | undefined) ?? 0) + 1;
      ctx.memory.set('calls', n);
      if (n % STALL_EVERY === 0) await new Promise((r) => setTimeout(r, STALL_MS));
      return next(req);
    },
  },
  // The JSON shape: key order, whitespace, media-type parameters, extra keys and headers.
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
      const route = operationOf(req);
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
      const route = operationOf(req);
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
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'malformed-request-422',
    area: 'GEN',
    description: 'Malformed requests, unknown columns and invalid filters are answered 422 instead of 400.',
    allowedBy: NOT_SHOWN,
    markers: [
      'components/responses/MalformedRequest',
      'components/responses/BadQuery',
      'components/responses/BadRequest',
    ],
    select: ['GEN-', 'COL-', 'QRY-', 'SCHED-'],
    rewrite: recode(['MalformedRequest', 'UnknownColumn', 'InvalidFilter'], 422),
  },
  {
    name: 'limits-answered-400',
    area: 'GEN',
    description: 'Over-long URLs and over-large bodies are answered 400 instead of 414 and 413.',
    allowedBy: 'Section 8: "Rate limits and maximum body sizes: not shown."',
    markers: ['components/responses/PayloadTooLarge', 'components/responses/UriTooLong'],
    select: ['GEN-', 'SCHED-', 'LINK-'],
    rewrite: recode(['PayloadTooLarge', 'UriTooLong'], 400),
  },
  {
    name: 'wrong-method-405',
    area: 'GEN',
    description:
      'A known path with a method it does not serve is answered 405 Method Not Allowed (with Allow) instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/NotFound'],
    select: ['GEN-', 'DOM-', 'LINK-'],
    rewrite: onError(
      (res, req) => problemCode(res) === 'NotFound' && /no route/i.test(detailOf(res)) && req.path.startsWith('/api/'),
      (res) => {
        const out = restatus(res, 405);
        return { ...out, headers: { ...out.headers, allow: 'GET, POST' } };
      },
    ),
  },
  {
    name: 'undeclared-method-404',
    area: 'GEN',
    description:
      'A method a declared path does not serve is answered 404 Not Found, without an Allow header, instead of 405.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/MethodNotAllowed'],
    select: ['GEN-', 'DOM-', 'REC-', 'LINK-'],
    rewrite: onError(
      (res) => problemCode(res) === 'MethodNotAllowed',
      (res) => {
        const out = withResponseJson(res, { ...bodyJson(res), title: 'Not Found', status: 404, code: 'NotFound' }, 404);
        const { allow: _allow, ...headers } = out.headers;
        return { ...out, headers };
      },
    ),
  },
  {
    name: 'errors-other-shape',
    area: 'GEN',
    description: 'Error bodies are `{"error": {"code", "message"}}` as application/json instead of problem details.',
    allowedBy: NOT_SHOWN,
    markers: ['components/schemas/Problem'],
    select: ['GEN-', 'DOM-', 'REC-', 'COL-', 'QRY-', 'LINK-', 'AUTH-'],
    rewrite: onError(isProblem, (res) =>
      makeResponse(
        res.status,
        { error: { code: problemCode(res), message: detailOf(res) } },
        { 'content-type': 'application/json' },
      ),
    ),
  },
  {
    name: 'errors-as-json-string',
    area: 'GEN',
    description:
      'Error bodies are a bare JSON string (as the documented CreateMember error) instead of problem details.',
    allowedBy: `${NOT_SHOWN} Section 7 shows a bare JSON string body for one server error.`,
    markers: ['components/schemas/Problem'],
    select: ['GEN-', 'DOM-', 'REC-', 'FILE-', 'SCHED-', 'PROP-'],
    rewrite: onError(isProblem, (res) =>
      makeResponse(res.status, detailOf(res), { 'content-type': 'application/json' }),
    ),
  },
  {
    name: 'errors-without-body',
    area: 'GEN',
    description: 'Error answers carry no body at all (status only).',
    allowedBy: NOT_SHOWN,
    markers: ['components/schemas/Problem'],
    select: ['GEN-', 'DOM-', 'REC-', 'QRY-', 'LINK-', 'AUTH-'],
    rewrite: onError(isProblem, (res) => ({ status: res.status, headers: {}, body: Buffer.alloc(0) })),
  },
  {
    name: 'problem-as-application-json',
    area: 'GEN',
    description: 'Problem details are served as `application/json; charset=utf-8` instead of application/problem+json.',
    allowedBy: 'Section 4: "All bodies are JSON." (the media type of errors is not shown)',
    markers: ['components/schemas/Problem'],
    select: ['GEN-', 'REC-', 'QRY-'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      if (!(res.headers['content-type'] ?? '').includes('problem+json')) return res;
      return cloneResponse(res, { headers: { ...res.headers, 'content-type': 'application/json; charset=utf-8' } });
    },
  },
  // The provider-state endpoint (spec/provider-states.yaml): the interface stays the reference's,
  // the endpoint that sets up its fixtures answers like another vendor's would. The interface spec
  // does not govern that endpoint; the protocol does, and it promises that an endpoint of an older
  // version, or one that supports only what the protocol requires, never turns a test red: the tests
  // it cannot serve end not-applicable or precondition-failed, with the state named
  // (judge: 'state-endpoint', judge-state-endpoint.ts).
  {
    name: 'state-endpoint-protocol-1-0-0',
    area: 'GEN',
    description:
      'The provider-state endpoint speaks protocol 1.0.0: it declares no version, ignores the newer params, leaves out the newer values and makes records of Claim only.',
    allowedBy:
      'Section 9: "Versioning: not shown"; spec/provider-states.yaml, "Versions and negotiation": an endpoint that declares no version speaks 1.0.0, and a test that needs more is not run',
    serverFlags: ['--provider-states-mode', '1.0.0'],
    judge: 'state-endpoint',
  },
  {
    name: 'state-endpoint-required-only',
    area: 'GEN',
    description:
      'The provider-state endpoint declares the newest protocol but supports only what it requires: optional params newer than 1.0.0 are ignored, optional values left out.',
    allowedBy:
      'Section 9: "Versioning: not shown"; spec/provider-states.yaml, "Versions and negotiation": a param that shapes the fixture is confirmed by the answer, and a test whose param was not honoured is precondition-failed',
    serverFlags: ['--provider-states-mode', 'minimal'],
    judge: 'state-endpoint',
  },
];
