// Helpers shared by the controls: rewrites of error answers, of every JSON body, of file columns
// and of names that a binding maps.
import type { Control, FaultContext, Next } from '../fault.js';
import { errorsOnly, operationsRewritten, rewritesOnly, operationOf, type Op, type Operation } from '../operations.js';
import {
  bodyJson,
  cloneRequest,
  cloneResponse,
  isOk,
  keysOf,
  withRequestJson,
  withResponseJson,
  type Json,
  type ProxyRequest,
  type ProxyResponse,
} from '../exchange.js';

export type Rewrite = NonNullable<Control['rewrite']>;

/** The quote that allows another status or body for every error answer section 7 does not show. */
export const NOT_SHOWN =
  'Section 7: "Error format and status codes for all other failures (unknown domain, missing record, invalid schedule domain, permission denied, unauthenticated): not shown."';

/** The `code` of a problem-details answer (undefined for other bodies). */
export function problemCode(res: ProxyResponse): string | undefined {
  if (isOk(res)) return undefined;
  const b = bodyJson(res);
  return b && typeof b === 'object' && !Array.isArray(b) && typeof b.code === 'string' ? b.code : undefined;
}

/** A problem-details answer with another status (the body's `status` member follows). */
export function restatus(res: ProxyResponse, status: number): ProxyResponse {
  const b = bodyJson(res);
  if (b && typeof b === 'object' && !Array.isArray(b) && typeof b.status === 'number')
    return withResponseJson(res, { ...b, status }, status);
  return cloneResponse(res, { status });
}

/**
 * `rewrite` on `ops` only: every other request goes to the upstream untouched (and the control then
 * runs only against the tests that call `ops`: operations.ts).
 */
export function only(ops: readonly Op[], rewrite: Rewrite): Rewrite {
  return rewritesOnly(ops, (req, ctx, next) =>
    ops.includes(operationOf(req).op) ? rewrite(req, ctx, next) : next(req),
  );
}

/** Error answers for which `when` holds are replaced by `to(answer)`; everything else passes through. */
export function onError(
  when: (res: ProxyResponse, req: ProxyRequest, route: Operation) => boolean,
  to: (res: ProxyResponse, req: ProxyRequest, route: Operation) => ProxyResponse,
): Rewrite {
  return errorsOnly(async (req, _ctx, next) => {
    const res = await next(req);
    if (isOk(res)) return res;
    const route = operationOf(req);
    return when(res, req, route) ? to(res, req, route) : res;
  });
}

/** Problem answers with one of `codes` get `status` (on `ops` only, when given). */
export function recode(codes: string[], status: number, ops?: Op[]): Rewrite {
  const rewrite = onError(
    (res, _req, route) => codes.includes(problemCode(res) ?? '') && (!ops || ops.includes(route.op)),
    (res) => restatus(res, status),
  );
  return ops ? rewritesOnly(ops, rewrite) : rewrite;
}

/** Every JSON answer's body rewritten by `fn` (successful or not). */
export function everyJsonBody(fn: (body: Json, req: ProxyRequest, res: ProxyResponse) => Json): Rewrite {
  return async (req, _ctx, next) => {
    const res = await next(req);
    const body = bodyJson(res);
    if (body === undefined) return res;
    return withResponseJson(res, fn(body, req, res), res.status, res.headers['content-type']);
  };
}

/** The records of a successful read (`Record` or each `List` row) rewritten in place. */
function eachReadRecord(
  ops: readonly Op[],
  fn: (rec: Record<string, any>, req: ProxyRequest, route: Operation) => void,
): Rewrite {
  return rewritesOnly(ops, async (req, _ctx, next) => {
    const route = operationOf(req);
    const res = await next(req);
    if (!ops.includes(route.op) || !isOk(res)) return res;
    const body = bodyJson(res);
    if (!body || typeof body !== 'object') return res;
    const recs: any[] =
      body.Record && typeof body.Record === 'object' ? [body.Record] : Array.isArray(body.List) ? body.List : [];
    for (const r of recs) if (r && typeof r === 'object') fn(r, req, route);
    return withResponseJson(res, body);
  });
}

const FILE_READS: Op[] = ['getRecord', 'getFile', 'queryRecords', 'queryFiles', 'listAttachedFiles'];

/** A file column's value rewritten on every file read (alias-aware; nulls stay null). */
export function fileColumn(fields: string[], fn: (v: unknown, field: string) => unknown): Rewrite {
  return eachReadRecord(FILE_READS, (rec, req, route) => {
    const isFile = route.op === 'listAttachedFiles' || ('domain' in route && route.domain === 'File');
    if (!isFile) return;
    for (const f of fields)
      for (const k of keysOf(req, f)) if (k in rec && rec[k] !== null && rec[k] !== undefined) rec[k] = fn(rec[k], f);
  });
}

/** Rename query parameters: the client sends the vendor's `from` name, the upstream gets `to`; the `to` name sent by the client is ignored. */
export function renameQueryParams(ops: readonly Op[], names: Record<string, string>): Rewrite {
  return rewritesOnly(ops, (req, _ctx, next) => {
    if (!ops.includes(operationOf(req).op)) return next(req);
    const r = cloneRequest(req);
    const sent = new URLSearchParams(req.query);
    for (const ref of Object.values(names)) r.query.delete(ref);
    for (const [vendor, ref] of Object.entries(names)) for (const v of sent.getAll(vendor)) r.query.append(ref, v);
    for (const vendor of Object.keys(names)) if (!Object.values(names).includes(vendor)) r.query.delete(vendor);
    return next(r);
  });
}

/** Rename the keys of a JSON request body (`vendor → reference`); reference keys the client sends are dropped. */
export function renameBodyKeys(ops: readonly Op[], names: Record<string, string>): Rewrite {
  return rewritesOnly(ops, (req, _ctx, next) => {
    if (!ops.includes(operationOf(req).op)) return next(req);
    const b = bodyJson(req);
    if (!b || typeof b !== 'object' || Array.isArray(b)) return next(req);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(b)) {
      if (k in names) out[names[k]!] = v;
      else if (!Object.values(names).includes(k)) out[k] = v;
    }
    return next(withRequestJson(req, out));
  });
}

/** Several rewrites in a chain: the first is outermost (sees the client's request first). */
export function chain(...rewrites: Rewrite[]): Rewrite {
  const chained: Rewrite = (req, ctx, next) => {
    const step =
      (i: number): Next =>
      (r) =>
        i >= rewrites.length ? next(r) : rewrites[i]!(r, ctx, step(i + 1));
    return step(0)(req);
  };
  // the chain touches what its links touch (any operation when one of them may touch any)
  const ops = rewrites.map((r) => operationsRewritten(r));
  return ops.every((o) => o !== undefined) ? rewritesOnly(ops.flat() as Op[], chained) : chained;
}

/** Successful answers of `ops` rewritten (`fn` gets the parsed body, undefined when empty). */
export function onSuccess(
  ops: readonly Op[],
  fn: (
    res: ProxyResponse,
    body: Json | undefined,
    req: ProxyRequest,
    ctx: FaultContext,
  ) => ProxyResponse | Promise<ProxyResponse>,
): Rewrite {
  return rewritesOnly(ops, async (req, ctx, next) => {
    const res = await next(req);
    if (!ops.includes(operationOf(req).op) || !isOk(res)) return res;
    return fn(res, bodyJson(res), req, ctx);
  });
}

/** A successful answer without a body (204). */
export function noContent(res: ProxyResponse): ProxyResponse {
  const headers = { ...res.headers };
  delete headers['content-type'];
  delete headers['content-length'];
  return { status: 204, headers, body: Buffer.alloc(0) };
}
