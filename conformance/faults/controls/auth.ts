// Controls of authentication (AUTH): the header that carries the token, the token issuance endpoint,
// how Link/Query answers a caller who may not see every link it selects, and the error answers of
// unauthenticated and forbidden requests.
import type { Control } from '../fault.js';
import { bodyJson, isOk, problem, withRequestJson, withResponseJson } from '../exchange.js';
import { NOT_SHOWN, only, recode, type Rewrite } from './util.js';
import { readsGrants, operationOf } from '../operations.js';

const AUTH_OPEN = 'Section 5: "Token issuance, the header that carries the token, and token lifetime: not shown."';

/** The token moves from header `vendor` (after `prefix`) to the reference's `Token`; a `Token` header the client sends is ignored. */
function tokenFrom(vendor: string, prefix: string): Rewrite {
  return (req, ctx, next) => {
    const headers = { ...req.headers };
    const raw = headers[vendor.toLowerCase()];
    delete headers[ctx.tokenHeader];
    delete headers[vendor.toLowerCase()];
    if (raw !== undefined) {
      if (!raw.startsWith(prefix))
        return Promise.resolve(problem(401, 'Unauthenticated', `Use ${vendor}: ${prefix}<token>.`));
      headers[ctx.tokenHeader] = raw.slice(prefix.length);
    }
    return next({ ...req, headers });
  };
}

export const AUTH_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
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
  // The header that carries the token, the token issuance endpoint, and how Link/Query answers a
  // caller who may not see every link it selects.
  {
    name: 'token-as-bearer',
    area: 'AUTH',
    description: 'The token is sent as `Authorization: Bearer <token>`; a `Token` header is ignored.',
    allowedBy: AUTH_OPEN,
    markers: ['components/securitySchemes/Token', 'components/responses/Unauthenticated'],
    config: { bindings: { tokenHeader: 'Authorization', tokenPrefix: 'Bearer ' } },
    rewrite: tokenFrom('Authorization', 'Bearer '),
  },
  {
    name: 'token-in-x-api-key',
    area: 'AUTH',
    description: 'The token is sent in an `X-API-Key` header; a `Token` header is ignored.',
    allowedBy: AUTH_OPEN,
    markers: ['components/securitySchemes/Token'],
    select: ['AUTH-', 'FILE-', 'LINK-', 'DOM-'],
    config: { bindings: { tokenHeader: 'X-API-Key' } },
    rewrite: tokenFrom('X-API-Key', ''),
  },
  {
    name: 'authenticate-other-shape',
    area: 'AUTH',
    description:
      'Authenticate takes `{account, username, password}` and answers `{"access_token", "token_type", "expires_in"}`.',
    allowedBy: AUTH_OPEN,
    markers: [
      'paths/~1Authentication~1Authenticate/post',
      'components/schemas/AuthenticateRequest',
      'components/schemas/AuthenticateResponse',
    ],
    select: ['AUTH-'],
    rewrite: only(['authenticate'], async (req, _ctx, next) => {
      if (operationOf(req).op !== 'authenticate') return next(req);
      const b = bodyJson(req);
      const r =
        b && typeof b === 'object'
          ? withRequestJson(req, { Account: b.account, User: b.username, Password: b.password, ClientName: 'control' })
          : req;
      const res = await next(r);
      const out = bodyJson(res);
      if (res.status !== 200 || typeof out?.Token !== 'string') return res;
      return withResponseJson(res, { access_token: out.Token, token_type: 'Bearer', expires_in: 3600 });
    }),
  },
  {
    name: 'link-query-refuses-partial-view',
    area: 'AUTH',
    description:
      'Link/Query refuses (403) a query that selects a link the caller may not see, instead of leaving that link out.',
    allowedBy:
      'Section 5: "Link operations check the user\'s permissions on the parent domain. The user must also hold View permission on the child domain." with section 7: "Error format and status codes for all other failures (... permission denied ...): not shown." (whether a failed check refuses the query or leaves the link out is not shown)',
    select: ['AUTH-', 'LINK-'],
    rewrite: readsGrants(
      only(['queryLinks'], async (req, ctx, next) => {
        const own = await next(req);
        const token = req.headers[ctx.tokenHeader];
        const grants = token ? ctx.grantsOf(token) : undefined;
        if (operationOf(req).op !== 'queryLinks' || !grants || grants === 'admin' || !isOk(own)) return own;
        // the links the administrator sees for the same query: more than the caller's means some were left out
        const all = await next({ ...req, headers: { ...req.headers, [ctx.tokenHeader]: await ctx.adminToken() } });
        const mine = bodyJson(own)?.List;
        const every = bodyJson(all)?.List;
        if (isOk(all) && Array.isArray(mine) && Array.isArray(every) && every.length > mine.length)
          return problem(403, 'Forbidden', 'You may not view every link this query selects.');
        return own;
      }),
    ),
  },
];
