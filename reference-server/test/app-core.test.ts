// Core of the reference server: errors, limits, health, provider-state endpoint.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { PROVIDER_STATES } from '../src/provider-states/index.js';
import { expectProblem, harness, type Harness } from './app-core.harness.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../spec/paths.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('health and versioning', () => {
  it('VER-001 GET /health answers ok with the spec version, without a token', async () => {
    const r = await h.get('/health', null);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok', specVersion: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});

describe('errors', () => {
  it('GEN-003 an unknown route is a 404 problem', async () => {
    expectProblem(await h.get('/api/Claim/1/Nope/deeper'), 404, 'NotFound');
  });

  it('GEN-003 problem bodies carry type, title, status, detail and code', async () => {
    const r = await h.get('/api/NoSuchDomain/1');
    expectProblem(r, 404, 'UnknownDomain');
    expect(r.json.title).toBe('Not Found');
    expect(Object.keys(r.json).sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
  });

  it('GEN-001 an undocumented exception is a 500 problem with a generic detail and no stack', async () => {
    const logged: unknown[] = [];
    const created = createApp({ bindWorker: false, log: (e) => logged.push(e) });
    created.app.get('/__boom', () => {
      throw new Error('secret internal detail');
    });
    const r = await created.app.request('/__boom');
    const text = await r.text();
    created.close();
    expect(r.status).toBe(500);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(text).not.toContain('secret internal detail');
    expect(JSON.parse(text)).toMatchObject({ status: 500, detail: expect.any(String) });
    expect(JSON.stringify(logged)).toContain('secret internal detail');
  });

  it('GEN-004 malformed JSON is refused with 400 MalformedRequest and changes nothing', async () => {
    const before = h.count('links');
    const r = await h.call('POST', '/api/Link/Upsert', { raw: '{"ParentDomain": "Claim",' });
    expectProblem(r, 400, 'MalformedRequest');
    expect(h.count('links')).toBe(before);
  });
});

describe('limits', () => {
  it('LIM-001 a URL over 10,000 characters is refused with 414', async () => {
    expectProblem(await h.get('/api/Claim/Query?columns=' + 'A'.repeat(10_001)), 414, 'UriTooLong');
  });

  it('LIM-001 a URL of exactly 10,000 characters is not refused for its length', async () => {
    const base = '/api/Claim/Query?filter=';
    const r = await h.get(base + 'x'.repeat(10_000 - base.length));
    expect(r.status).not.toBe(414);
  });

  it('LIM-001 a body over 10 MB is refused with 413 and nothing changes', async () => {
    const before = h.count('links');
    const big = JSON.stringify({
      ParentDomain: 'Claim',
      ParentRecordID: 1,
      ChildDomain: 'Contact',
      ChildRecordID: 1,
      Pad: 'x'.repeat(10 * 1024 * 1024),
    });
    expectProblem(await h.call('POST', '/api/Link/Upsert', { raw: big }), 413, 'PayloadTooLarge');
    expect(h.count('links')).toBe(before);
  });
});

describe('provider states endpoint', () => {
  it('is 404 when the server runs without --provider-states', async () => {
    const created = createApp({ bindWorker: false, providerStates: false });
    const r = await created.app.request('/_provider-states', {
      method: 'POST',
      body: JSON.stringify({ state: 'a user', params: { setupId: 'x' } }),
    });
    created.close();
    expect(r.status).toBe(404);
  });

  it('registers exactly the states of spec/provider-states.yaml (x-states)', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'spec/generated/provider-states.json'), 'utf8'));
    const catalogue = (doc.paths['/_provider-states'].post['x-states'] as Array<{ name: string }>).map((x) => x.name);
    expect([...PROVIDER_STATES.keys()].sort()).toEqual([...catalogue].sort());
  });

  it('an unknown state answers 400 problem', async () => {
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'a unicorn', params: { setupId: 'x' }, action: 'setup' },
      token: null,
    });
    expectProblem(r, 400, 'MalformedRequest');
  });

  it('params that break the state schema answer 400 and create nothing', async () => {
    const before = h.count('Claim');
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'records', params: { setupId: 'x', count: 151 }, action: 'setup' },
      token: null,
    });
    expectProblem(r, 400, 'MalformedRequest');
    expect(h.count('Claim')).toBe(before);
  });

  it('records with operatorFilters (protocol 1.3.0): each class filter selects exactly the IDs it states, and a part of the set', async () => {
    const s = await h.state('records', { count: 8, operatorFilters: true });
    const classes = s.operatorFilters as Record<string, { filter: string; ids: number[] }>;
    expect(Object.keys(classes).sort()).toEqual(
      ['boolean', 'combined', 'nullCheck', 'numericBoundary', 'textContains', 'timestampWithinDay'].sort(),
    );
    for (const [cls, { filter, ids }] of Object.entries(classes)) {
      const r = await h.get(`/api/Claim/Query?columns=ClaimID&take=100&filter=${encodeURIComponent(filter)}`);
      expect(r.status, cls).toBe(200);
      expect((r.json.List as Array<{ ClaimID: number }>).map((x) => x.ClaimID).sort(), cls).toEqual([...ids].sort());
      expect(ids.length, cls).toBeGreaterThanOrEqual(2);
      expect(ids.length, cls).toBeLessThan(s.ids.length);
    }
    // fewer records than the pattern, or asked with numbers: nothing stated, or refused
    expect((await h.state('records', { count: 3, operatorFilters: true })).operatorFilters).toBeUndefined();
    const both = await h.call('POST', '/_provider-states', {
      body: {
        state: 'records',
        action: 'setup',
        params: { setupId: 'opf-n', count: 8, operatorFilters: true, numbers: [1, 2, 3, 4, 5, 6, 7, 8] },
      },
      token: null,
    });
    expect(both.status).toBe(400);
  });

  it('teardown removes exactly what its setup created', async () => {
    const a = await h.state('records', { count: 3 });
    const b = await h.state('records', { count: 2 });
    expect(h.count('Claim')).toBe(5);
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'records', params: a.__params, action: 'teardown' },
      token: null,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
    const left = (
      h.deps.db.prepare('SELECT ClaimID FROM Claim ORDER BY ClaimID').all() as Array<{ ClaimID: number }>
    ).map((x) => x.ClaimID);
    expect(left).toEqual(b.ids);
    expect(h.count('state_objects')).toBeGreaterThan(0);
  });

  it('teardown of a file state removes file, bytes, parent and link', async () => {
    const f = await h.state('a file', { kind: 'internal', linked: true, fileName: 'a.txt', contentsBase64: 'YQ==' });
    expect(h.count('links')).toBe(1);
    await h.state('a file', f.__params, 'teardown');
    expect(h.count('File')).toBe(0);
    expect(h.count('file_contents')).toBe(0);
    expect(h.count('links')).toBe(0);
    expect(h.count('Claim')).toBe(0);
  });

  it('teardown also removes links a test made to a state record', async () => {
    const c = await h.state('a contact');
    const p = await h.state('a link parent');
    await h.call('POST', '/api/Link/Upsert', {
      body: { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId },
    });
    expect(h.count('links')).toBe(1);
    await h.state('a contact', c.__params, 'teardown');
    expect(h.count('links')).toBe(0);
    expect(h.count('Claim')).toBe(1);
  });

  it("'a user' teardown removes the user, its grants and tokens", async () => {
    const u = await h.state('a user', { grants: { Claim: ['View'] } });
    expect((await h.get('/api/Domains', u.token)).status).toBe(200);
    await h.state('a user', u.__params, 'teardown');
    expect(h.count('users', 'UserID = ?', u.userId)).toBe(0);
    expect(h.count('grants', 'UserID = ?', u.userId)).toBe(0);
    expect((await h.get('/api/Domains', u.token)).status).toBe(401);
  });

  it("'a setting' sets the setting and teardown restores the previous value", async () => {
    expect(h.deps.settings.enhancedSessionIDSecurity).toBe(true);
    const s = await h.state('a setting', { name: 'Service.EnableEnhancedSessionIDSecurity', value: false });
    expect(s).toMatchObject({});
    expect(h.deps.settings.enhancedSessionIDSecurity).toBe(false);
    await h.state('a setting', s.__params, 'teardown');
    expect(h.deps.settings.enhancedSessionIDSecurity).toBe(true);
    const row = h.deps.db
      .prepare(`SELECT Value FROM settings WHERE Name = 'Service.EnableEnhancedSessionIDSecurity'`)
      .get() as { Value: string };
    expect(JSON.parse(row.Value)).toBe(true);
  });

  it('teardown of a setup that never happened answers 200 {}', async () => {
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'a contact', params: { setupId: 'never' }, action: 'teardown' },
      token: null,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
  });

  it("'contact relationships' returns at least two Contact Type codes", async () => {
    const r = await h.state('contact relationships');
    expect(r.relationships.length).toBeGreaterThanOrEqual(2);
  });
});
