// POST /Authentication/Authenticate (architecture section 2): {Account, User, Password, ClientName}
// → {Token, Expires}.
import type { Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import { checkCredentials, issueToken } from '../auth.js';
import { readJsonBody, validateBody } from '../validation.js';

// REQ: AUTH-010
export function register(app: Hono<AppEnv>, deps: Deps): void {
  app.post('/Authentication/Authenticate', async (c) => {
    const body = await readJsonBody(c);
    validateBody('post', '/Authentication/Authenticate', body);
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'MalformedRequest', 'The body must be an object {Account, User, Password, ClientName}.');
    }
    const b = body as Record<string, unknown>;
    for (const k of ['Account', 'User', 'Password']) {
      if (typeof b[k] !== 'string') throw new ApiError(400, 'MalformedRequest', `'${k}' must be a string.`);
    }
    if (b.ClientName !== undefined && b.ClientName !== null && typeof b.ClientName !== 'string') {
      throw new ApiError(400, 'MalformedRequest', "'ClientName' must be a string.");
    }
    const userId = checkCredentials(deps, b.Account as string, b.User as string, b.Password as string);
    if (userId === undefined) throw new ApiError(401, 'Unauthenticated', 'The account, user or password is wrong.');
    const t = issueToken(deps, userId, { clientName: (b.ClientName as string | undefined) ?? undefined });
    return c.json({ Token: t.token, Expires: t.expires.toISOString() });
  });
}
