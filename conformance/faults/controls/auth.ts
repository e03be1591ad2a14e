// Controls of authentication: the header that carries the token and the token issuance endpoint.
import type { Control } from '../fault.js';
import { bodyJson, routeOf, withRequestJson, withResponseJson } from '../exchange.js';
import { problem } from '../exchange.js';
import type { Rewrite } from './util.js';

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
    rewrite: async (req, _ctx, next) => {
      if (routeOf(req).op !== 'authenticate') return next(req);
      const b = bodyJson(req);
      const r =
        b && typeof b === 'object'
          ? withRequestJson(req, { Account: b.account, User: b.username, Password: b.password, ClientName: 'control' })
          : req;
      const res = await next(r);
      const out = bodyJson(res);
      if (res.status !== 200 || typeof out?.Token !== 'string') return res;
      return withResponseJson(res, { access_token: out.Token, token_type: 'Bearer', expires_in: 3600 });
    },
  },
];
