// The suite's HTTP transport: undici's request API (the library Node's own fetch is built on, and
// already installed through testcontainers) on one keep-alive pool per worker thread. A core run
// makes about 3,300 requests; through fetch each one built WHATWG Request, Response, Headers and
// stream objects and an AbortSignal.any chain: measured on this 2-core machine against the
// reference's /health, 450 µs of suite CPU per request through fetch as the client used it, 116 µs
// through undici.request. Redirects are not followed (undici.request never follows them).
import { Agent, request } from 'undici';
import zlib from 'node:zlib';
import { pipeline, type Readable } from 'node:stream';
import { describeError, TargetError } from '../errors.js';
import { spooled } from '../traffic/spool.js';

/** Largest response body the client reads (bytes after content decoding). A larger one, or a
 * decompression bomb, ends the request as a TargetError instead of filling memory. Default 32 MB;
 * env CONFORMANCE_MAX_RESPONSE_BYTES. */
const MAX_RESPONSE_BYTES = (() => {
  const v = Number(process.env.CONFORMANCE_MAX_RESPONSE_BYTES);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : 32 * 1024 * 1024;
})();

export interface HttpRequest {
  method: string;
  url: string;
  /** lower-case names */
  headers: Record<string, string>;
  body?: string;
  /** the whole exchange, body included, must end within this */
  timeoutMs: number;
  /** aborts the request (the test's signal: aborted when the test times out) */
  signal?: AbortSignal;
  /** most bytes of body read (after decoding a content encoding); default MAX_RESPONSE_BYTES */
  maxBytes?: number;
}

export interface HttpResponse {
  status: number;
  /** lower-case names; repeated headers joined with ", " as fetch's Headers does */
  headers: Record<string, string>;
  text: string;
}

/** Where a request failed: no answer (connection, headers) or while its body was read. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(
    message: string,
    readonly phase: 'request' | 'body',
    readonly timedOut: boolean,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The abort signal of one exchange: its own time limit, or the caller's signal, whichever comes
 * first. One timer and one controller (AbortSignal.timeout with AbortSignal.any cost a timer, two
 * signals and their listeners per request: a tenth of the transport's CPU in a profile). */
function deadline(ms: number, outer?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  const onAbort = () => ac.abort(outer?.reason);
  let unlisten = () => {};
  if (outer?.aborted) onAbort();
  else if (outer) unlisten = onAbortOf(outer, onAbort);
  return {
    signal: ac.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      unlisten();
    },
  };
}

/** The callbacks waiting for each caller's signal (a test's), under one listener per signal: a test
 * with more than ten requests in flight gave its signal more than ten listeners, and Node printed
 * MaxListenersExceededWarning for a leak there was not. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

function onAbortOf(signal: AbortSignal, fn: () => void): () => void {
  let set = waiting.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    signal.addEventListener('abort', () => callbacks.forEach((f) => f()), { once: true });
    waiting.set(signal, callbacks);
    set = callbacks;
  }
  set.add(fn);
  return () => set.delete(fn);
}

/** One pool per worker thread: kept-alive connections serve every test of the worker. */
const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000 });

/** Errors of a request sent on a kept-alive connection the server had just closed. */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);
/** Methods whose request may be sent again after such an error (reads). */
const IDEMPOTENT = new Set(['GET', 'HEAD']);

/** Bodies above this go through fetch: a server that answers early (413) and closes the
 * connection while the upload is still going was reported by undici.request as "other side closed",
 * while fetch hands on the answer (the reference's size-limit test met it). */
const FETCH_ABOVE_BYTES = 1024 * 1024;

/** Sends one request and reads its answer (status, headers, body text) whole; recorded as HAR
 * when the run records (`run --record-har`, traffic/spool.ts). */
export function send(r: HttpRequest): Promise<HttpResponse> {
  return spooled(r, sendOnce);
}

async function sendOnce(r: HttpRequest): Promise<HttpResponse> {
  if (r.body !== undefined && r.body.length > FETCH_ABOVE_BYTES) return sendWithFetch(r);
  const d = deadline(r.timeoutMs, r.signal);
  try {
    let res: Awaited<ReturnType<typeof request>>;
    const ask = () =>
      request(r.url, {
        method: r.method as 'GET',
        headers: r.headers,
        body: r.body,
        signal: d.signal,
        dispatcher: agent,
        // the deadline above covers the whole exchange; these would only cut it shorter
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    try {
      try {
        res = await ask();
      } catch (e) {
        // A kept-alive connection the server closed as idle just when this request went out on it
        // ("other side closed" before any answer; the server never read the request): a loaded
        // machine stretches that race. A read is asked once more on a fresh connection; a write
        // is not, since the suite cannot know whether it was applied.
        if (!STALE_CONNECTION.has(codeOf(e) ?? '') || !IDEMPOTENT.has(r.method.toUpperCase()) || d.signal.aborted)
          throw e;
        res = await ask();
      }
    } catch (e) {
      throw new TransportError(describeError(e), 'request', d.timedOut(), codeOf(e));
    }
    const headers = flatHeaders(res.headers);
    try {
      const bytes = await readCapped(res.body, headers, r.maxBytes ?? MAX_RESPONSE_BYTES, `${r.method} ${r.url}`);
      return { status: res.statusCode, headers, text: new TextDecoder().decode(bytes) };
    } catch (e) {
      res.body.destroy();
      if (e instanceof TargetError) throw e;
      throw new TransportError(describeError(e), 'body', d.timedOut(), codeOf(e));
    }
  } finally {
    d.done();
  }
}

async function sendWithFetch(r: HttpRequest): Promise<HttpResponse> {
  const d = deadline(r.timeoutMs, r.signal);
  try {
    let res: Response;
    try {
      res = await fetch(r.url, {
        method: r.method,
        headers: r.headers,
        body: r.body,
        redirect: 'manual',
        signal: d.signal,
      });
    } catch (e) {
      throw new TransportError(describeError(e), 'request', d.timedOut(), codeOf(e));
    }
    const headers = Object.fromEntries(res.headers.entries());
    try {
      const text = await readBodyCapped(res, `${r.method} ${r.url}`, r.maxBytes ?? MAX_RESPONSE_BYTES);
      return { status: res.status, headers, text };
    } catch (e) {
      if (e instanceof TargetError) throw e;
      throw new TransportError(describeError(e), 'body', d.timedOut(), codeOf(e));
    }
  } finally {
    d.done();
  }
}

/**
 * Reads a response body as text (UTF-8, like Response.text()), at most `max` bytes: beyond that
 * the body is cancelled and a TargetError names the limit. Errors while reading (a reset, a
 * timeout of the request's signal, bad content encoding) propagate.
 */
async function readBodyCapped(response: Response, what: string, max = MAX_RESPONSE_BYTES): Promise<string> {
  const tooLarge = (n: string) => bodyTooLarge(what, n, max);
  const announced = announcedTooLarge(
    response.headers.get('content-encoding'),
    response.headers.get('content-length'),
    max,
  );
  if (announced) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(announced);
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

/** The error of a body over the limit (`n`: how much there was). */
function bodyTooLarge(what: string, n: string, max: number): TargetError {
  return new TargetError(
    `${what}: the response body (${n}) is larger than the client reads (${max} bytes; CONFORMANCE_MAX_RESPONSE_BYTES)`,
  );
}

/** "N bytes announced" when an unencoded body declares more than `max` bytes; else undefined. */
function announcedTooLarge(encoding: string | null | undefined, length: string | null | undefined, max: number) {
  const declared = Number(length ?? NaN);
  return !encoding && Number.isFinite(declared) && declared > max ? `${declared} bytes announced` : undefined;
}

function codeOf(e: unknown): string | undefined {
  const x = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = x?.code ?? x?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The decoder of a Content-Encoding (as fetch decodes them); undefined for identity or unknown. */
function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'deflate':
      return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return undefined;
  }
}

/**
 * The body's bytes, decoded from its content encoding, at most `max`: beyond that (or a declared
 * Content-Length beyond it) a TargetError names the limit, so a huge body or a decompression bomb
 * ends the request instead of filling memory.
 */
async function readCapped(body: Readable, headers: Record<string, string>, max: number, what: string): Promise<Buffer> {
  const tooLarge = (n: string) => bodyTooLarge(what, n, max);
  const encoding = headers['content-encoding'];
  const announced = announcedTooLarge(encoding, headers['content-length'], max);
  if (announced) throw tooLarge(announced);
  const decoder = decoderFor(encoding);
  // pipeline: an error of the body (a reset, the timeout) ends the decoder's reading too
  const source: AsyncIterable<Buffer> = decoder ? pipeline(body, decoder, () => undefined) : body;
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of source) {
      n += chunk.byteLength;
      if (n > max) throw tooLarge(`more than ${max} bytes`);
      chunks.push(chunk);
    }
  } finally {
    if (decoder && n > max) decoder.destroy();
  }
  return Buffer.concat(chunks);
}
