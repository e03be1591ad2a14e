// The fault-injecting proxy: an HTTP server in front of an upstream implementation that forwards
// every exchange, passes the provider-state endpoint through untouched, and lets ONE named fault
// rewrite requests and responses to imitate a realistic implementation bug.
//
// Test code of the conformance suite; never part of the reference server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import { FAULTS } from './catalogue/index.js';
import type { Fault, FaultContext, SideResponse } from './fault.js';
import {
  bodyJson,
  makeRequest,
  pathWithQuery,
  type Grants,
  type Json,
  type ProxyRequest,
  type ProxyResponse,
} from './exchange.js';
import { operationOf } from './operations.js';

export interface FaultProxyOptions {
  /** Base URL of the implementation behind the proxy (no trailing slash). */
  upstream: string;
  /** The fault to inject (a catalogue entry or its name); none: a plain pass-through proxy. */
  fault?: Fault | string | null;
  /** Port to listen on (0 or omitted: a free port). */
  port?: number;
  host?: string;
  /** Header carrying the API token (the reference: `Token`). */
  tokenHeader?: string;
  /** Path of the provider-state endpoint on the upstream. */
  providerStatesPath?: string;
  /** Upstream request timeout. */
  timeoutMs?: number;
  /** Where proxy errors are reported (default: stderr). */
  log?: (line: string) => void;
  /**
   * Keep upstream connections alive, each idle at most this long (ms). Only for an upstream known
   * to keep idle connections open much longer (the mutation run's reference servers, started with
   * `--keep-alive-timeout`): otherwise a request can go out on a connection the upstream is closing
   * as idle, and fail. Omitted: a new connection per request.
   */
  upstreamIdleMs?: number;
  /**
   * The suite sends its provider states to the upstream directly, not through this proxy (the
   * mutation run, for a rewrite not tagged readsGrants): the proxy cannot know users' grants, and a
   * rewrite that asks for them is an error of the run (FaultProxy.stats.misuse), never a silent
   * "unknown".
   */
  statesElsewhere?: boolean;
}

export interface FaultProxy {
  url: string;
  port: number;
  fault: Fault | undefined;
  context: FaultContext;
  /** Exchanges handled so far (fault applied or not), upstream errors, and a rewrite's misuse of the context. */
  stats: { exchanges: number; errors: number; misuse?: string };
  close(): Promise<void>;
}

/** Headers that describe one hop, not the message. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
  'content-encoding',
]);

function resolveFault(f: Fault | string | null | undefined): Fault | undefined {
  if (f === null || f === undefined) return undefined;
  if (typeof f !== 'string') return f;
  const hit = FAULTS.find((x) => x.name === f);
  if (!hit) throw new Error(`unknown fault '${f}' (known: ${FAULTS.map((x) => x.name).join(', ')})`);
  return hit;
}

/**
 * Send `req` to `upstream` as is; the answer as a ProxyResponse. undici's dispatcher, not fetch():
 * the mutation run sends every request of ~200 suite runs through a proxy in its own process, and
 * fetch's web streams cost it several times the CPU (a profile of six runs: 10 s of the runner's
 * 52 s busy time in forward() and send()).
 */
function forward(
  dispatcher: Dispatcher,
  upstream: string,
  req: ProxyRequest,
  timeoutMs: number,
  keepAlive: boolean,
): Promise<ProxyResponse> {
  // what fetch() sent when the client named none: the upstream sees the same request
  const headers: Record<string, string> = { accept: '*/*' };
  for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
  const hasBody = !['GET', 'HEAD'].includes(req.method) && req.body.length > 0;
  const url = new URL(upstream + pathWithQuery(req));
  // the body collected as it arrives: undici's request API wraps every answer in a stream, which
  // costs the runner's thread, where every proxy of a mutation run lives, tens of µs per exchange
  // (measured for the suite's transport, suite-api/transport.ts)
  return new Promise((resolve, reject) => {
    let status = 0;
    const out: Record<string, string> = {};
    const chunks: Buffer[] = [];
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body: hasBody ? req.body : undefined,
        // unless the upstream is known to keep idle connections longer than the pool does, a new
        // connection per request: none can be closed as idle by the upstream just as a request
        // goes out on it (ECONNRESET under load; a starved upstream still resets some)
        reset: !keepAlive,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      {
        // undici takes a handler without it for one of its older API, and refuses it
        onRequestStart() {},
        onResponseStart(_c, statusCode, raw) {
          if (statusCode < 200) return;
          status = statusCode;
          for (const [k, v] of Object.entries(raw))
            if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, headers: out, body: Buffer.concat(chunks) });
        },
        onResponseError(_c, err) {
          reject(err);
        },
      },
    );
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function toProxyRequest(req: http.IncomingMessage, body: Buffer): ProxyRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  const r = makeRequest(req.method ?? 'GET', req.url ?? '/', { headers });
  r.body = body;
  return r;
}

function send(res: http.ServerResponse, out: ProxyResponse): void {
  const headers: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(out.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v;
  headers['content-length'] = out.body.length;
  res.writeHead(out.status, headers);
  res.end(out.body);
}

/** Start a proxy in front of `opts.upstream`. */
export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = opts.upstream.replace(/\/+$/, '');
  const fault = resolveFault(opts.fault);
  const tokenHeader = (opts.tokenHeader ?? 'Token').toLowerCase();
  const statesPath = opts.providerStatesPath ?? '/_provider-states';
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const log = opts.log ?? ((line: string) => process.stderr.write(`[fault-proxy] ${line}\n`));
  const grants = new Map<string, Grants | 'admin'>();
  const stats: FaultProxy['stats'] = { exchanges: 0, errors: 0 };
  const setupId = `fault-proxy-${fault?.name ?? 'none'}-${randomUUID()}`;
  let admin: Promise<string> | undefined;
  let domains: Promise<Map<string, number>> | undefined;
  let publicUrl = '';

  const keepAlive = opts.upstreamIdleMs !== undefined;
  const pool = new Agent(
    keepAlive ? { keepAliveTimeout: opts.upstreamIdleMs, keepAliveMaxTimeout: opts.upstreamIdleMs } : {},
  );
  const next = (req: ProxyRequest) => forward(pool, upstream, req, timeoutMs, keepAlive);

  async function call(
    method: string,
    pathAndQuery: string,
    o: { token?: string | null; body?: Json } = {},
  ): Promise<SideResponse> {
    const token = o.token === undefined ? await ctx.adminToken() : o.token;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers[tokenHeader] = token;
    const req = makeRequest(method, pathAndQuery, { headers, body: o.body });
    const res = await next(req);
    const text = res.body.toString('utf8');
    return { status: res.status, text, json: bodyJson(res) };
  }

  async function stateCall(action: 'setup' | 'teardown'): Promise<Json> {
    const res = await fetch(upstream + statesPath, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ state: 'a user', params: { setupId }, action }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status !== 200)
      throw new Error(`provider state 'a user' ${action} answered ${res.status}: ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : {};
  }

  const ctx: FaultContext = {
    tokenHeader,
    memory: new Map(),
    get publicUrl() {
      return publicUrl;
    },
    adminToken() {
      admin ??= stateCall('setup').then((v) => {
        if (typeof v?.token !== 'string')
          throw new Error(`provider state 'a user' gave no token: ${JSON.stringify(v)}`);
        grants.set(v.token, 'admin');
        return v.token as string;
      });
      admin.catch(() => (admin = undefined));
      return admin;
    },
    call,
    domainIds() {
      domains ??= call('GET', '/api/Domains').then((r) => {
        const list: any[] = Array.isArray(r.json?.List) ? r.json.List : Array.isArray(r.json) ? r.json : [];
        if (r.status !== 200) throw new Error(`GET /api/Domains answered ${r.status}`);
        return new Map(list.map((d) => [String(d.Name), Number(d.DomainID)]));
      });
      domains.catch(() => (domains = undefined));
      return domains;
    },
    grantsOf(token) {
      if (opts.statesElsewhere) {
        stats.misuse ??= `the rewrite of ${fault?.name ?? 'this proxy'} reads users' grants, but provider states bypass the proxy: tag it with readsGrants (operations.ts)`;
        throw new Error(stats.misuse);
      }
      return token === undefined ? undefined : grants.get(token);
    },
  };

  /** Provider states pass through untouched; users' grants are noted (read-only) for permission faults. */
  async function providerState(req: ProxyRequest): Promise<ProxyResponse> {
    const res = await next(req);
    const body = bodyJson(req);
    const out = bodyJson(res);
    if (
      res.status === 200 &&
      body?.state === 'a user' &&
      (body.action ?? 'setup') === 'setup' &&
      typeof out?.token === 'string'
    ) {
      const g = body.params?.grants;
      grants.set(out.token, g && typeof g === 'object' ? (g as Grants) : 'admin');
    }
    return res;
  }

  const server = http.createServer(async (ireq, ores) => {
    stats.exchanges++;
    try {
      const req = toProxyRequest(ireq, await readBody(ireq));
      const isState = req.path === statesPath || operationOf(req).op === 'providerStates';
      const out = isState ? await providerState(req) : fault ? await fault.rewrite(req, ctx, next) : await next(req);
      send(ores, out);
    } catch (e) {
      stats.errors++;
      const detail = e instanceof Error ? e.message : String(e);
      log(`${ireq.method} ${ireq.url}: ${detail}`);
      if (!ores.headersSent) {
        send(ores, {
          status: 502,
          headers: { 'content-type': 'application/problem+json' },
          body: Buffer.from(
            JSON.stringify({
              type: 'about:blank',
              title: 'Bad Gateway',
              status: 502,
              detail: `fault proxy: ${detail}`,
              code: 'ProxyError',
            }),
          ),
        });
      } else ores.destroy();
    }
  });
  server.keepAliveTimeout = 5_000;

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  publicUrl = `http://${host}:${port}`;

  return {
    url: publicUrl,
    port,
    fault,
    context: ctx,
    stats,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (admin) await admin.then(() => stateCall('teardown')).catch(() => undefined);
      await pool.close();
    },
  };
}
