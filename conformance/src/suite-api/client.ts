// The typed HTTP client of the suite: openapi-fetch plus one middleware that adds the token,
// applies the per-request timeout, records every exchange into the current test's log and runs
// the generic checks (generic-checks.ts) on every response.
import { guardCoreSurface, guardSuiteRequest, type RequestSurface } from './request-guard.js';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { Bindings } from './bindings.js';
import type { GenericChecker } from './generic-checks/checker.js';
import { GENERIC_REQUIREMENTS } from './generic-checks/checks.js';
import type { Finding, GenericCode, Violation } from './generic-checks/types.js';
import { describeError, TargetError } from '../errors.js';
import { spooledFetch } from '../traffic/spool.js';
import { readBodyCapped, send, type HttpResponse, type TransportError } from './transport.js';

/** One recorded request/response pair. */
export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  ms: number;
  /** When the request started (ms since the epoch, fractional): orders concurrent exchanges. */
  at?: number;
  operationId?: string;
  /** Network error or timeout (no response). */
  error?: string;
}

/** Longest body text kept in a recorded exchange (the checks see the whole body). */
const MAX_RECORDED_BODY = 16_384;

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Everything recorded during one test. */
export class ExchangeLog {
  readonly exchanges: Exchange[] = [];
  readonly violations: Violation[] = [];
  readonly findings: Finding[] = [];
  readonly checked = Object.fromEntries(GENERIC_REQUIREMENTS.map((code) => [code, 0])) as Record<GenericCode, number>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body; undefined when the body is empty or not JSON. */
  json: unknown;
}

export type RawInit = RequestInit & { token?: string | null };

export interface ClientOptions {
  baseUrl: string;
  bindings: Bindings;
  timeoutMs: number;
  log: ExchangeLog;
  checker?: GenericChecker;
  /** Core tests: the documented surface their requests must stay on (request-guard.ts). */
  surface?: RequestSurface;
  /** The token to send; null or undefined = no credentials. May be async (the admin token is set up lazily). */
  token: () => string | null | undefined | Promise<string | null | undefined>;
  /** Aborts pending requests (the test's signal: aborted when the test times out). */
  signal?: AbortSignal;
}

const REDACTED = '<redacted>';

/** The path of a request URL relative to the base URL's path (what the generic checks match). */
function relativePath(opts: ClientOptions, url: string): string {
  const basePath = new URL(opts.baseUrl).pathname.replace(/\/+$/, '');
  let rel = new URL(url).pathname;
  if (basePath && rel.startsWith(basePath)) rel = rel.slice(basePath.length) || '/';
  return rel;
}

/** Records the answer of an exchange (status, time, headers, body) and runs the generic checks on it. */
function recordAnswer(
  opts: ClientOptions,
  ex: Exchange,
  t0: number,
  a: { method: string; url: string; status: number; headers: Record<string, string>; text: string },
): void {
  ex.ms = Math.round(performance.now() - t0);
  ex.status = a.status;
  ex.responseHeaders = a.headers;
  ex.responseBody = truncate(a.text);
  if (!opts.checker) return;
  const r = opts.checker.check({
    method: a.method,
    url: a.url,
    path: relativePath(opts, a.url),
    status: a.status,
    contentType: a.headers['content-type'] ?? null,
    bodyText: a.text,
  });
  ex.operationId = r.operation?.operationId;
  for (const c of r.checked) opts.log.checked[c]++;
  opts.log.violations.push(...r.violations);
  opts.log.findings.push(...r.findings);
}

/** An answer whose status is no HTTP status fails the request (the caller records it). */
function notAStatus(what: string, status: number): TargetError {
  return new TargetError(`${what}: the target answered with ${status}, which is not an HTTP status (100-599)`);
}

function conformanceMiddleware(opts: ClientOptions): Middleware {
  const pending = new Map<string, { t0: number; exchange: Exchange }>();
  const tokenHeader = opts.bindings.tokenHeader.toLowerCase();

  return {
    async onRequest({ request, id }) {
      guardSuiteRequest(request.method, request.url);
      if (opts.surface) guardCoreSurface(opts.surface, request.method, request.url, relativePath(opts, request.url));
      const token = await opts.token();
      if (token !== null && token !== undefined && !request.headers.has(tokenHeader)) {
        request.headers.set(opts.bindings.tokenHeader, `${opts.bindings.tokenPrefix}${token}`);
      }
      const requestHeaders: Record<string, string> = {};
      request.headers.forEach((v, k) => {
        requestHeaders[k] = k === tokenHeader ? REDACTED : v;
      });
      let requestBody: string | undefined;
      if (request.body !== null) requestBody = truncate(await request.clone().text());
      const exchange: Exchange = {
        method: request.method,
        url: request.url,
        requestHeaders,
        requestBody,
        ms: 0,
        at: performance.timeOrigin + performance.now(),
      };
      opts.log.exchanges.push(exchange);
      pending.set(id, { t0: performance.now(), exchange });
      // The timeout covers the whole exchange, body included. Redirects are not followed: a
      // redirect to another origin would carry the token header along (fetch drops only
      // Authorization), and the interface documents no 3xx (the generic checks report it).
      return new Request(request, {
        redirect: 'manual',
        signal: AbortSignal.any([
          request.signal,
          AbortSignal.timeout(opts.timeoutMs),
          ...(opts.signal ? [opts.signal] : []),
        ]),
      });
    },

    async onResponse({ request, response, id }) {
      const p = pending.get(id);
      pending.delete(id);
      const what = `${request.method} ${request.url}`;
      if (response.status < 100 || response.status > 599) {
        await response.body?.cancel().catch(() => undefined);
        if (p) p.exchange.error = `invalid HTTP status ${response.status}`;
        throw notAStatus(what, response.status);
      }
      let text: string;
      try {
        text = await readBodyCapped(response, what);
      } catch (e) {
        if (p) {
          p.exchange.status = response.status;
          p.exchange.ms = Math.round(performance.now() - p.t0);
          p.exchange.error = e instanceof TargetError ? e.message : `reading the body failed: ${describeError(e)}`;
        }
        if (e instanceof TargetError) throw e;
        const name = (e as { name?: string })?.name;
        if (name === 'TimeoutError' || (name === 'AbortError' && request.signal.aborted)) {
          throw new TargetError(`${what}: the response body did not arrive within ${opts.timeoutMs} ms (--timeout)`);
        }
        throw new TargetError(`${what}: reading the response body failed: ${describeError(e)}`);
      }
      const ex = p?.exchange ?? { method: request.method, url: request.url, requestHeaders: {}, ms: 0 };
      if (!p) opts.log.exchanges.push(ex);
      recordAnswer(opts, ex, p?.t0 ?? performance.now(), {
        method: request.method,
        url: request.url,
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        text,
      });
      // The stream is consumed: hand on a response with the body that was read.
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },

    onError({ request, error, id }) {
      const p = pending.get(id);
      pending.delete(id);
      const what = describeError(error);
      if (p) {
        p.exchange.ms = Math.round(performance.now() - p.t0);
        p.exchange.error = what;
      }
      if (error instanceof TargetError) return error;
      const name = (error as { name?: string })?.name;
      if (name === 'TimeoutError') {
        return new TargetError(`${request.method} ${request.url}: no answer within ${opts.timeoutMs} ms (--timeout)`);
      }
      if (error instanceof TypeError || name === 'AbortError') {
        return new TargetError(`${request.method} ${request.url}: ${what}`);
      }
      return error instanceof Error ? error : new Error(what);
    },
  };
}

/** An openapi-fetch client with the conformance middleware. */
export function makeClient<Paths extends object>(opts: ClientOptions): Client<Paths> {
  const client = createClient<Paths>({ baseUrl: opts.baseUrl, fetch: spooledFetch });
  client.use(conformanceMiddleware(opts));
  return client;
}

/**
 * An untyped request, recorded and checked like the typed client's, sent through the undici
 * transport (transport.ts: a quarter of fetch's CPU per request; most of the suite's requests come
 * this way).
 */
export async function rawRequest(opts: ClientOptions, path: string, init: RawInit = {}): Promise<RawResponse> {
  const token = init.token !== undefined ? init.token : await opts.token();
  const url = /^https?:\/\//.test(path)
    ? path
    : `${opts.baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  const method = (init.method ?? 'GET').toUpperCase();
  guardSuiteRequest(method, url);
  if (opts.surface) guardCoreSurface(opts.surface, method, url, relativePath(opts, url));
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
    throw new TypeError(`rawRequest ${method} ${path}: the body must be a string`);
  }
  const body = init.body ?? undefined;
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => {
    headers[k] = v;
  });
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  if (headers.accept === undefined) headers.accept = 'application/json';
  const tokenHeader = opts.bindings.tokenHeader.toLowerCase();
  if (token !== null && token !== undefined && headers[tokenHeader] === undefined) {
    headers[tokenHeader] = `${opts.bindings.tokenPrefix}${token}`;
  }
  const requestHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) requestHeaders[k] = k === tokenHeader ? REDACTED : v;
  const exchange: Exchange = {
    method,
    url,
    requestHeaders,
    requestBody: body === undefined ? undefined : truncate(body),
    ms: 0,
    at: performance.timeOrigin + performance.now(),
  };
  opts.log.exchanges.push(exchange);
  const t0 = performance.now();
  const what = `${method} ${url}`;
  let res: HttpResponse;
  try {
    res = await send({
      method,
      url,
      headers,
      body,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
    });
  } catch (e) {
    exchange.ms = Math.round(performance.now() - t0);
    if (e instanceof TargetError) {
      exchange.error = e.message;
      throw e;
    }
    const err = e as TransportError;
    exchange.error = err.message;
    if (err.timedOut) {
      throw new TargetError(
        err.phase === 'body'
          ? `${what}: the response body did not arrive within ${opts.timeoutMs} ms (--timeout)`
          : `${what}: no answer within ${opts.timeoutMs} ms (--timeout)`,
      );
    }
    throw new TargetError(
      err.phase === 'body' ? `${what}: reading the response body failed: ${err.message}` : `${what}: ${err.message}`,
    );
  }
  if (res.status < 100 || res.status > 599) {
    exchange.status = res.status;
    exchange.ms = Math.round(performance.now() - t0);
    exchange.error = `invalid HTTP status ${res.status}`;
    throw notAStatus(what, res.status);
  }
  recordAnswer(opts, exchange, t0, { method, url, status: res.status, headers: res.headers, text: res.text });
  let json: unknown;
  if (res.text.trim() !== '') {
    try {
      json = JSON.parse(res.text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: new Headers(res.headers), text: res.text, json };
}

function truncate(s: string): string {
  return s.length > MAX_RECORDED_BODY
    ? `${s.slice(0, MAX_RECORDED_BODY)}… [${s.length - MAX_RECORDED_BODY} more characters]`
    : s;
}
