// Request limits (architecture section 2): body over 10 MB → 413, URL over 10,000 characters → 414.
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError, problemBody, REASONS, type ProblemCode } from './errors.js';
import { own } from './own.js';
import { endAfterTurn } from './answer-batch.js';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_URL_CHARS = 10_000;

/** An absolute URL whose path and query (group 1) hold only characters the URL parser keeps as
 * they are: parsing does not make them longer (dot segments, an empty query only shorten them). */
const PLAIN_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*(\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%[\]]*)$/;

/** ApiError 414 UriTooLong when the request target (path and query) of `raw` is over `max`. */
// REQ: LIM-001
export function checkUrlLength(raw: string, max = MAX_URL_CHARS): void {
  // Fastest path: parsing writes a character as at most 9 (three UTF-8 bytes, each as %XX), so a
  // URL of at most a ninth of the limit is within it whatever it holds (a regular expression
  // over the whole URL cost 0.3 µs of a record read: docs/benchmarks.md, third session).
  if (raw.length * 9 <= max) return;
  // Fast path: the path and query as they are in the URL are within the limit and cannot grow
  // when parsed, so the parsed ones are within it too. Parsing the URL cost more than the rest
  // of this check.
  const plain = PLAIN_URL.exec(raw);
  if (plain && plain[1]!.length <= max) return;
  const url = new URL(raw);
  const target = url.pathname.length + url.search.length;
  if (target > max) throw new ApiError(414, 'UriTooLong', `The request URL is longer than ${max} characters.`);
}

/** ApiError 413 when the request declares a body (Content-Length) over `max`: for GET and HEAD,
 * whose bodies no route reads (bodySizeLimit limits the others as they are read). */
// REQ: LIM-001
export function checkDeclaredBodySize(c: Context, max = MAX_BODY_BYTES): void {
  // node's request when served by @hono/node-server (its headers object, no Headers built)
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const declared = incoming ? incoming.headers['content-length'] : c.req.header('content-length');
  if (declared !== undefined && Number(declared) > max)
    throw new ApiError(413, 'PayloadTooLarge', `The request body is larger than ${max} bytes.`);
}

// REQ: LIM-001
export function bodySizeLimit(max = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: max,
    onError: () => {
      throw new ApiError(413, 'PayloadTooLarge', `The request body is larger than ${max} bytes.`);
    },
  });
  return (c, next) => {
    const method = c.req.method;
    return method === 'GET' || method === 'HEAD' ? next() : limit(c, next);
  };
}

/** Largest request head (request line and headers) the HTTP server reads: well above the URL
 * limit, so that a URL up to 10,000 characters with ordinary headers always reaches the routes
 * (node's default of 16 KB refused a long URL plus a long header with 431). Below the 64 KB a
 * socket read delivers at once: a request line longer than the head limit overflows within the
 * read that starts it, where the refusal can still tell a long URL (414) from long headers (431);
 * at 64 KB a 100,000-character URL overflowed in its second read and was answered 431 (issue 35). */
export const MAX_HEADER_BYTES = 60 * 1024;

/**
 * `clientError` handler of the HTTP server: requests that node's HTTP parser refuses before any
 * route runs (a broken request line, bad headers or chunking, headers over node's 16 KB) are
 * answered with a problem+json body instead of node's bare status line. A request line over the
 * URL limit that node refuses as too large (HPE_HEADER_OVERFLOW) gets 414 UriTooLong, as the
 * middleware answers shorter too-long URLs; other oversized heads get 431.
 */
// REQ: LIM-001
export function clientErrorHandler(max = MAX_URL_CHARS) {
  return (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex & { bytesWritten?: number }) => {
    const inFlight = (
      socket as unknown as {
        _httpMessage?: {
          once(e: string, f: () => void): void;
          writableEnded?: boolean;
          writableFinished?: boolean;
          req?: { complete?: boolean };
        };
      }
    )._httpMessage;
    // A complete request before the bad bytes whose answer was written in full (the routes answer
    // in the tick the request was parsed: request-checks.ts): what was written is that answer,
    // not part of one, so the refusal can follow it.
    const answeredInFull = !!inFlight?.writableEnded && !!inFlight.req?.complete;
    if (err.code === 'ECONNRESET' || !socket.writable || ((socket.bytesWritten ?? 0) > 0 && !answeredInFull)) {
      socket.destroy();
      return;
    }
    let status = 400;
    let code: ProblemCode = 'MalformedRequest';
    let detail = 'The request is not valid HTTP/1.1.';
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      const head = err.rawPacket ? err.rawPacket.toString('latin1', 0, Math.min(err.rawPacket.length, max + 200)) : '';
      const eol = head.indexOf('\r\n');
      const firstLine = eol < 0 ? head : head.slice(0, eol);
      const startsRequest = /^[A-Z]+ /.test(head);
      // the request target (origin-form: path and query) is the second word of the request line
      const target = firstLine.split(' ')[1] ?? '';
      const longUrl = startsRequest ? target.length > max : / HTTP\/\d(\.\d)?$/.test(firstLine);
      if (longUrl) {
        status = 414;
        code = 'UriTooLong';
        detail = `The request URL is longer than ${max} characters.`;
      } else {
        status = 431;
        detail = 'The request headers are too large.';
      }
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      detail = 'The request was not received in time.';
    }
    const body = JSON.stringify(problemBody(status, code, detail));
    const answer = () => {
      if (!socket.writable) return void socket.destroy();
      socket.end(
        `HTTP/1.1 ${status} ${own(REASONS, status) ?? 'Error'}\r\nContent-Type: application/problem+json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      // end() flushes the answer; a socket that never drains is destroyed.
      setTimeout(() => socket.destroy(), 1000).unref();
    };
    // A complete pipelined request before the bad one is still being answered: answer it first.
    if (inFlight && !inFlight.writableFinished && inFlight.req?.complete) {
      inFlight.once('finish', answer);
      setTimeout(() => socket.destroy(), 10_000).unref();
    } else answer();
  };
}

/** Writes a problem+json answer on a response node's HTTP server created (before any route). */
function answerProblem(res: ServerResponse, status: number, code: ProblemCode, detail: string): void {
  const body = JSON.stringify(problemBody(status, code, detail));
  res.writeHead(status, {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}

/** A Host header @hono/node-server takes as it is (its own fast test). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** Whether `host` is a Host header @hono/node-server accepts (it answers others with a bare 400):
 * a plain one, or one the URL parser reads back as the same host. */
function validHost(host: string): boolean {
  if (PLAIN_HOST.test(host)) return true;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return false;
  }
  return (
    hostname.length === host.length ||
    hostname === (host.includes(':') ? host.replace(/:\d+$/, '') : host).toLowerCase()
  );
}

/** How many Host lines the request head holds. */
function hostLines(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

/** Why node's HTTP layer or @hono/node-server would refuse `req` with a bare 400, or undefined. */
function headRefusal(req: IncomingMessage): string | undefined {
  // node's parser takes a request line without a version as HTTP/0.9 and reads HTTP/2.0 as it
  // reads 1.1; neither is HTTP/1.x (the outside probe of issue 35)
  if (req.httpVersionMajor !== 1) return `The request is not HTTP/1.1 (version ${req.httpVersion}).`;
  const host = req.headers.host;
  // RFC 9112 3.2: more than one Host line is answered 400 (node keeps the first)
  if (host !== undefined && hostLines(req.rawHeaders) > 1) return 'The request has more than one Host header.';
  if (host === undefined) {
    // RFC 9112 3.2: a server answers 400 to an HTTP/1.1 request without Host
    if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) return 'The Host header is required.';
  } else if (!validHost(host)) return 'The Host header is not a valid host.';
  const target = req.url ?? '';
  if (target.charCodeAt(0) === 47) {
    const backslash = target.indexOf('\\');
    if (backslash >= 0) {
      const query = target.indexOf('?');
      if (query < 0 || backslash < query) return 'The request path must not contain a backslash.';
    }
    return undefined;
  }
  if (target === '*')
    return `The request target '*' (asterisk form) is not supported; no operation is declared for it.`;
  if (!/^http:\/\//i.test(target)) return 'The request target must be a path (origin form) or an absolute http URL.';
  try {
    new URL(target);
  } catch {
    return 'The request target is not a valid absolute URL.';
  }
  return undefined;
}

/**
 * Makes node's own answers before any route problem+json (issue 35): the bare 400 to a missing or
 * invalid Host header and to a request target that is not a path (`OPTIONS *`), and the bare 417
 * to an `Expect` other than `100-continue`. The server must be created with
 * `requireHostHeader: false` (serverOptions), so that the missing Host reaches this check.
 */
// REQ: LIM-001
export function guardRequests(server: Server): void {
  const [listener] = server.listeners('request') as RequestListener[];
  if (!listener) throw new Error('guardRequests: the server has no request listener yet');
  server.removeListener('request', listener);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refusal = headRefusal(req);
    if (refusal === undefined) {
      // the answers of this turn are written together after it (answer-batch.ts)
      endAfterTurn(res);
      return listener(req, res);
    }
    // the body (if any) is not read: the connection closes after the answer
    answerProblem(res, 400, 'MalformedRequest', refusal);
  });
  // CONNECT (a tunnel) is no operation of the interface, and its target is never a path: node
  // emits it apart from requests and, with no listener, closed the connection without a word
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(
      problemBody(400, 'MalformedRequest', 'CONNECT is not supported; no operation is declared for it.'),
    );
    socket.end(
      `HTTP/1.1 400 ${own(REASONS, 400) ?? 'Bad Request'}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 1000).unref();
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    answerProblem(
      res,
      417,
      'MalformedRequest',
      `The expectation '${String(req.headers.expect).slice(0, 100)}' cannot be met; only 100-continue is supported.`,
    );
  });
}
