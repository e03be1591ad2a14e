import { describe, expect, it } from 'vitest';
import http from 'node:http';
import {
  FixtureStateProvider,
  HttpStateProvider,
  StateSession,
  findFixture,
  parseFixtures,
} from '../src/suite-api/states.js';
import { NotApplicableError, PreconditionFailedError } from '../src/model/errors.js';
import { parse } from 'yaml';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const entries = parseFixtures([
  { state: 'a user', values: { token: 'admin' } },
  { state: 'a user', params: { grants: { Claim: ['View'] } }, values: { token: 'viewer' } },
  { state: 'records', params: { count: 3, domain: 'Claim' }, values: { ids: [1, 2, 3] } },
]);

describe('fixture matching', () => {
  it('matches by state and deep-equal params, ignoring setupId', () => {
    expect(findFixture(entries, 'a user', { setupId: 'x-1' })?.values).toEqual({ token: 'admin' });
    expect(findFixture(entries, 'a user', { grants: { Claim: ['View'] }, setupId: 'y' })?.values).toEqual({
      token: 'viewer',
    });
    expect(findFixture(entries, 'records', { domain: 'Claim', count: 3, setupId: 'z' })?.values).toEqual({
      ids: [1, 2, 3],
    });
    expect(findFixture(entries, 'records', { count: 4 })).toBeUndefined();
    expect(findFixture(entries, 'a user', { grants: { Claim: ['Edit'] } })).toBeUndefined();
    expect(findFixture(entries, 'no such state')).toBeUndefined();
  });

  it('an unmatched state is a precondition failure', async () => {
    const p = new FixtureStateProvider(entries);
    await expect(p.setup('records', { count: 9, setupId: 's' })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(await p.setup('a user', { setupId: 's' })).toEqual({ token: 'admin' });
  });

  it('rejects malformed fixture files', () => {
    expect(() => parseFixtures({ nope: 1 })).toThrow(/list/);
    expect(() => parseFixtures([{ state: 'x' }])).toThrow(/values/);
    expect(() => parseFixtures([{ state: 'x', params: [1], values: {} }])).toThrow(/params/);
  });

  it('the example fixtures file parses', () => {
    const file = fileURLToPath(new URL('../fixtures.example.yaml', import.meta.url));
    const list = parseFixtures(parse(fs.readFileSync(file, 'utf8')));
    expect(list.some((e) => e.state === 'a user' && e.params === undefined)).toBe(true);
  });
});

describe('HTTP provider states (Pact v3)', () => {
  it('sets up with a setupId and tears down in reverse order; teardown failures are warnings', async () => {
    const calls: any[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const msg = JSON.parse(body);
        calls.push(msg);
        if (msg.state === 'unknown') {
          res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"unknown state"}');
        } else if (msg.action === 'teardown' && msg.state === 'fragile') {
          res.writeHead(500).end('boom');
        } else {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(msg.action === 'setup' ? JSON.stringify({ id: calls.length }) : '{}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as any).port;
    try {
      const s = new StateSession(new HttpStateProvider(`http://127.0.0.1:${port}/_provider-states`), 'area.test');
      expect(await s.given('fragile', { a: 1 })).toEqual({ id: 1 });
      expect(await s.given('other', { count: 2 })).toEqual({ id: 2 });
      await expect(s.given('unknown')).rejects.toThrow(/answered 400/);
      const warnings = await s.teardownAll();
      expect(calls.map((c) => `${c.action}:${c.state}`)).toEqual([
        'setup:fragile',
        'setup:other',
        'setup:unknown',
        'teardown:other',
        'teardown:fragile',
      ]);
      expect(calls[0].params).toMatchObject({ a: 1, setupId: expect.stringMatching(/^area\.test-/) });
      expect(calls[4].params).toEqual(calls[0].params); // same params and setupId
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/teardown of state 'fragile'/);
    } finally {
      server.close();
    }
  });

  it('an unreachable endpoint is a precondition failure', async () => {
    const p = new HttpStateProvider('http://127.0.0.1:1/_provider-states', 2000);
    await expect(p.setup('a user', { setupId: 'x' })).rejects.toBeInstanceOf(PreconditionFailedError);
  });
});

describe('teardown waves and stale connections', () => {
  /** A provider that records when each setup and teardown ran (setups resolve when told to). */
  function recordingProvider() {
    const events: string[] = [];
    let inTeardown = 0;
    let maxTeardownsAtOnce = 0;
    const provider = {
      kind: 'url' as const,
      tearsDown: true,
      async setup(state: string) {
        await new Promise((r) => setTimeout(r, 5));
        return { state };
      },
      async teardown(state: string) {
        inTeardown++;
        maxTeardownsAtOnce = Math.max(maxTeardownsAtOnce, inTeardown);
        events.push(`start ${state}`);
        await new Promise((r) => setTimeout(r, 10));
        events.push(`end ${state}`);
        inTeardown--;
      },
    };
    return { provider, events, maxAtOnce: () => maxTeardownsAtOnce };
  }

  it('states set up together are torn down together, after every later state, in reverse order of waves', async () => {
    const { provider, events, maxAtOnce } = recordingProvider();
    const s = new StateSession(provider as never, 'waves');
    await s.given('first');
    await Promise.all([s.given('a'), s.given('b'), s.given('c')]);
    await s.given('last');
    expect(await s.teardownAll()).toEqual([]);
    // 'last' alone, then a, b and c at once, then 'first' alone
    expect(events[0]).toBe('start last');
    expect(events[1]).toBe('end last');
    expect(events.slice(2, 5).sort()).toEqual(['start a', 'start b', 'start c']);
    expect(events.slice(-2)).toEqual(['start first', 'end first']);
    expect(maxAtOnce()).toBe(3);
  });

  it('a state request on a connection the server had closed is sent once more; other failures are not', async () => {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      // the first request: the connection dies before any answer, as a timed-out keep-alive socket does
      if (requests === 1) return req.socket.destroy();
      if (requests === 3) {
        res.writeHead(500).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as { port: number }).port;
      const p = new HttpStateProvider(`http://127.0.0.1:${port}/_provider-states`);
      expect(await p.setup('x', { setupId: '1' })).toEqual({ ok: true });
      expect(requests).toBe(2);
      await expect(p.setup('x', { setupId: '2' })).rejects.toThrow(/answered 500/);
      expect(requests).toBe(3);
    } finally {
      server.close();
    }
  });
});

describe('refusals of a state endpoint (protocol 1.1.0)', () => {
  /** An endpoint that answers every setup with `status` and `body`. */
  async function endpoint(status: number, body: unknown) {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/_provider-states`;
    return { session: new StateSession(new HttpStateProvider(url), 'area.test'), close: () => server.close() };
  }

  it('501 with the code FixtureCannotExist ends the test not-applicable with the endpoint’s reason', async () => {
    const e = await endpoint(501, { status: 501, code: 'FixtureCannotExist', detail: 'one ID sequence' });
    try {
      const err = await e.session.given('a link parent', { twinDomain: 'Incident' }).catch((x: Error) => x);
      expect(err).toBeInstanceOf(NotApplicableError);
      expect((err as Error).message).toBe("provider state 'a link parent' cannot exist here: one ID sequence");
    } finally {
      e.close();
    }
  });

  it('a bare 501 (a state not implemented yet) excuses nothing: precondition-failed', async () => {
    const e = await endpoint(501, { status: 501, detail: 'not implemented' });
    try {
      const err = await e.session.given('a link parent', {}).catch((x: Error) => x);
      expect(err).toBeInstanceOf(PreconditionFailedError);
      expect(err).not.toBeInstanceOf(NotApplicableError);
    } finally {
      e.close();
    }
  });

  it('400 to a param marked x-may-refuse is not-applicable; any other 400 is precondition-failed', async () => {
    const e = await endpoint(400, { status: 400, detail: 'only Claim' });
    try {
      const refused = await e.session.given('records', { domain: 'File', count: 3 }).catch((x: Error) => x);
      expect(refused).toBeInstanceOf(NotApplicableError);
      expect((refused as Error).message).toMatch(
        /provider state 'records' refused \(400\) its param `domain` = "File".*\(only Claim\)/,
      );
      const other = await e.session.given('records', { count: 3 }).catch((x: Error) => x);
      expect(other).toBeInstanceOf(PreconditionFailedError);
    } finally {
      e.close();
    }
  });
});
