// The token → user cache (auth.ts, AuthCache): whatever it holds, a request is answered as if the
// token, the user and the grants were read from the tables for that request. Behaviour only: every
// change below is seen by the very next request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createUser, issueToken, userForToken } from '../src/auth.js';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness | undefined;
let dir: string | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A token of a new user with these grants, already served once (so it is in the cache). */
async function cachedToken(hh: Harness, grants: Record<string, Array<'View' | 'Edit'>> = { Claim: ['View'] }) {
  const userId = createUser(hh.deps.db, { name: `cache-${Math.random().toString(36).slice(2)}`, grants });
  const { token } = issueToken(hh.deps, userId);
  expect((await hh.get('/api/Claim/Query', token)).status).toBe(200);
  expect((await hh.get('/api/Claim/Query', token)).status).toBe(200);
  return { userId, token };
}

describe('token cache: changes are seen at once', () => {
  it('a deleted (revoked) token is refused on the next request', async () => {
    h = harness();
    const { token } = await cachedToken(h);
    h.deps.db.prepare('DELETE FROM tokens WHERE Token = ?').run(token);
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });

  it('a token stops working at the exact millisecond it expires, cached or not', async () => {
    let now = Date.parse('2026-01-01T10:00:00Z');
    h = harness({ clock: () => new Date(now) });
    const userId = createUser(h.deps.db, { name: 'clocked' });
    const { token, expires } = issueToken(h.deps, userId);
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
    now = expires.getTime() - 1;
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
    now = expires.getTime();
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
    // and stays refused
    now = expires.getTime() + 1;
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });

  it('a token whose expiry is moved earlier in the table is refused at once; moved later, accepted again', async () => {
    h = harness();
    const { token } = await cachedToken(h);
    const setExpires = (d: Date) =>
      h!.deps.db.prepare('UPDATE tokens SET Expires = ? WHERE Token = ?').run(d.toISOString(), token);
    setExpires(new Date(Date.now() - 1000));
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
    setExpires(new Date(Date.now() + 60_000));
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
  });

  it('a revoked grant is refused on the next request; a new grant is honoured on the next request', async () => {
    h = harness();
    const { userId, token } = await cachedToken(h, { Claim: ['View'] });
    expectProblem(await h.get('/api/Contact/Query', token), 403, 'Forbidden');
    h.deps.db.prepare(`INSERT INTO grants (UserID, Domain, Permission) VALUES (?, 'Contact', 'View')`).run(userId);
    expect((await h.get('/api/Contact/Query', token)).status).toBe(200);
    h.deps.db.prepare(`DELETE FROM grants WHERE UserID = ? AND Domain = 'Claim'`).run(userId);
    expectProblem(await h.get('/api/Claim/Query', token), 403, 'Forbidden');
  });

  it('a grant changed in place (UPDATE) is seen at once, the wildcard domain included', async () => {
    h = harness();
    const { userId, token } = await cachedToken(h, { Claim: ['View'] });
    h.deps.db.prepare(`UPDATE grants SET Domain = '*' WHERE UserID = ?`).run(userId);
    expect((await h.get('/api/Contact/Query', token)).status).toBe(200);
    h.deps.db.prepare(`UPDATE grants SET Permission = 'Edit' WHERE UserID = ?`).run(userId);
    expectProblem(await h.get('/api/Contact/Query', token), 403, 'Forbidden');
  });

  it('a deleted user loses every token at once (ON DELETE CASCADE)', async () => {
    h = harness();
    const { userId, token } = await cachedToken(h);
    h.deps.db.prepare('DELETE FROM users WHERE UserID = ?').run(userId);
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });

  it('a token moved to another user carries that user’s grants at once', async () => {
    h = harness();
    const { token } = await cachedToken(h, { Claim: ['View'] });
    const other = createUser(h.deps.db, { name: 'other', grants: { Contact: ['View'] } });
    h.deps.db.prepare('UPDATE tokens SET UserID = ? WHERE Token = ?').run(other, token);
    expectProblem(await h.get('/api/Claim/Query', token), 403, 'Forbidden');
    expect((await h.get('/api/Contact/Query', token)).status).toBe(200);
  });

  it("the teardown of 'a user' makes its token unknown at once", async () => {
    h = harness();
    const u = await h.state('a user', { grants: { Claim: ['View'] } });
    expect((await h.get('/api/Claim/Query', u.token)).status).toBe(200);
    await h.state('a user', u.__params, 'teardown');
    expectProblem(await h.get('/api/Claim/Query', u.token), 401, 'Unauthenticated');
  });

  it('an unknown token that is then issued works at once (refusals are not remembered)', async () => {
    h = harness();
    const userId = createUser(h.deps.db, { name: 'late' });
    const token = 'late-token-0123456789';
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
    h.deps.db
      .prepare('INSERT INTO tokens (Token, UserID, Expires) VALUES (?, ?, ?)')
      .run(token, userId, new Date(Date.now() + 60_000).toISOString());
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
  });

  it('a token issued by Authenticate works at once, and the other tokens keep working', async () => {
    h = harness();
    const { token } = await cachedToken(h);
    createUser(h.deps.db, { account: 'acme', name: 'alice', password: 'pw' });
    const r = await h.call('POST', '/Authentication/Authenticate', {
      body: { Account: 'acme', User: 'alice', Password: 'pw', ClientName: 'tests' },
      token: null,
    });
    expect(r.status).toBe(200);
    expect((await h.get('/api/Claim/Query', r.json.Token)).status).toBe(200);
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
  });

  it('a write that rolls back leaves the token as it was', async () => {
    h = harness();
    const { token } = await cachedToken(h);
    const db = h.deps.db;
    expect(() =>
      db.transaction(() => {
        db.prepare('DELETE FROM tokens WHERE Token = ?').run(token);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect((await h.get('/api/Claim/Query', token)).status).toBe(200);
  });

  it('a token looked up inside a transaction that then rolls back is not accepted afterwards', async () => {
    h = harness();
    const db = h.deps.db;
    const userId = createUser(db, { name: 'rolled-back' });
    let token = '';
    expect(() =>
      db.transaction(() => {
        token = issueToken(h!.deps, userId).token;
        expect(userForToken(h!.deps, token)?.userId).toBe(userId);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(userForToken(h.deps, token)).toBeUndefined();
    expectProblem(await h.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });
});

describe('token cache: changes made through another connection to the same file', () => {
  function fileHarness() {
    dir = mkdtempSync(join(tmpdir(), 'auth-cache-'));
    const file = join(dir, 'db.sqlite');
    h = harness({ dbPath: file });
    return file;
  }

  it('a token deleted by another connection is refused on the next request', async () => {
    const file = fileHarness();
    const { token } = await cachedToken(h!);
    const other = new Database(file);
    try {
      other.prepare('DELETE FROM tokens WHERE Token = ?').run(token);
    } finally {
      other.close();
    }
    expectProblem(await h!.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });

  it('a grant revoked by another connection is refused on the next request', async () => {
    const file = fileHarness();
    const { userId, token } = await cachedToken(h!);
    const other = new Database(file);
    try {
      other.prepare('DELETE FROM grants WHERE UserID = ?').run(userId);
    } finally {
      other.close();
    }
    expectProblem(await h!.get('/api/Claim/Query', token), 403, 'Forbidden');
  });

  it('an expiry moved earlier by another connection is refused on the next request', async () => {
    const file = fileHarness();
    const { token } = await cachedToken(h!);
    const other = new Database(file);
    try {
      other
        .prepare('UPDATE tokens SET Expires = ? WHERE Token = ?')
        .run(new Date(Date.now() - 1000).toISOString(), token);
    } finally {
      other.close();
    }
    expectProblem(await h!.get('/api/Claim/Query', token), 401, 'Unauthenticated');
  });

  it('nothing is added to the database file (the triggers are TEMP, on this connection only)', async () => {
    const file = fileHarness();
    await cachedToken(h!);
    const other = new Database(file, { readonly: true });
    try {
      const triggers = other.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).all();
      expect(triggers).toEqual([]);
    } finally {
      other.close();
    }
  });
});
