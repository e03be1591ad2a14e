// One error shape for every undocumented failure: RFC 9457 problem details (architecture section 2).
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { own } from './own.js';

// REQ: GEN-003
export type ProblemCode =
  | 'UnknownDomain'
  | 'RecordNotFound'
  | 'InvalidScheduleDomain'
  | 'Forbidden'
  | 'Unauthenticated'
  | 'MalformedRequest'
  | 'UnknownColumn'
  | 'InvalidFilter'
  | 'PayloadTooLarge'
  | 'UriTooLong'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'Conflict'
  | 'InternalError'
  /** provider-state protocol 1.1.0: a fixture this implementation cannot have by design (501) */
  | 'FixtureCannotExist';

/** Titles are the HTTP reason phrases; the `code` says what went wrong. */
export const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

/** Problem type: `about:blank` (RFC 9457 section 4.2.1); the stable machine name is in `code`. */
const PROBLEM_TYPE = 'about:blank';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly detail: string;
  constructor(status: number, code: ProblemCode, detail: string) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

export function problemBody(status: number, code: ProblemCode, detail: string): Problem {
  return { type: PROBLEM_TYPE, title: own(REASONS, status) ?? 'Error', status, detail, code };
}

/** A problem+json response (a JSON body, like every other answer). */
// REQ: GEN-001
export function problem(c: Context, status: number, code: ProblemCode, detail: string): Response {
  return c.body(JSON.stringify(problemBody(status, code, detail)), status as ContentfulStatusCode, {
    'Content-Type': 'application/problem+json',
  });
}

/** A documented bare-JSON-string body (e.g. HTTP 500 "Object reference not set..."). */
export function jsonString(c: Context, status: number, text: string): Response {
  return c.body(JSON.stringify(text), status as ContentfulStatusCode, {
    'Content-Type': 'application/json; charset=UTF-8',
  });
}

/** Thrown by a handler to answer with a documented non-problem response (e.g. a JSON string 500). */
export class ResponseError extends Error {
  readonly response: (c: Context) => Response;
  constructor(response: (c: Context) => Response, message = 'documented error response') {
    super(message);
    this.name = 'ResponseError';
    this.response = response;
  }
}

export type ErrorLogger = (entry: Record<string, unknown>) => void;

/** app.onError: ApiError → its problem; anything else → 500 problem without a stack (logged). */
export function makeErrorHandler(log: ErrorLogger) {
  return (err: unknown, c: Context): Response => {
    if (err instanceof ApiError) return problem(c, err.status, err.code, err.detail);
    if (err instanceof ResponseError) return err.response(c);
    // Hono's own HTTPException (e.g. from a middleware) keeps its status, in our shape.
    const status = (err as { status?: unknown })?.status;
    if (typeof status === 'number' && status >= 400 && status < 500 && (err as Error)?.name === 'HTTPException') {
      return problem(
        c,
        status,
        status === 413 ? 'PayloadTooLarge' : 'MalformedRequest',
        (err as Error).message || 'Bad request.',
      );
    }
    // The client went away while its body was being read (node: 'aborted' / ECONNRESET): nobody
    // reads the answer; not a server error.
    const ecode = (err as { code?: unknown })?.code;
    if (
      (err instanceof Error && err.message === 'aborted') ||
      ecode === 'ECONNRESET' ||
      ecode === 'ERR_STREAM_PREMATURE_CLOSE'
    ) {
      log({ level: 'warn', msg: 'client aborted the request', method: c.req.method, path: c.req.path });
      return problem(c, 400, 'MalformedRequest', 'The request body was not received completely.');
    }
    log({
      level: 'error',
      msg: 'unhandled error',
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return problem(c, 500, 'InternalError', 'An unexpected error occurred on the server.');
  };
}

export function notFoundHandler(c: Context): Response {
  return problem(c, 404, 'NotFound', `No route for ${c.req.method} ${c.req.path}.`);
}
