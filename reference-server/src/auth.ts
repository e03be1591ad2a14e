// Tokens, users, permissions and the authentication middleware (architecture sections 2 and 3).
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type Database from 'better-sqlite3';
import { nowMs, type AppEnv, type Deps } from './deps.js';
import { ApiError } from './errors.js';
import { ADMIN_PERMISSIONS, PERMISSIONS, type Permission, type User } from './permissions.js';

/** The header that carries the token (implementation-defined). */
// REQ: AUTH-010
export const TOKEN_HEADER = 'Token';
/** Token lifetime: 30 minutes. */
const TOKEN_LIFETIME_MS = 30 * 60 * 1000;
/** The wildcard domain in the grants table: the permission holds on every domain. */
const ALL_DOMAINS = '*';

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

/** scrypt's cost (N) for passwords people choose: node's default, slow on purpose against guessing. */
const CHOSEN_PASSWORD_COST = 16384;
/**
 * The cost for a password drawn at random (96 bits, the provider state 'a user'): stretching adds
 * nothing to a secret nobody can guess, and at the chosen cost hashing took half of the server's CPU
 * in a conformance run (one user per test that needs one).
 */
export const RANDOM_PASSWORD_COST = 1024;

/** `scrypt$<salt>$<hash>` at the default cost, `scrypt$N=<cost>$<salt>$<hash>` at another. */
function hashPassword(password: string, cost = CHOSEN_PASSWORD_COST): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: cost });
  const params = cost === CHOSEN_PASSWORD_COST ? '' : `N=${cost}$`;
  return `scrypt$${params}${salt.toString('base64')}$${hash.toString('base64')}`;
}

function verifyPassword(password: string, stored: string | null | undefined): boolean {
  if (!stored) return false;
  const parts = stored.split('$');
  const [scheme] = parts;
  const costPart = parts.length === 4 ? /^N=(\d+)$/.exec(parts[1]!) : undefined;
  if (scheme !== 'scrypt' || (parts.length !== 3 && !costPart)) return false;
  const [saltB64, hashB64] = parts.slice(-2);
  if (!saltB64 || !hashB64) return false;
  const cost = costPart ? Number(costPart[1]) : CHOSEN_PASSWORD_COST;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = scryptSync(password, Buffer.from(saltB64, 'base64'), expected.length, { N: cost });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// ---- users and grants ------------------------------------------------------------------------

export interface NewUser {
  account?: string;
  name: string;
  password?: string;
  /** scrypt cost of the password's hash (default: the cost for passwords people choose) */
  passwordCost?: number;
  /** domain (or '*') → permissions; omitted: admin (every permission on every domain except RestrictDownload) */
  grants?: Record<string, readonly Permission[]>;
}

export function createUser(db: Database.Database, u: NewUser): number {
  return db.transaction(() => {
    const id = Number(
      db
        .prepare('INSERT INTO users (Account, Name, PasswordHash) VALUES (?, ?, ?)')
        .run(
          u.account ?? 'reference',
          u.name,
          u.password === undefined ? null : hashPassword(u.password, u.passwordCost),
        ).lastInsertRowid,
    );
    const grants = u.grants ?? { [ALL_DOMAINS]: ADMIN_PERMISSIONS };
    const ins = db.prepare('INSERT OR IGNORE INTO grants (UserID, Domain, Permission) VALUES (?, ?, ?)');
    for (const [domain, perms] of Object.entries(grants)) for (const p of perms) ins.run(id, domain, p);
    return id;
  })();
}

function loadUser(deps: Deps, userId: number): User | undefined {
  const row = deps.db.prepare('SELECT UserID, Name FROM users WHERE UserID = ?').get(userId) as
    { UserID: number; Name: string } | undefined;
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

export function issueToken(
  deps: Deps,
  userId: number,
  opts: { clientName?: string; expires?: Date } = {},
): IssuedToken {
  const token = randomBytes(24).toString('base64url');
  const expires = opts.expires ?? new Date(deps.clock().getTime() + TOKEN_LIFETIME_MS);
  deps.db
    .prepare('INSERT INTO tokens (Token, UserID, ClientName, Expires) VALUES (?, ?, ?, ?)')
    .run(token, userId, opts.clientName ?? null, expires.toISOString());
  return { token, expires };
}

/** The user of a valid token, or undefined (missing, unknown or expired). Served from the
 * connection's token cache (`AuthCache`) when it may be; the answer is the same either way. */
export function userForToken(deps: Deps, token: string | undefined | null): User | undefined {
  if (!token) return undefined;
  const cache = authCache(deps.db);
  return cache ? cache.userFor(deps, token) : lookupToken(deps, token)?.user;
}

/** The lookup itself, from the tables: the token row, its expiry against the clock, then the
 * user and the grants. `expiresMs` is returned with the user for the cache. */
function lookupToken(deps: Deps, token: string): { user: User; expiresMs: number } | undefined {
  const row = deps.db.prepare('SELECT UserID, Expires FROM tokens WHERE Token = ?').get(token) as
    { UserID: number; Expires: string } | undefined;
  if (!row) return undefined;
  const expiresMs = Date.parse(row.Expires);
  if (expiresMs <= nowMs(deps)) return undefined;
  const user = loadUser(deps, row.UserID);
  return user ? { user, expiresMs } : undefined;
}

// ---- the token cache -------------------------------------------------------------------------

/** Most tokens the cache holds (least recently added out first). */
const AUTH_CACHE_SIZE = 10_000;

/**
 * Token → user cache of one database connection. Looking a token up costs three queries and a
 * grant map over every domain, per request: about a quarter of the server CPU of a record read
 * (docs/benchmarks.md). An entry is only ever a copy of what `lookupToken` would read now:
 *
 * - expiry: every hit compares the token's Expires with `deps.clock()` exactly as the lookup does,
 *   so a token stops working at the same millisecond with or without the cache;
 * - writes through this connection: TEMP triggers on `users`, `grants` and `tokens` (INSERT,
 *   UPDATE, DELETE; ON DELETE CASCADE and REPLACE fire them too) call a function that bumps the
 *   generation, and a new generation drops every entry. Triggers catch every writer (Authenticate,
 *   createUser, issueToken, provider-state setup and teardown, tests writing SQL) without any of
 *   them having to remember the cache;
 * - writes through other connections (another process on the same file, the sqlite3 shell):
 *   `PRAGMA data_version` changes when another connection commits, and a new value drops every
 *   entry too;
 * - open transactions: inside one the cache is neither read nor filled (what it would read may
 *   still roll back);
 * - unknown, expired and deleted tokens are never cached: they are looked up every time.
 *
 * TEMP triggers and the function live in this connection only: nothing is added to the database
 * file, and other connections (which do not have the function) are not affected.
 */
export class AuthCache {
  private readonly entries = new Map<string, { user: User; expiresMs: number }>();
  /** bumped by the TEMP triggers on every write to users, grants or tokens through this connection */
  private generation = 0;
  /** generation and data_version the entries were read at */
  private seenGeneration = 0;
  private seenDataVersion = -1;
  private readonly dataVersion: Database.Statement | undefined;

  constructor(private readonly db: Database.Database) {
    const fn = 'rflps_auth_changed';
    // why: any change to who a token belongs to, what the user may do, or whether the token exists
    // or has expired invalidates the whole cache; entries are rebuilt from the tables on demand.
    db.function(fn, { deterministic: false, varargs: false }, () => {
      this.generation++;
      return null;
    });
    const triggers: string[] = [];
    for (const table of ['users', 'grants', 'tokens']) {
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        triggers.push(
          `CREATE TEMP TRIGGER IF NOT EXISTS rflps_auth_${table}_${event.toLowerCase()} AFTER ${event} ON main.${table} BEGIN SELECT ${fn}(); END`,
        );
      }
    }
    db.exec(triggers.join(';\n'));
    // A private in-memory database has no other connection, nor has a file held in exclusive
    // locking mode (db.ts, --exclusive-db: nobody else can commit); any other file may have one,
    // whose commits show in data_version.
    const exclusive = String(db.pragma('locking_mode', { simple: true })).toLowerCase() === 'exclusive';
    // why its own SQL text: db.prepare hands out one shared statement per text (db.ts,
    // cacheStatements), and pluck() changes how a statement answers; this text is the cache's alone.
    // pluck: the number itself, without a row object per request.
    this.dataVersion =
      db.memory || exclusive ? undefined : db.prepare('PRAGMA data_version -- auth cache stamp').pluck();
  }

  userFor(deps: Deps, token: string): User | undefined {
    // why: inside a transaction the tables may hold writes that still roll back; bypass the cache.
    if (this.db.inTransaction) return lookupToken(deps, token)?.user;
    // The stamps are read before the tables: a change committed while the lookup below runs
    // leaves the stamp behind, so the next request drops what this one cached.
    const dv = this.dataVersion ? (this.dataVersion.get() as number) : 0;
    if (this.generation !== this.seenGeneration || dv !== this.seenDataVersion) {
      // why: users, grants or tokens changed (through this connection, or anything changed through
      // another one) since the entries were read: drop them all.
      this.entries.clear();
      this.seenGeneration = this.generation;
      this.seenDataVersion = dv;
    }
    const hit = this.entries.get(token);
    if (hit) {
      // the same test as lookupToken's, against the clock of this request
      if (!(hit.expiresMs <= nowMs(deps))) return hit.user;
      // why: expired now; dropped, and never cached again while its row says it has expired.
      this.entries.delete(token);
      return undefined;
    }
    const found = lookupToken(deps, token);
    // (unknown and expired tokens are not cached: they are looked up every time)
    if (found) {
      if (this.entries.size >= AUTH_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(token, found);
    }
    return found?.user;
  }
}

const caches = new WeakMap<Database.Database, AuthCache>();

/** Installs the token cache of a connection (its TEMP triggers and function); `createApp` does
 * this when it opens the database. Outside a transaction only: a rollback would drop the triggers. */
export function installAuthCache(db: Database.Database): AuthCache {
  let cache = caches.get(db);
  if (!cache) {
    if (db.inTransaction) throw new Error('installAuthCache: not inside a transaction');
    caches.set(db, (cache = new AuthCache(db)));
  }
  return cache;
}

/** The token cache of a connection: installed on first use when no transaction is open (a
 * connection not opened by createApp); undefined otherwise (the tables are read directly). */
function authCache(db: Database.Database): AuthCache | undefined {
  return caches.get(db) ?? (db.inTransaction ? undefined : installAuthCache(db));
}

/** Authentication: sets c.var.user from the `Token` header; ApiError 401 Unauthenticated otherwise. */
// REQ: AUTH-001
// REQ: AUTH-002
// REQ: AUTH-011
export function authenticate(c: Context<AppEnv>, deps: Deps): void {
  const token = c.req.header(TOKEN_HEADER);
  if (!token) throw new ApiError(401, 'Unauthenticated', `A valid token is required in the '${TOKEN_HEADER}' header.`);
  const user = userForToken(deps, token);
  if (!user) throw new ApiError(401, 'Unauthenticated', 'The token is unknown or has expired.');
  c.set('user', user);
  // read again by the record and query reads (requestContext): the header is looked up once
  c.set('token', token);
}

/** Check an account/user/password triple; the user ID when it is right. */
export function checkCredentials(deps: Deps, account: string, name: string, password: string): number | undefined {
  const row = deps.db
    .prepare('SELECT UserID, PasswordHash FROM users WHERE Account = ? AND Name = ?')
    .get(account, name) as { UserID: number; PasswordHash: string | null } | undefined;
  if (!row || !verifyPassword(password, row.PasswordHash)) return undefined;
  return row.UserID;
}
