// The HTTP client of the suite's tests: the typed client (openapi-fetch, its types generated from
// the OpenAPI document) and untyped requests (rawRequest). Both send through the undici transport
// (transport.ts) by one function that adds the token, applies the per-request timeout, records
// every exchange into the current test's log and runs the generic checks (generic-checks.ts) on
// every answer.
import { guardCoreSurface, guardSuiteRequest, type RequestSurface } from './request-guard.js';
import createClient, { type Client } from 'openapi-fetch';
import type { Bindings } from '../model/bindings.js';
import type { GenericChecker } from './generic-checks/checker.js';
import { GENERIC_REQUIREMENTS } from './generic-checks/checks.js';
import type { Finding, GenericCode, Violation } from './generic-checks/types.js';
import { TargetError } from '../model/errors.js';
import { send, type HttpResponse, type TransportError } from './transport.js';

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
    headers: a.headers,
    bindings: opts.bindings,
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

/** One request as the suite sends it: its headers as sent, lower-case names, the token not yet added. */
interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Sends one request of a test through the undici transport (transport.ts) and records it: the
 * token added (unless the request names its own), the exchange in the test's log, the generic
 * checks on the answer. Every failure to get an answer is a TargetError naming the request. Used
 * by the typed client and by rawRequest alike, each after its guards (`guard`). `r.headers` is
 * the request's own record, which this completes.
 */
async function exchangeOf(
  opts: ClientOptions,
  r: OutgoingRequest,
  token: string | null | undefined,
): Promise<HttpResponse> {
  const { method, url, headers, body } = r;
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
      // a read was asked twice (transport.ts), a write once
      const twice = method === 'GET' || method === 'HEAD' ? ', asked twice' : '';
      throw new TargetError(
        err.phase === 'body'
          ? `${what}: the response body did not arrive within ${opts.timeoutMs} ms${twice} (--timeout)`
          : `${what}: no answer within ${opts.timeoutMs} ms${twice} (--timeout)`,
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
  return res;
}

/** The guards of a request the suite is about to send (request-guard.ts). */
function guard(opts: ClientOptions, method: string, url: string): void {
  guardSuiteRequest(method, url);
  if (opts.surface) guardCoreSurface(opts.surface, method, url, relativePath(opts, url));
}

/**
 * What openapi-fetch builds for each call and hands to `fetch`: the URL, method, headers and body
 * it serialised, and nothing of a WHATWG Request (a signal, a body stream), which the typed
 * client's fetch below never needs. Building a real Request per call, then a second one with the
 * combined signal, and sending it through fetch cost the suite's threads about a tenth of their
 * CPU in a profile of the mutation run.
 */
class TypedRequest {
  readonly url: string;
  readonly method: string;
  /** lower-case names, as Headers gives them; sent once, completed by typedFetch */
  readonly headers: Record<string, string> = {};
  readonly body: string | null;
  constructor(url: string, init: { method?: string; headers?: HeadersInit; body?: unknown }) {
    this.url = url;
    this.method = (init.method ?? 'GET').toUpperCase();
    // openapi-fetch hands over the Headers it merged: read, not copied
    (init.headers instanceof Headers ? init.headers : new Headers(init.headers)).forEach((v, k) => {
      this.headers[k] = v;
    });
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      throw new TypeError(`${this.method} ${url}: the typed client sends JSON bodies only`);
    }
    this.body = init.body ?? null;
  }
}

/** The typed client's fetch: the request through exchangeOf, its answer handed back as a Response. */
async function typedFetch(opts: ClientOptions, request: TypedRequest): Promise<Response> {
  guard(opts, request.method, request.url);
  const token = await opts.token();
  const headers = request.headers;
  // what fetch asked for when the typed client went through it; redirects are not followed
  // (the transport never follows them: a redirect to another origin would carry the token)
  if (headers.accept === undefined) headers.accept = '*/*';
  const res = await exchangeOf(
    opts,
    { method: request.method, url: request.url, headers, body: request.body ?? undefined },
    token,
  );
  if (res.status < 200) {
    // the Response class carries no 1xx status, and a 1xx is never a final answer
    throw new TargetError(
      `${request.method} ${request.url}: the target answered with ${res.status} as its final answer`,
    );
  }
  return new Response(NULL_BODY_STATUSES.has(res.status) ? null : res.text, {
    status: res.status,
    headers: res.headers,
  });
}

/** An openapi-fetch client whose requests are sent, recorded and checked as rawRequest's are. */
export function makeClient<Paths extends object>(opts: ClientOptions): Client<Paths> {
  return createClient<Paths>({
    baseUrl: opts.baseUrl,
    Request: TypedRequest as unknown as typeof Request,
    fetch: (request: Request) => typedFetch(opts, request as unknown as TypedRequest),
  });
}

/** An untyped request, sent, recorded and checked as the typed client's are (exchangeOf). */
export async function rawRequest(opts: ClientOptions, path: string, init: RawInit = {}): Promise<RawResponse> {
  const token = init.token !== undefined ? init.token : await opts.token();
  const url = /^https?:\/\//.test(path)
    ? path
    : `${opts.baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  const method = (init.method ?? 'GET').toUpperCase();
  guard(opts, method, url);
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
  const res = await exchangeOf(opts, { method, url, headers, body }, token);
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
