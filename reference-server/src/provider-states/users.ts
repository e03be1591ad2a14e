// Provider states of the auth area: 'a user', 'an expired token'.
import { randomBytes } from 'node:crypto';
import { createUser, isPermission, issueToken, RANDOM_PASSWORD_COST } from '../auth.js';
import { type Permission } from '../permissions.js';
import { ApiError } from '../errors.js';
import type { StateDef } from './registry.js';

function parseGrants(raw: unknown): Record<string, Permission[]> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new ApiError(400, 'MalformedRequest', "'grants' must be an object of domain → permissions.");
  const out: Record<string, Permission[]> = {};
  for (const [domain, perms] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(perms) || !perms.every(isPermission)) {
      throw new ApiError(400, 'MalformedRequest', `grants.${domain} must be a list of permissions.`);
    }
    out[domain] = perms as Permission[];
  }
  return out;
}

const aUser: StateDef = {
  setup(params, ctx) {
    const grants = parseGrants(params.grants);
    // Credentials are returned too, so a suite can exercise token issuance (AUTH-010).
    const account = 'provider-states';
    const user = `user-${ctx.setupId}-${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('base64url');
    const userId = createUser(ctx.deps.db, {
      account,
      name: user,
      password,
      passwordCost: RANDOM_PASSWORD_COST,
      grants,
    });
    ctx.track('users', userId); // tokens and grants go with the user (ON DELETE CASCADE)
    const { token } = issueToken(ctx.deps, userId, { clientName: 'provider-states' });
    return { token, userId, account, user, password };
  },
};

const anExpiredToken: StateDef = {
  setup(_params, ctx) {
    const userId = createUser(ctx.deps.db, {
      account: 'provider-states',
      name: `expired-${ctx.setupId}-${randomBytes(4).toString('hex')}`,
    });
    ctx.track('users', userId);
    const expires = new Date(ctx.deps.clock().getTime() - 60_000);
    const { token } = issueToken(ctx.deps, userId, { clientName: 'provider-states', expires });
    return { token };
  },
};

/** The states of this file, registered by provider-states/index.ts. */
export const USER_STATES: Record<string, StateDef> = {
  'a user': aUser,
  'an expired token': anExpiredToken,
};
