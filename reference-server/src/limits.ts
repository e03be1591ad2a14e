// Request limits (architecture section 2): body over 10 MB → 413, URL over 10,000 characters → 414.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_URL_CHARS = 10_000;

// REQ: LIM-001
export function urlLengthLimit(max = MAX_URL_CHARS): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const target = url.pathname.length + url.search.length;
    if (target > max) throw new ApiError(414, 'UriTooLong', `The request URL is longer than ${max} characters.`);
    await next();
  };
}

// REQ: LIM-001
export function bodySizeLimit(max = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: max,
    onError: () => {
      throw new ApiError(413, 'PayloadTooLarge', `The request body is larger than ${max} bytes.`);
    },
  });
}
