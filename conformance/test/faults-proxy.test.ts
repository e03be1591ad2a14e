// The fault-injecting proxy over real HTTP, in front of a tiny fake upstream: exchanges pass
// through unchanged without a fault, the provider-state endpoint is never rewritten, a fault is
// applied, the administrator token comes from the provider-state endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../faults/proxy.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamUrl: string;
const seen: Seen[] = [];
let proxy: FaultProxy | undefined;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = new URL(req.url!, 'http://x');
      const json = (
        status: number,
        value: unknown,
        type = 'application/json; charset=UTF-8',
        extra: Record<string, string> = {},
      ) => {
        res.writeHead(status, { 'content-type': type, ...extra });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/_provider-states') {
        const b = JSON.parse(body || '{}');
        if (b.state === 'a user' && b.action === 'setup')
          return json(200, { token: b.params?.grants ? 'LIMITED' : 'ADMIN-TOKEN', userId: 1 });
        if (b.action === 'teardown') return json(200, {});
        return json(
          400,
          { type: 'about:blank', title: 'Bad Request', status: 400, code: 'UnknownState' },
          'application/problem+json',
        );
      }
      if (url.pathname === '/api/Missing/1') {
        return json(
          404,
          { type: 'about:blank', title: 'Not Found', status: 404, detail: 'no', code: 'UnknownDomain' },
          'application/problem+json',
        );
      }
      if (url.pathname === '/api/Boom') return json(500, 'Object reference not set to an instance of an object.');
      if (url.pathname.endsWith('/UpsertMulti')) {
        return json(200, {
          Inserts: [{ IsSuccessful: true, RecordID: 5, OrderNumber: 0, Message: 'Inserted.', Warnings: null }],
          Updates: [],
          Deletes: [],
        });
      }
      if (url.pathname === '/empty') {
        res.writeHead(200);
        return res.end();
      }
      json(
        200,
        { echo: { method: req.method, url: req.url, token: req.headers.token ?? null, body } },
        'application/json; charset=UTF-8',
        { 'x-upstream': 'yes' },
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => upstream.close(() => r()));
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  seen.length = 0;
});

describe('fault proxy without a fault', () => {
  it('passes a GET through unchanged: path, raw query, token, status, headers, body', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl });
    const q = '/api/Claim/Query?columns=ClaimNumber%20as%20Number,Status&take=5&sort=EntryDate+desc';
    const res = await fetch(proxy.url + q, { headers: { Token: 'abc', 'X-Custom': '1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(res.headers.get('x-upstream')).toBe('yes');
    const body = (await res.json()) as any;
    expect(body.echo).toEqual({ method: 'GET', url: q, token: 'abc', body: '' });
    expect(seen[0]!.url).toBe(q);
    expect(seen[0]!.headers['x-custom']).toBe('1');
  });

  it('passes a POST body and error answers through unchanged', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl });
    const payload = JSON.stringify({ Inserts: [{ Fields: { LocationName: 'A' } }] });
    const res = await fetch(`${proxy.url}/api/Link/Upsert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Token: 't' },
      body: payload,
    });
    expect(((await res.json()) as any).echo.body).toBe(payload);
    expect(seen[0]!.headers['content-type']).toBe('application/json');

    const missing = await fetch(`${proxy.url}/api/Missing/1`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(((await missing.json()) as any).code).toBe('UnknownDomain');

    const boom = await fetch(`${proxy.url}/api/Boom`);
    expect(boom.status).toBe(500);
    expect(await boom.text()).toBe('"Object reference not set to an instance of an object."');

    const empty = await fetch(`${proxy.url}/empty`);
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe('');
  });

  it('answers 502 with a JSON problem when the upstream is down', async () => {
    proxy = await startFaultProxy({ upstream: 'http://127.0.0.1:9', log: () => {} });
    const res = await fetch(`${proxy.url}/api/Domains`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as any).code).toBe('ProxyError');
    expect(proxy.stats.errors).toBe(1);
  });
});

describe('fault proxy with a fault', () => {
  it('rewrites the exchanges the fault is about', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl, fault: 'order-number-one-based' });
    const res = await fetch(`${proxy.url}/api/Quotes/Proposals/1/Schedules/ProposalLocation/UpsertMulti`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Inserts: [{ Fields: { LocationName: 'A' } }], Updates: [], Deletes: [] }),
    });
    const body = (await res.json()) as any;
    expect(body.Inserts[0].OrderNumber).toBe(1);
    // other exchanges are untouched
    const other = await fetch(`${proxy.url}/api/Claim/1?columns=ClaimNumber`);
    expect(((await other.json()) as any).echo.url).toBe('/api/Claim/1?columns=ClaimNumber');
  });

  it('never rewrites the provider-state endpoint', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl, fault: 'problem-details-as-plain-text' });
    const res = await fetch(`${proxy.url}/_provider-states`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'no such state', params: { setupId: 'x' }, action: 'setup' }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(((await res.json()) as any).code).toBe('UnknownState');
    // the same kind of answer elsewhere is rewritten by this fault
    const missing = await fetch(`${proxy.url}/api/Missing/1`);
    expect(missing.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('notes the grants of users created through the provider-state endpoint', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl, fault: 'link-parent-permission-not-checked' });
    const grants = { Claim: ['View'], Contact: ['View'] };
    const res = await fetch(`${proxy.url}/_provider-states`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'a user', params: { setupId: 's1', grants }, action: 'setup' }),
    });
    expect(((await res.json()) as any).token).toBe('LIMITED');
    expect(proxy.context.grantsOf('LIMITED')).toEqual(grants);

    // the user lacks Attach Contacts on Claim: the faulty proxy forwards as the administrator
    const up = await fetch(`${proxy.url}/api/Link/Upsert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Token: 'LIMITED' },
      body: JSON.stringify({ ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 2 }),
    });
    expect(((await up.json()) as any).echo.token).toBe('ADMIN-TOKEN');
  });

  it('with provider states sent elsewhere, refuses a rewrite that reads grants and names the misuse', async () => {
    const lines: string[] = [];
    proxy = await startFaultProxy({
      upstream: upstreamUrl,
      fault: 'link-parent-permission-not-checked',
      statesElsewhere: true,
      log: (l) => lines.push(l),
    });
    const up = await fetch(`${proxy.url}/api/Link/Upsert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Token: 'LIMITED' },
      body: JSON.stringify({ ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 2 }),
    });
    expect(up.status).toBe(502);
    expect(proxy.stats.misuse).toMatch(/link-parent-permission-not-checked reads users' grants.*readsGrants/);
    expect(lines.join('\n')).toMatch(/readsGrants/);
  });

  it('obtains an administrator token through the provider-state endpoint and tears it down on close', async () => {
    proxy = await startFaultProxy({ upstream: upstreamUrl, fault: 'unauthenticated-served' });
    const res = await fetch(`${proxy.url}/api/Domains`);
    expect(((await res.json()) as any).echo.token).toBe('ADMIN-TOKEN');
    const setup = seen.find((s) => s.url === '/_provider-states');
    expect(JSON.parse(setup!.body)).toMatchObject({ state: 'a user', action: 'setup' });
    await proxy.close();
    proxy = undefined;
    const teardown = seen.filter((s) => s.url === '/_provider-states').map((s) => JSON.parse(s.body));
    expect(teardown.at(-1)).toMatchObject({
      state: 'a user',
      action: 'teardown',
      params: JSON.parse(setup!.body).params,
    });
  });

  it('refuses an unknown fault name', async () => {
    await expect(startFaultProxy({ upstream: upstreamUrl, fault: 'no-such-fault' })).rejects.toThrow(/unknown fault/);
  });
});
