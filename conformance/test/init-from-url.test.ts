// `conformance init --from-url`: the probe recognises the bindings a running implementation uses
// (token header, Domains envelope, total-count parameter and place, start offset) with GET requests
// only, writes them into conformance.yaml (which then loads with those bindings), and where it
// cannot tell leaves the default commented out with a note of what it saw.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli/main.js';
import { defaultBindings } from '../src/model/bindings.js';
import { resolveRunOptions } from '../src/run/config.js';

const DOMAINS = [
  { DomainID: 1, Name: 'Claim', DisplayNameSingular: 'Claim', DisplayNamePlural: 'Claims' },
  { DomainID: 2, Name: 'Contact', DisplayNameSingular: 'Contact', DisplayNamePlural: 'Contacts' },
];

/** A fake implementation answering GET only; `methods` collects every method it was sent. */
function fake(answer: (url: URL, req: http.IncomingMessage) => [number, unknown, Record<string, string>?]) {
  const methods: string[] = [];
  const server = http.createServer((req, res) => {
    methods.push(req.method ?? '');
    const [status, body, headers] = answer(new URL(req.url ?? '/', 'http://x'), req);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  });
  return { server, methods };
}

async function init(args: string[]): Promise<number | undefined> {
  let code: number | undefined;
  await buildProgram((c) => (code = c)).parseAsync(['init', ...args], { from: 'user' });
  return code;
}

describe('conformance init --from-url', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'init-from-url-'));
  const records = [{ ClaimID: 7 }, { ClaimID: 8 }, { ClaimID: 9 }];
  // unlike the reference: Bearer token, a bare array of domains, `offset`, `count=true` -> header
  const acme = fake((url, req) => {
    if (req.headers.authorization !== 'Bearer t0k') return [401, { title: 'Unauthorized' }];
    if (url.pathname === '/api/Domains') return [200, DOMAINS];
    if (url.pathname === '/api/Claim/Query') {
      const from = Number(url.searchParams.get('offset') ?? 0);
      const take = Number(url.searchParams.get('take') ?? 30);
      const extra: Record<string, string> =
        url.searchParams.get('count') === 'true' ? { 'X-Total-Count': String(records.length) } : {};
      return [200, { List: records.slice(from, from + take) }, extra];
    }
    return [404, {}];
  });
  // open without a token, two lists in the Domains body, one record: little to tell
  const sparse = fake((url) => {
    if (url.pathname === '/api/Domains') return [200, { data: DOMAINS, links: [] }];
    if (url.pathname === '/api/Claim/Query') return [200, { List: [{ ClaimID: 1 }] }];
    return [404, {}];
  });
  const urlOf = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

  beforeAll(async () => {
    for (const f of [acme, sparse]) await new Promise<void>((r) => f.server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => {
    for (const f of [acme, sparse]) f.server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('writes the bindings it recognises, and the yaml loads with them; it sent GET only', async () => {
    const dir = path.join(tmp, 'acme');
    expect(await init(['--lang', 'js', '--dir', dir, '--from-url', urlOf(acme.server), '--token', 't0k'])).toBe(0);
    expect(new Set(acme.methods)).toEqual(new Set(['GET']));
    const file = path.join(dir, 'conformance.yaml');
    const o = resolveRunOptions({ config: file }, {});
    expect(o.target).toEqual({ kind: 'url', baseUrl: urlOf(acme.server) });
    expect(o.bindings).toEqual({
      ...defaultBindings,
      tokenHeader: 'Authorization',
      tokenPrefix: 'Bearer ',
      domainsListField: '',
      totalCountHeader: 'x-total-count', // as fetch spells it: header names are case-insensitive
      query: { ...defaultBindings.query, skip: 'offset', includeTotalCount: 'count' },
    });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^ {2}domainsListField: ""\s+# probe: GET \/api\/Domains answered a bare array$/m);
    expect(text).toMatch(/^# {5}filter: filter /m); // not probed: the default, commented out
  });

  it('where it cannot tell, keeps the default commented out and says what it saw', async () => {
    const dir = path.join(tmp, 'sparse');
    expect(await init(['--dir', dir, '--from-url', urlOf(sparse.server)])).toBe(0);
    expect(new Set(sparse.methods)).toEqual(new Set(['GET']));
    const file = path.join(dir, 'conformance.yaml');
    expect(resolveRunOptions({ config: file }, {}).bindings).toEqual(defaultBindings);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('# probe: GET /api/Domains answered 200 without a token: the token header cannot be told');
    expect(text).toContain('# probe: GET /api/Domains answered an object with keys data, links (lists: data, links)');
    expect(text).toContain('two are needed to tell the start offset');
    expect(text).toMatch(/^# bindings:$/m);
  });

  it('refuses a URL that is not http(s), and says in --help that it only reads', async () => {
    await expect(init(['--dir', path.join(tmp, 'x'), '--from-url', 'ftp://a'])).rejects.toThrow(/http\(s\) URL/);
    const help = buildProgram(() => {})
      .commands.find((c) => c.name() === 'init')!
      .helpInformation();
    expect(help.replace(/\s+/g, ' ')).toMatch(/Read-only: it sends GET requests only/);
  });
});
