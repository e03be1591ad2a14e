// Exchanges as the fault-injecting proxy sees them, and small helpers to read and rewrite them.
// Test code of the conformance suite (never shipped in the reference server).
import type { Permission } from '../../spec/generated/facts.js';

/** One HTTP request passing through the proxy. Header names are lower-case. */
export interface ProxyRequest {
  method: string;
  /** The raw pathname (percent-encoding kept), without the query string. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: Buffer;
  /** The query string as received; forwarded byte for byte while `query` is unchanged. */
  rawQuery?: string;
}

/** One HTTP response passing through the proxy. Header names are lower-case. */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Json = any;

export function makeRequest(
  method: string,
  pathAndQuery: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
): ProxyRequest {
  const i = pathAndQuery.indexOf('?');
  const path = i < 0 ? pathAndQuery : pathAndQuery.slice(0, i);
  const rawQuery = i < 0 ? '' : pathAndQuery.slice(i + 1);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: Buffer = Buffer.alloc(0);
  if (init.body !== undefined) {
    if (Buffer.isBuffer(init.body)) body = init.body;
    else if (typeof init.body === 'string') body = Buffer.from(init.body);
    else {
      body = Buffer.from(JSON.stringify(init.body));
      headers['content-type'] ??= 'application/json';
    }
  }
  return { method: method.toUpperCase(), path, query: new URLSearchParams(rawQuery), headers, body, rawQuery };
}

export function makeResponse(status: number, body?: unknown, headers: Record<string, string> = {}): ProxyResponse {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v;
  if (body === undefined) return { status, headers: h, body: Buffer.alloc(0) };
  if (Buffer.isBuffer(body)) return { status, headers: h, body };
  h['content-type'] ??= 'application/json';
  return { status, headers: h, body: Buffer.from(JSON.stringify(body)) };
}

/** `path?query` of a request: the raw query while `query` still says the same, else `query` re-serialised. */
export function pathWithQuery(req: ProxyRequest): string {
  const qs = req.query.toString();
  const raw = req.rawQuery ?? '';
  const same = raw !== '' && new URLSearchParams(raw).toString() === qs;
  const q = same ? raw : qs;
  return q === '' ? req.path : `${req.path}?${q}`;
}

export function cloneRequest(req: ProxyRequest, patch: Partial<ProxyRequest> = {}): ProxyRequest {
  return {
    method: req.method,
    path: req.path,
    query: new URLSearchParams(req.query),
    headers: { ...req.headers },
    body: req.body,
    rawQuery: req.rawQuery,
    ...patch,
  };
}

export function cloneResponse(res: ProxyResponse, patch: Partial<ProxyResponse> = {}): ProxyResponse {
  return { status: res.status, headers: { ...res.headers }, body: res.body, ...patch };
}

/** The body parsed as JSON, or undefined when empty or not JSON. */
export function bodyJson(x: { body: Buffer }): Json | undefined {
  if (x.body.length === 0) return undefined;
  try {
    return JSON.parse(x.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function withBody<T extends { headers: Record<string, string>; body: Buffer }>(
  x: T,
  value: Json,
  contentType?: string,
): T {
  const headers = { ...x.headers };
  headers['content-type'] =
    contentType ?? (headers['content-type']?.includes('json') ? headers['content-type'] : 'application/json');
  delete headers['content-length'];
  return { ...x, headers, body: Buffer.from(JSON.stringify(value)) };
}

/** A copy of the request with a new JSON body. */
export function withRequestJson(req: ProxyRequest, value: Json): ProxyRequest {
  return withBody(cloneRequest(req), value);
}

/** A copy of the response with a new JSON body (and status). */
export function withResponseJson(
  res: ProxyResponse,
  value: Json,
  status = res.status,
  contentType?: string,
): ProxyResponse {
  return withBody(cloneResponse(res, { status }), value, contentType);
}

/** The reference's problem details (architecture 2), as a buggy server would also send them. */
export function problem(status: number, code: string, detail: string): ProxyResponse {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    422: 'Unprocessable Content',
    500: 'Internal Server Error',
  };
  return makeResponse(
    status,
    { type: 'about:blank', title: titles[status] ?? 'Error', status, detail, code },
    { 'content-type': 'application/problem+json' },
  );
}

/** A JSON string body (the documented bare-string error answers). */
export function jsonString(status: number, text: string): ProxyResponse {
  return makeResponse(status, text);
}

export function isTrue(v: string | null | undefined): boolean {
  return v !== null && v !== undefined && ['true', 'yes', 'y', '1'].includes(v.trim().toLowerCase());
}

export function isOk(res: { status: number }): boolean {
  return res.status >= 200 && res.status < 300;
}

// ---------------------------------------------------------------------------------------------
// Paths

/** Replace path segment `index` (0-based after the leading slash) with `value` (encoded). */
export function replaceSegment(path: string, index: number, value: string): string {
  const parts = path.split('/');
  parts[index + 1] = encodeURIComponent(value).replace(/%2E/gi, '.');
  return parts.join('/');
}

// ---------------------------------------------------------------------------------------------
// Column language (spec 4.1)

export interface ColumnItem {
  field: string;
  key: string;
}

export function parseColumns(raw: string | null | undefined): ColumnItem[] | undefined {
  if (raw === null || raw === undefined || raw.trim() === '') return undefined;
  const out: ColumnItem[] = [];
  for (const part of raw.split(',')) {
    const s = part.trim();
    if (!s) continue;
    const m = /^(\S+)(?:\s+as\s+(\S+))?$/i.exec(s);
    if (!m) out.push({ field: s, key: s });
    else out.push({ field: m[1]!, key: m[2] ?? m[1]! });
  }
  return out.length ? out : undefined;
}

export function formatColumns(items: ColumnItem[]): string {
  return items.map((c) => (c.key === c.field ? c.field : `${c.field} as ${c.key}`)).join(',');
}

/** The response keys that carry `field` (alias-aware). Without `columns`, the field's own name. */
export function keysOf(req: ProxyRequest, field: string): string[] {
  const cols = parseColumns(req.query.get('columns'));
  if (!cols) return [field];
  return cols.filter((c) => c.field === field).map((c) => c.key);
}

export interface Hidden {
  /** field → the key that carries it in the response */
  keys: Map<string, string>;
  /** keys the client did not ask for (to strip again) */
  added: string[];
}

/**
 * Ask for extra fields on a read (as a buggy server would read them internally): each field is
 * appended as `<field> as __fp<n>` unless the client already asked for it under its own name.
 * Without `columns` nothing is added (the default columns are assumed to hold the field).
 */
export function withHiddenColumns(req: ProxyRequest, fields: string[]): { req: ProxyRequest; hidden: Hidden } {
  const cols = parseColumns(req.query.get('columns'));
  const hidden: Hidden = { keys: new Map(), added: [] };
  if (!cols) {
    for (const f of fields) hidden.keys.set(f, f);
    return { req, hidden };
  }
  const out = [...cols];
  fields.forEach((f, i) => {
    if (hidden.keys.has(f)) return;
    const own = cols.find((c) => c.field === f && c.key === f);
    if (own) {
      hidden.keys.set(f, f);
      return;
    }
    const key = `__fp${i}`;
    out.push({ field: f, key });
    hidden.keys.set(f, key);
    hidden.added.push(key);
  });
  const r = cloneRequest(req);
  r.query.set('columns', formatColumns(out));
  return { req: r, hidden };
}

export function stripHidden(rec: Record<string, any>, hidden: Hidden): void {
  for (const k of hidden.added) delete rec[k];
}

// ---------------------------------------------------------------------------------------------
// Link bodies (the reference's PascalCase names, docs/architecture.md 2)

export interface LinkBody {
  ParentDomain?: string;
  ParentRecordID?: number;
  ParentRecordKey?: string | number;
  ParentRecordMatchField?: string;
  ChildDomain?: string;
  ChildRecordID?: number;
  ChildRecordKey?: string | number;
  ChildRecordMatchField?: string;
  Relationship?: string;
  NewRelationship?: string;
}

/** The permissions and the parent-domain permission a link operation needs (spec 5), from the spec. */
export { linkPermission, type Permission } from '../../spec/generated/facts.js';

/** Grants of a user as given to the provider state 'a user' (domain or '*' → permissions). */
export type Grants = Record<string, string[]>;

export function holds(grants: Grants, domain: string, perm: Permission): boolean {
  return (grants[domain] ?? []).includes(perm) || (grants['*'] ?? []).includes(perm);
}
