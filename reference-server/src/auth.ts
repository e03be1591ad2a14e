// Tokens, users, permissions and the authentication middleware (architecture sections 2 and 3).
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type Database from 'better-sqlite3';
import type { AppEnv, Deps } from './deps.js';
import { ApiError } from './errors.js';

export type Permission = 'View' | 'Edit' | 'AttachContacts' | 'DetachContacts' | 'AttachFiles' | 'ModifyFiles' | 'RestrictDownload' | 'Full';
export const PERMISSIONS: readonly Permission[] = ['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'RestrictDownload', 'Full'];
/** The admin set: every permission except RestrictDownload (architecture section 5, 'a user'). */
export const ADMIN_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => p !== 'RestrictDownload');

export interface User {
  userId: number;
  name: string;
  grants: Map<string, Set<Permission>>;
}

/** The header that carries the token (implementation-defined). */
// REQ: AUTH-010
export const TOKEN_HEADER = 'Token';
/** Token lifetime: 30 minutes. */
export const TOKEN_LIFETIME_MS = 30 * 60 * 1000;
/** The wildcard domain in the grants table: the permission holds on every domain. */
export const ALL_DOMAINS = '*';

export function isPermission(x: unknown): x is Permission {
  return typeof x === 'string' && (PERMISSIONS as readonly string[]).includes(x);
}

export function can(user: User, domain: string, perm: Permission): boolean {
  return user.grants.get(domain)?.has(perm) ?? false;
}

/** ApiError 403 Forbidden unless the user holds `perm` on `domain`. */
// REQ: AUTH-012
export function requirePermission(user: User, domain: string, perm: Permission): void {
  if (!can(user, domain, perm)) {
    throw new ApiError(403, 'Forbidden', `Permission '${perm}' on domain '${domain}' is required.`);
  }
}

// ---- passwords -------------------------------------------------------------------------------

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function verifyPassword(password: string, stored: string | null | undefined): boolean {
  if (!stored) return false;
  const [scheme, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = scryptSync(password, Buffer.from(saltB64, 'base64'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// ---- users and grants ------------------------------------------------------------------------

export interface NewUser {
  account?: string;
  name: string;
  password?: string;
  /** domain (or '*') → permissions; omitted: admin (every permission on every domain except RestrictDownload) */
  grants?: Record<string, readonly Permission[]>;
}

export function createUser(db: Database.Database, u: NewUser): number {
  return db.transaction(() => {
    const id = Number(
      db
        .prepare('INSERT INTO users (Account, Name, PasswordHash) VALUES (?, ?, ?)')
        .run(u.account ?? 'reference', u.name, u.password === undefined ? null : hashPassword(u.password)).lastInsertRowid,
    );
    const grants = u.grants ?? { [ALL_DOMAINS]: ADMIN_PERMISSIONS };
    const ins = db.prepare('INSERT OR IGNORE INTO grants (UserID, Domain, Permission) VALUES (?, ?, ?)');
    for (const [domain, perms] of Object.entries(grants)) for (const p of perms) ins.run(id, domain, p);
    return id;
  })();
}

export function loadUser(deps: Deps, userId: number): User | undefined {
  const row = deps.db.prepare('SELECT UserID, Name FROM users WHERE UserID = ?').get(userId) as
    | { UserID: number; Name: string }
    | undefined;
  if (!row) return undefined;
  const grants = new Map<string, Set<Permission>>();
  const add = (domain: string, p: Permission) => {
    let s = grants.get(domain);
    if (!s) grants.set(domain, (s = new Set()));
    s.add(p);
  };
  const rows = deps.db.prepare('SELECT Domain, Permission FROM grants WHERE UserID = ?').all(userId) as Array<{
    Domain: string;
    Permission: string;
  }>;
  for (const g of rows) {
    if (!isPermission(g.Permission)) continue;
    if (g.Domain === ALL_DOMAINS) for (const d of deps.dict.all()) add(d.name, g.Permission);
    else add(g.Domain, g.Permission);
  }
  return { userId: row.UserID, name: row.Name, grants };
}

// ---- tokens ----------------------------------------------------------------------------------

export interface IssuedToken {
  token: string;
  expires: Date;
}

export function issueToken(deps: Deps, userId: number, opts: { clientName?: string; expires?: Date } = {}): IssuedToken {
  const token = randomBytes(24).toString('base64url');
  const expires = opts.expires ?? new Date(deps.clock().getTime() + TOKEN_LIFETIME_MS);
  deps.db
    .prepare('INSERT INTO tokens (Token, UserID, ClientName, Expires) VALUES (?, ?, ?, ?)')
    .run(token, userId, opts.clientName ?? null, expires.toISOString());
  return { token, expires };
}

/** The user of a valid token, or undefined (missing, unknown or expired). */
export function userForToken(deps: Deps, token: string | undefined | null): User | undefined {
  if (!token) return undefined;
  const row = deps.db.prepare('SELECT UserID, Expires FROM tokens WHERE Token = ?').get(token) as
    | { UserID: number; Expires: string }
    | undefined;
  if (!row) return undefined;
  if (Date.parse(row.Expires) <= deps.clock().getTime()) return undefined;
  return loadUser(deps, row.UserID);
}

/** Authentication: sets c.var.user from the `Token` header; 401 Unauthenticated otherwise. */
// REQ: AUTH-001
// REQ: AUTH-002
// REQ: AUTH-011
export function authMiddleware(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = c.req.header(TOKEN_HEADER);
    if (!token) throw new ApiError(401, 'Unauthenticated', `A valid token is required in the '${TOKEN_HEADER}' header.`);
    const user = userForToken(deps, token);
    if (!user) throw new ApiError(401, 'Unauthenticated', 'The token is unknown or has expired.');
    c.set('user', user);
    await next();
  };
}

/** Check an account/user/password triple; the user ID when it is right. */
export function checkCredentials(deps: Deps, account: string, name: string, password: string): number | undefined {
  const row = deps.db.prepare('SELECT UserID, PasswordHash FROM users WHERE Account = ? AND Name = ?').get(account, name) as
    | { UserID: number; PasswordHash: string | null }
    | undefined;
  if (!row || !verifyPassword(password, row.PasswordHash)) return undefined;
  return row.UserID;
}
