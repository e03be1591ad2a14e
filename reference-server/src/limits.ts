// Request limits (architecture section 2): body over 10 MB → 413, URL over 10,000 characters → 414.
import type { Duplex } from 'node:stream';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError, problemBody, REASONS, type ProblemCode } from './errors.js';
import { own } from './own.js';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_URL_CHARS = 10_000;

/** An absolute URL whose path and query (group 1) hold only characters the URL parser keeps as
 * they are: parsing does not make them longer (dot segments, an empty query only shorten them). */
const PLAIN_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*(\/[A-Za-z0-9\-._~!$&()*+,;=:@/?%[\]]*)$/;

/** ApiError 414 UriTooLong when the request target (path and query) of `raw` is over `max`. */
// REQ: LIM-001
export function checkUrlLength(raw: string, max = MAX_URL_CHARS): void {
  // Fast path: the path and query as they are in the URL are within the limit and cannot grow
  // when parsed, so the parsed ones are within it too. Parsing the URL cost more than the rest
  // of this check.
  const plain = PLAIN_URL.exec(raw);
  if (plain && plain[1]!.length <= max) return;
  const url = new URL(raw);
  const target = url.pathname.length + url.search.length;
  if (target > max) throw new ApiError(414, 'UriTooLong', `The request URL is longer than ${max} characters.`);
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
 * (node's default of 16 KB refused a long URL plus a long header with 431). */
export const MAX_HEADER_BYTES = 64 * 1024;

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
