// Helpers shared by the fault definitions.
import type { Fault, FaultContext, Next } from '../fault.js';
import {
  operationsRewritten,
  rewritesOnly,
  operationOf,
  FILE_READS,
  type Op,
  type OperationOf,
} from '../operations.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  problem,
  withResponseJson,
  type Json,
  type LinkBody,
  type ProxyRequest,
  type ProxyResponse,
} from '../exchange.js';

export type RouteOf<O extends Op> = OperationOf<O>;

/** The operations that read records (file records too: the file reads and the attached-files listing). */
export const READS = ['getRecord', 'getFile', 'queryRecords', 'queryFiles', 'listAttachedFiles'] as const;

/** The record queries (GET /api/{domain}/Query, GET /api/File/Query among them). */
export const QUERIES = ['queryRecords', 'queryFiles'] as const;

/** A rewrite of file reads only (GET /api/File/{id}, /api/File/Query, /api/{domain}/{id}/Files). */
export function onFileRead(
  fn: (req: ProxyRequest, ctx: FaultContext, next: Next) => Promise<ProxyResponse>,
): Fault['rewrite'] {
  return on(FILE_READS, (req, _route, ctx, next) => fn(req, ctx, next));
}

/** A rewrite that applies only to the listed operations; everything else passes through (the fault
 * runner runs such a fault only against the tests that call them: operations.ts). */
export function on<O extends Op>(
  ops: readonly O[],
  fn: (req: ProxyRequest, route: RouteOf<O>, ctx: FaultContext, next: Next) => Promise<ProxyResponse>,
): Fault['rewrite'] {
  return rewritesOnly(ops, (req, ctx, next) => {
    const route = operationOf(req);
    if (!(ops as readonly string[]).includes(route.op)) return next(req);
    return fn(req, route as RouteOf<O>, ctx, next);
  });
}

/** Request-only rewrite on the listed operations. */
export function onRequest<O extends Op>(
  ops: readonly O[],
  fn: (req: ProxyRequest, route: RouteOf<O>, ctx: FaultContext) => ProxyRequest | Promise<ProxyRequest>,
): Fault['rewrite'] {
  return on(ops, async (req, route, ctx, next) => next(await fn(req, route, ctx)));
}

/** The listed operations ignore query parameter `name`: it is dropped before forwarding (when `applies`, by default whenever it is sent). */
export function ignoreQueryParam<O extends Op>(
  ops: readonly O[],
  name: string,
  applies: (req: ProxyRequest) => boolean = (req) => req.query.has(name),
): Fault['rewrite'] {
  return onRequest(ops, (req) => {
    if (!applies(req)) return req;
    const r = cloneRequest(req);
    r.query.delete(name);
    return r;
  });
}

/** The listed operations default query parameter `name` to `value` when the client leaves it out
 * (and `applies` holds of the request). */
export function defaultQueryParam<O extends Op>(
  ops: readonly O[],
  name: string,
  value: string,
  applies: (req: ProxyRequest) => boolean = () => true,
): Fault['rewrite'] {
  return onRequest(ops, (req) => {
    if (req.query.has(name) || !applies(req)) return req;
    const r = cloneRequest(req);
    r.query.set(name, value);
    return r;
  });
}

/** Response-only rewrite of the JSON body of successful answers of the listed operations (mutate `body` or return a new one). */
export function onJsonResponse<O extends Op>(
  ops: readonly O[],
  fn: (
    body: Json,
    req: ProxyRequest,
    route: RouteOf<O>,
    ctx: FaultContext,
    res: ProxyResponse,
  ) => Json | void | Promise<Json | void>,
): Fault['rewrite'] {
  return on(ops, async (req, route, ctx, next) => {
    const res = await next(req);
    if (!isOk(res)) return res;
    const body = bodyJson(res);
    if (body === undefined) return res;
    const out = await fn(body, req, route, ctx, res);
    return withResponseJson(res, out === undefined ? body : out);
  });
}

export function tokenOf(req: ProxyRequest, ctx: FaultContext): string | undefined {
  const t = req.headers[ctx.tokenHeader];
  return t === undefined || t === '' ? undefined : t;
}

export function withToken(req: ProxyRequest, ctx: FaultContext, token: string): ProxyRequest {
  return { ...req, headers: { ...req.headers, [ctx.tokenHeader]: token } };
}

/** One record's columns read by the administrator (undefined when it cannot be read). */
export async function readRecord(
  ctx: FaultContext,
  domain: string,
  id: number | string,
  columns: string[],
): Promise<Record<string, any> | undefined> {
  const r = await ctx.call(
    'GET',
    `/api/${encodeURIComponent(domain)}/${id}?columns=${encodeURIComponent(columns.join(','))}`,
  );
  return r.status === 200 && r.json && typeof r.json.Record === 'object' ? r.json.Record : undefined;
}

export interface ProposalFacts {
  ProposalType?: string | null;
  StatusCode?: string | null;
  MemberID?: number | null;
  ApplicantName?: string | null;
  PendingExpiryChange?: unknown;
}

export function readProposal(ctx: FaultContext, proposalId: number | string): Promise<ProposalFacts | undefined> {
  return readRecord(ctx, 'Proposal', proposalId, [
    'ProposalType',
    'StatusCode',
    'MemberID',
    'ApplicantName',
    'PendingExpiryChange',
  ]);
}

export function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true' || v === 'True' || v === 'Y' || v === 'Yes';
}

export const NON_MODIFIABLE_STATUSES = ['B', 'R', '0'];

export interface ScheduleResult {
  IsSuccessful: boolean;
  RecordID: number;
  OrderNumber: number | null;
  Message: string;
  Warnings: null | unknown[];
}

export function okResult(recordId: number, order: number | null, message: string): ScheduleResult {
  return { IsSuccessful: true, RecordID: recordId, OrderNumber: order, Message: message, Warnings: null };
}

export function failedResult(recordId: number, order: number | null, message: string): ScheduleResult {
  return { IsSuccessful: false, RecordID: recordId, OrderNumber: order, Message: message, Warnings: null };
}

export type Kind = 'Inserts' | 'Updates' | 'Deletes';
export const KINDS: Kind[] = ['Inserts', 'Updates', 'Deletes'];

export interface UpsertBody {
  Inserts: Array<{ Fields?: Record<string, unknown> }>;
  Updates: Array<{ ID: number; Fields?: Record<string, unknown> }>;
  Deletes: Array<{ ID: number }>;
}

/** The UpsertMulti body with missing arrays as empty ones (undefined when not a JSON object). */
export function upsertBody(req: ProxyRequest): UpsertBody | undefined {
  const b = bodyJson(req);
  if (!b || typeof b !== 'object' || Array.isArray(b)) return undefined;
  const arr = (k: Kind) => (Array.isArray(b[k]) ? b[k] : []);
  return { Inserts: arr('Inserts'), Updates: arr('Updates'), Deletes: arr('Deletes') };
}

/** A fresh fake record ID per proxy, far above what a test database reaches. */
export function fakeId(ctx: FaultContext): number {
  const n = (ctx.memory.get('fakeId') ?? 900_000) + 1;
  ctx.memory.set('fakeId', n);
  return n;
}

/** Every UpsertMulti item answered as successful (a batch a buggy server claims it applied). */
export function allSuccessful(body: UpsertBody, ctx: FaultContext): Record<Kind, ScheduleResult[]> {
  return {
    Inserts: body.Inserts.map((_, i) => {
      const id = fakeId(ctx);
      return okResult(id, i, `Inserted schedule with id ${id} successfully.`);
    }),
    Updates: body.Updates.map((u, i) => okResult(u.ID, i, `Updated schedule with id ${u.ID} successfully.`)),
    Deletes: body.Deletes.map((d, i) => okResult(d.ID, i, `Deleted schedule with id ${d.ID} successfully.`)),
  };
}

/** A schedule answer that refuses because the proposal cannot be modified. */
export function isNotModifiableAnswer(res: ProxyResponse): boolean {
  const b = bodyJson(res);
  const results: any[] =
    b && typeof b === 'object'
      ? 'IsSuccessful' in b
        ? [b]
        : KINDS.flatMap((k) => (Array.isArray(b[k]) ? b[k] : []))
      : [];
  return results.some((r) => r && r.IsSuccessful === false && /cannot (be )?modif/i.test(String(r.Message ?? '')));
}

// ---------------------------------------------------------------------------------------------
// Hidden schedule records (a delete the server performed differently than the upstream did)

/** Remember that a record is gone (as the imitated server would have deleted it). */
export function hideRecord(ctx: FaultContext, domain: string, id: number): void {
  const set: Set<string> = ctx.memory.get('hidden') ?? new Set();
  set.add(`${domain}/${id}`);
  ctx.memory.set('hidden', set);
}

function isHidden(ctx: FaultContext, domain: string, id: number | string): boolean {
  const set: Set<string> | undefined = ctx.memory.get('hidden');
  return !!set && set.has(`${domain}/${Number(id)}`);
}

/**
 * Reads of hidden records: GET answers 404 RecordNotFound, queries leave them out (by their key
 * column `<Domain>ID` when the row carries it), Reinstate answers 404 (nothing to reinstate).
 */
async function hiddenAware(
  req: ProxyRequest,
  ctx: FaultContext,
  next: Next,
  otherwise: (req: ProxyRequest) => Promise<ProxyResponse>,
): Promise<ProxyResponse> {
  const set: Set<string> | undefined = ctx.memory.get('hidden');
  if (!set || set.size === 0) return otherwise(req);
  const route = operationOf(req);
  if ((route.op === 'getRecord' || route.op === 'getFile') && isHidden(ctx, route.domain, route.id)) {
    return problem(404, 'RecordNotFound', `${route.domain} with ID ${Number(route.id)} was not found.`);
  }
  if (route.op === 'reinstateSchedule' && isHidden(ctx, route.domain, route.scheduleId)) {
    return withResponseJson(
      { status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0) },
      failedResult(
        0,
        null,
        `${route.domain} schedule with id ${Number(route.scheduleId)} was not found on Proposal with ID# ${Number(route.proposalId)}.`,
      ),
    );
  }
  if (route.op === 'queryRecords' || route.op === 'queryFiles') {
    const res = await otherwise(req);
    if (!isOk(res)) return res;
    const body = bodyJson(res);
    if (!body || !Array.isArray(body.List)) return res;
    const key = `${route.domain}ID`;
    body.List = body.List.filter((r: any) => !(r && key in r && isHidden(ctx, route.domain, r[key])));
    return withResponseJson(res, body);
  }
  return otherwise(req);
}

/** The domains a link's child may be in (spec 2.3). */
export const LINKABLE = ['Contact', 'File'];

/** The body of a link request, when it is a JSON object. */
export function linkBody(req: ProxyRequest): LinkBody | undefined {
  const b = bodyJson(req);
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as LinkBody) : undefined;
}

/** The operations hiddenAware answers itself; every other request goes to the wrapped rewrite. */
const HIDDEN_READS: readonly Op[] = ['getRecord', 'getFile', 'queryRecords', 'queryFiles', 'reinstateSchedule'];

/**
 * Wrap a rewrite so that records it hid stay hidden on later reads. Tagged as touching the wrapped
 * rewrite's operations and the reads of hiddenAware (untagged when the wrapped rewrite is).
 */
export function hiding(rewrite: Fault['rewrite']): Fault['rewrite'] {
  const wrapped: Fault['rewrite'] = (req, ctx, next) => hiddenAware(req, ctx, next, (r) => rewrite(r, ctx, next));
  const ops = operationsRewritten(rewrite);
  return ops ? rewritesOnly([...ops, ...HIDDEN_READS], wrapped) : wrapped;
}
