// Authentication and permissions (architecture sections 2, 3; spec 5).
import { afterEach, describe, expect, it } from 'vitest';
import { createUser, RANDOM_PASSWORD_COST } from '../src/auth.js';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
afterEach(() => h?.close());

const creds = { Account: 'acme', User: 'alice', Password: 'correct horse', ClientName: 'tests' };

describe('token issuance', () => {
  it('AUTH-010 POST /Authentication/Authenticate issues a token that works in the Token header', async () => {
    h = harness();
    createUser(h.deps.db, { account: 'acme', name: 'alice', password: 'correct horse' });
    const r = await h.call('POST', '/Authentication/Authenticate', { body: creds, token: null });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ Token: expect.any(String), Expires: expect.stringMatching(/Z$/) });
    expect((await h.get('/api/Domains', r.json.Token)).status).toBe(200);
  });

  it('AUTH-010 the password is stored hashed (scrypt), never in clear', async () => {
    h = harness();
    createUser(h.deps.db, { account: 'acme', name: 'alice', password: 'correct horse' });
    const row = h.deps.db.prepare(`SELECT PasswordHash FROM users WHERE Name = 'alice'`).get() as {
      PasswordHash: string;
    };
    expect(row.PasswordHash).toMatch(/^scrypt\$/);
    expect(row.PasswordHash).not.toContain('correct horse');
  });

  it('AUTH-010 a password drawn at random is hashed at a lower scrypt cost, named in the hash, and still verified', async () => {
    h = harness();
    createUser(h.deps.db, {
      account: 'acme',
      name: 'alice',
      password: 'correct horse',
      passwordCost: RANDOM_PASSWORD_COST,
    });
    const stored = (
      h.deps.db.prepare(`SELECT PasswordHash FROM users WHERE Name = 'alice'`).get() as { PasswordHash: string }
    ).PasswordHash;
    expect(stored).toMatch(new RegExp(`^scrypt\\$N=${RANDOM_PASSWORD_COST}\\$`));
    expect((await h.call('POST', '/Authentication/Authenticate', { body: creds, token: null })).status).toBe(200);
    const wrong = { ...creds, Password: 'correct horsf' };
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { body: wrong, token: null }),
      401,
      'Unauthenticated',
    );
    // the cost is part of what is verified: the same hash read at another cost does not match
    h.deps.db.prepare(`UPDATE users SET PasswordHash = ? WHERE Name = 'alice'`).run(stored.replace(/N=\d+/, 'N=2048'));
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { body: creds, token: null }),
      401,
      'Unauthenticated',
    );
  });

  it('AUTH-011 wrong credentials are refused with 401 Unauthenticated', async () => {
    h = harness();
    createUser(h.deps.db, { account: 'acme', name: 'alice', password: 'correct horse' });
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { body: { ...creds, Password: 'nope' }, token: null }),
      401,
      'Unauthenticated',
    );
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { body: { ...creds, User: 'bob' }, token: null }),
      401,
      'Unauthenticated',
    );
  });

  it('GEN-004 an Authenticate body of the wrong shape is refused with 400', async () => {
    h = harness();
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { body: { Account: 1 }, token: null }),
      400,
      'MalformedRequest',
    );
    expectProblem(
      await h.call('POST', '/Authentication/Authenticate', { raw: 'not json', token: null }),
      400,
      'MalformedRequest',
    );
  });

  it('AUTH-010 tokens expire after 30 minutes', async () => {
    let now = Date.parse('2026-01-01T10:00:00Z');
    h = harness({ clock: () => new Date(now) });
    createUser(h.deps.db, { account: 'acme', name: 'alice', password: 'correct horse' });
    const { Token, Expires } = (await h.call('POST', '/Authentication/Authenticate', { body: creds, token: null }))
      .json;
    expect(Date.parse(Expires) - now).toBe(30 * 60 * 1000);
    now += 29 * 60 * 1000;
    expect((await h.get('/api/Domains', Token)).status).toBe(200);
    now += 60 * 1000;
    expectProblem(await h.get('/api/Domains', Token), 401, 'Unauthenticated');
  });
});

describe('authentication of /api', () => {
  it('AUTH-001 a request with a valid token is served', async () => {
    h = harness();
    const u = await h.state('a user');
    expect((await h.get('/api/Claim/Query', u.token)).status).toBe(200);
  });

  it('AUTH-002 AUTH-011 no token, an unknown token and an expired token get 401 and no data', async () => {
    h = harness();
    await h.state('records', { count: 2 });
    const expired = await h.state('an expired token');
    for (const token of [null, 'not-a-token', expired.token]) {
      const r = await h.get('/api/Claim/Query', token);
      expectProblem(r, 401, 'Unauthenticated');
      expect(r.json.List).toBeUndefined();
    }
  });

  it('AUTH-002 an unauthenticated write changes nothing', async () => {
    h = harness();
    const c = await h.state('a contact');
    const p = await h.state('a link parent');
    const r = await h.call('POST', '/api/Link/Upsert', {
      token: null,
      body: { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId },
    });
    expectProblem(r, 401, 'Unauthenticated');
    expect(h.count('links')).toBe(0);
  });

  it("AUTH-011 'an expired token' is a token the service issued that has expired", async () => {
    h = harness();
    const e = await h.state('an expired token');
    expect(h.count('tokens', 'Token = ?', e.token)).toBe(1);
    expectProblem(await h.get('/api/Domains', e.token), 401, 'Unauthenticated');
  });
});

describe('permissions', () => {
  it('AUTH-012 reading a record needs View on its domain (403 Forbidden otherwise)', async () => {
    h = harness();
    const rec = await h.state('a record with associations');
    const noView = h.userToken({ Contact: ['View'] });
    expectProblem(await h.get(`/api/Claim/${rec.id}`, noView), 403, 'Forbidden');
    expectProblem(await h.get('/api/Claim/Query', noView), 403, 'Forbidden');
    const view = h.userToken({ Claim: ['View'] });
    expect((await h.get(`/api/Claim/${rec.id}`, view)).status).toBe(200);
  });

  it("AUTH-012 'a user' with grants holds exactly those permissions", async () => {
    h = harness();
    const u = await h.state('a user', { grants: { Claim: ['View'] } });
    expect((await h.get('/api/Claim/Query', u.token)).status).toBe(200);
    expectProblem(await h.get('/api/Contact/Query', u.token), 403, 'Forbidden');
  });

  it("'a user' without grants is an admin without RestrictDownload", async () => {
    h = harness();
    const u = await h.state('a user');
    const list = (await h.get('/api/Domains', u.token)).json.List;
    expect(list.length).toBe(h.deps.dict.all().length);
    const grants = h.deps.db.prepare('SELECT Permission FROM grants WHERE UserID = ?').all(u.userId) as Array<{
      Permission: string;
    }>;
    expect(grants.map((g) => g.Permission)).not.toContain('RestrictDownload');
  });
});
