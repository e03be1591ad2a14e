// Controls of error answers: other statuses and bodies where the specification does not show them.
import type { Control } from '../fault.js';
import { bodyJson, cloneResponse, makeResponse, withResponseJson, type ProxyResponse } from '../exchange.js';
import { onError, problemCode, recode, restatus } from './util.js';

const NOT_SHOWN =
  'Section 7: "Error format and status codes for all other failures (unknown domain, missing record, invalid schedule domain, permission denied, unauthenticated): not shown."';

/** A problem-details answer of the reference (anything with `code` and `detail`). */
function isProblem(res: ProxyResponse): boolean {
  return problemCode(res) !== undefined;
}

function detailOf(res: ProxyResponse): string {
  const b = bodyJson(res);
  return typeof b?.detail === 'string' ? b.detail : `Request failed with status ${res.status}.`;
}

export const ERROR_CONTROLS: Control[] = [
  {
    name: 'unknown-domain-400',
    area: 'DOM',
    description: 'An unknown (or wrongly cased) domain is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/UnknownDomain', 'components/responses/NotFound'],
    select: ['DOM-', 'REC-', 'QRY-'],
    rewrite: recode(['UnknownDomain'], 400),
  },
  {
    name: 'unknown-domain-422',
    area: 'DOM',
    description: 'An unknown (or wrongly cased) domain is answered 422 Unprocessable Content.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/UnknownDomain'],
    select: ['DOM-', 'LINK-'],
    rewrite: recode(['UnknownDomain'], 422),
  },
  {
    name: 'missing-record-400',
    area: 'REC',
    description: 'A record (or a match key) that does not exist is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/RecordNotFound', 'components/responses/NotFound'],
    select: ['REC-', 'FILE-', 'LINK-', 'SCHED-'],
    rewrite: recode(['RecordNotFound'], 400),
  },
  {
    name: 'missing-record-410',
    area: 'REC',
    description: 'A record that does not exist (also one deleted permanently) is answered 410 Gone.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/RecordNotFound'],
    select: ['REC-', 'SCHED-', 'MEM-', 'BIND-'],
    rewrite: recode(['RecordNotFound'], 410),
  },
  {
    name: 'permission-denied-404',
    area: 'AUTH',
    description: 'A missing permission is answered 404 (the service hides what the caller may not see).',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/Forbidden'],
    select: ['AUTH-', 'DOM-', 'FILE-', 'LINK-'],
    rewrite: recode(['Forbidden'], 404),
  },
  {
    name: 'permission-denied-401',
    area: 'AUTH',
    description: 'A missing permission is answered 401 instead of 403.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/Forbidden'],
    select: ['AUTH-', 'LINK-'],
    rewrite: recode(['Forbidden'], 401),
  },
  {
    name: 'unauthenticated-403',
    area: 'AUTH',
    description: 'A request without a valid token is answered 403 instead of 401.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/Unauthenticated'],
    select: ['AUTH-', 'GEN-'],
    rewrite: recode(['Unauthenticated'], 403),
  },
  {
    name: 'bad-credentials-400',
    area: 'AUTH',
    description: 'Authenticate with wrong credentials is answered 400.',
    allowedBy: 'Section 5: "Token issuance, the header that carries the token, and token lifetime: not shown."',
    markers: ['paths/~1Authentication~1Authenticate/post', 'components/responses/BadCredentials'],
    select: ['AUTH-'],
    rewrite: recode(['Unauthenticated'], 400, ['authenticate']),
  },
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
    name: 'link-bad-request-422',
    area: 'LINK',
    description: 'A refused link request (non-linkable child, bad match field, unknown relationship) is answered 422.',
    allowedBy:
      'Section 4.4: "POST /api/Link/Upsert: ... Body fields for the relationship and the child side, and the response: not shown."',
    markers: ['components/responses/LinkBadRequest'],
    select: ['LINK-', 'AUTH-'],
    rewrite: recode(['MalformedRequest'], 422, ['upsertLink', 'removeLink', 'queryLinks']),
  },
  {
    name: 'invalid-schedule-domain-400',
    area: 'SCHED',
    description: 'A domain that is not a schedule domain of the proposal is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/ScheduleNotFound'],
    select: ['SCHED-', 'PROP-'],
    rewrite: recode(['InvalidScheduleDomain'], 400),
  },
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
  {
    name: 'not-modifiable-200',
    area: 'PROP',
    description:
      'Changes refused because the proposal cannot be modified are answered 200 (the result bodies say IsSuccessful false).',
    allowedBy:
      'Section 7: "Schedule DELETE on a proposal that cannot be modified | Result object with IsSuccessful false, RecordID 0, OrderNumber null, Message ... HTTP status: not shown"',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1UpsertMulti/post/responses/409',
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}/delete/responses/409',
    ],
    select: ['PROP-', 'SCHED-', 'AUTH-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && (route.op === 'upsertSchedules' || route.op === 'deleteSchedule'),
      (res) => cloneResponse(res, { status: 200 }),
    ),
  },
  {
    name: 'not-modifiable-422',
    area: 'PROP',
    description:
      'Changes refused because the proposal cannot be modified are answered 422 with the same result bodies.',
    allowedBy: 'Section 7: "... Warnings null. HTTP status: not shown"',
    markers: ['paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}/delete/responses/409'],
    select: ['PROP-', 'SCHED-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && (route.op === 'upsertSchedules' || route.op === 'deleteSchedule'),
      (res) => cloneResponse(res, { status: 422 }),
    ),
  },
  {
    name: 'reinstate-refused-200',
    area: 'SCHED',
    description: 'Reinstate of a record that is not soft-deleted answers 200 with IsSuccessful false instead of 409.',
    allowedBy:
      'Section 4.5: "POST .../Reinstate: restores a soft-deleted schedule record of an Endorsement proposal. Payload and response: not shown."',
    markers: [
      'paths/~1api~1Quotes~1Proposals~1{proposalId}~1Schedules~1{domain}~1{scheduleId}~1Reinstate/post/responses/409',
    ],
    select: ['SCHED-'],
    rewrite: onError(
      (res, _req, route) => res.status === 409 && route.op === 'reinstateSchedule',
      (res) => cloneResponse(res, { status: 200 }),
    ),
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
];
