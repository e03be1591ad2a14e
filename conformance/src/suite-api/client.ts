// The typed HTTP client of the suite: openapi-fetch plus one middleware that adds the token,
// applies the per-request timeout, records every exchange into the current test's log and runs
// the generic checks (generic-checks.ts) on every response.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { Bindings } from './bindings.js';
import type { GenericChecker } from './generic-checks/checker.js';
import { GENERIC_REQUIREMENTS } from './generic-checks/checks.js';
import type { Finding, GenericCode, Violation } from './generic-checks/types.js';
import { describeError, TargetError } from '../errors.js';

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

/** Largest response body the client reads (bytes after content decoding). A larger one, or a
 * decompression bomb, ends the request as a TargetError instead of filling memory. Default 32 MB;
 * env CONFORMANCE_MAX_RESPONSE_BYTES. */
const MAX_RESPONSE_BYTES = (() => {
  const v = Number(process.env.CONFORMANCE_MAX_RESPONSE_BYTES);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : 32 * 1024 * 1024;
})();

/**
 * Reads a response body as text (UTF-8, like Response.text()), at most `max` bytes: beyond that
 * the body is cancelled and a TargetError names the limit. Errors while reading (a reset, a
 * timeout of the request's signal, bad content encoding) propagate.
 */
export async function readBodyCapped(response: Response, what: string, max = MAX_RESPONSE_BYTES): Promise<string> {
  const tooLarge = (n: string) =>
    new TargetError(
      `${what}: the response body (${n}) is larger than the client reads (${max} bytes; CONFORMANCE_MAX_RESPONSE_BYTES)`,
    );
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (!response.headers.has('content-encoding') && Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes announced`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${max} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

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
  /** The token to send; null or undefined = no credentials. May be async (the admin token is set up lazily). */
  token: () => string | null | undefined | Promise<string | null | undefined>;
  /** Aborts pending requests (the test's signal: aborted when the test times out). */
  signal?: AbortSignal;
}

const REDACTED = '<redacted>';

function conformanceMiddleware(opts: ClientOptions): Middleware {
  const pending = new Map<string, { t0: number; exchange: Exchange }>();
  const basePath = new URL(opts.baseUrl).pathname.replace(/\/+$/, '');
  const tokenHeader = opts.bindings.tokenHeader.toLowerCase();

  return {
    async onRequest({ request, id }) {
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
        throw new TargetError(
          `${what}: the target answered with ${response.status}, which is not an HTTP status (100-599)`,
        );
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
      ex.ms = p ? Math.round(performance.now() - p.t0) : 0;
      ex.status = response.status;
      ex.responseHeaders = Object.fromEntries(response.headers.entries());
      ex.responseBody = truncate(text);
      if (opts.checker) {
        const url = new URL(request.url);
        let rel = url.pathname;
        if (basePath && rel.startsWith(basePath)) rel = rel.slice(basePath.length) || '/';
        const r = opts.checker.check({
          method: request.method,
          url: request.url,
          path: rel,
          status: response.status,
          contentType: response.headers.get('content-type'),
          bodyText: text,
        });
        ex.operationId = r.operation?.operationId;
        for (const c of r.checked) opts.log.checked[c]++;
        opts.log.violations.push(...r.violations);
        opts.log.findings.push(...r.findings);
      }
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
  const client = createClient<Paths>({ baseUrl: opts.baseUrl });
  client.use(conformanceMiddleware(opts));
  return client;
}

let rawIds = 0;

/** An untyped request through the same middleware (recorded and checked). */
export async function rawRequest(opts: ClientOptions, path: string, init: RawInit = {}): Promise<RawResponse> {
  const mw = conformanceMiddleware({
    ...opts,
    token: init.token !== undefined ? () => init.token : opts.token,
  });
  const { token: _t, ...rest } = init;
  const url = /^https?:\/\//.test(path)
    ? path
    : `${opts.baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
  const headers = new Headers(rest.headers);
  if (typeof rest.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  let request = new Request(url, { ...rest, headers });
  const id = `raw-${++rawIds}`;
  const params = { request, schemaPath: path, params: {}, id, options: {} as any };
  const r = await mw.onRequest!(params as any);
  if (r instanceof Request) request = r;
  let response: Response;
  try {
    response = await fetch(request);
  } catch (error) {
    const e = mw.onError!({ ...params, request, error } as any);
    throw e instanceof Error ? e : error;
  }
  const read = await mw.onResponse!({ ...params, request, response } as any);
  if (read instanceof Response) response = read;
  const text = await response.text();
  let json: unknown;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, headers: response.headers, text, json };
}

function truncate(s: string): string {
  return s.length > MAX_RECORDED_BODY
    ? `${s.slice(0, MAX_RECORDED_BODY)}… [${s.length - MAX_RECORDED_BODY} more characters]`
    : s;
}
