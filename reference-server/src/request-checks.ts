// The checks every request passes before its route answers (architecture section 2), in this
// order: URL length (414), body size (413; methods that carry a body only), an undeclared method on
// a declared path (405 + Allow, before authentication: it reveals nothing but the interface's own
// routes), then a valid token for everything under /api (401).
//
// Why inside each route's handler rather than as Hono middleware: Hono calls a route's handler
// directly, and hands its answer back synchronously, only when the router matched that handler
// alone; with middleware in front it dispatches through `compose` (an async function per level),
// and @hono/node-server then takes its promise path (a close listener per request, the answer
// written from a microtask, node's request stream ending through process.nextTick). For a GET or
// HEAD every check here is synchronous, so a record read is answered in the same tick it was
// parsed (docs/benchmarks.md, "Where a record read's time goes").
import type { Context, Handler, Hono, MiddlewareHandler, Next } from 'hono';
import type { AppEnv, Deps } from './deps.js';
import { authenticate } from './auth.js';
import { checkDeclaredBodySize, checkUrlLength } from './limits.js';
import type { MethodRouter } from './routing.js';

/** Paths that need a token: what Hono's pattern '/api/*' matches ('/api' itself included). */
function needsToken(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export interface RequestChecks {
  deps: Deps;
  methods: MethodRouter;
  /** the body size limit (Hono middleware: it may read the body stream) */
  bodyLimit: MiddlewareHandler<AppEnv>;
}

/** `handler` behind the checks. */
function checked(handler: Handler<AppEnv>, checks: RequestChecks): Handler<AppEnv> {
  // after the body check: the 405 answer, the token, then the handler
  const rest = (c: Context<AppEnv>, next: Next) => {
    const refused = checks.methods.refusal(c);
    if (refused) return refused;
    if (needsToken(c.req.path)) authenticate(c, checks.deps);
    return handler(c, next);
  };
  return (c, next) => {
    checkUrlLength(c.req.url);
    const method = c.req.method;
    // no body to read: every check is synchronous, and so is the answer of a synchronous handler.
    // A body the client declares over the limit is refused all the same (413 on any operation);
    // a GET body is never read, so one sent without a length is left unread.
    if (method === 'GET' || method === 'HEAD') {
      checkDeclaredBodySize(c);
      return rest(c, next);
    }
    return (async () => {
      await checks.bodyLimit(c, async () => {
        c.res = await rest(c, next);
      });
      return c.res;
    })();
  };
}

/**
 * Makes every route registered on `app` from now on with get/post/put/delete/patch run behind
 * the checks (one handler per route: a second one would run the checks twice, so it is refused
 * at start-up), and the 404 answer too. Middleware registered with `app.use` is not wrapped.
 */
export function checkEveryRoute(app: Hono<AppEnv>, checks: RequestChecks, notFound: Handler<AppEnv>): void {
  for (const method of ['get', 'post', 'put', 'delete', 'patch'] as const) {
    const register = app[method] as (path: string, handler: Handler<AppEnv>) => Hono<AppEnv>;
    (app as unknown as Record<string, unknown>)[method] = (path: string, ...handlers: Handler<AppEnv>[]) => {
      if (typeof path !== 'string' || handlers.length !== 1)
        throw new Error(`app.${method}: one path and one handler per route (request-checks.ts wraps it)`);
      return register(path, checked(handlers[0]!, checks));
    };
  }
  const notFoundChecked = checked(notFound, checks);
  app.notFound((c) => notFoundChecked(c, async () => {}) as Response | Promise<Response>);
}
