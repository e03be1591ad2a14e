// One recorded exchange of the interface as the traffic rules see it: request and answer, the
// operation of spec/openapi.yaml it addresses, bodies parsed once. Built from HAR entries whose path
// has `/api/`; which of them are the implementation's (its origin and path prefix) verify.ts decides.
// A body the recording does not hold (not recorded, not decodable, no answer at all) is marked, so
// that no rule reads it as an empty answer.
import zlib from 'node:zlib';
import { isObject } from '../judge/finding.js';
import type { OpenApiIndex, OperationMatch } from '../spec/openapi.js';
import type { HarEntry } from './har.js';

export { isObject };

/** Why an exchange's answer is no evidence: rules that read it do not judge it. */
export type MissingEvidence = 'not-recorded' | 'undecodable' | 'no-answer';

export const MISSING_EVIDENCE: Record<MissingEvidence, string> = {
  'not-recorded':
    'the answer body was not recorded (a browser export without bodies, Playwright content "omit", an attached file not found)',
  undecodable:
    'the answer body cannot be decoded (compressed bytes kept in content.text, which HAR 1.2 does not allow)',
  'no-answer': 'the request has no answer in the recording (status 0 or no response)',
};

export interface TrafficExchange {
  /** Position in the recording (files in the order given, entries in file order). */
  index: number;
  /** `file#entry` for people. */
  source: string;
  /** The HAR file it came from. */
  file: string;
  method: string;
  url: string;
  /** Origin and path prefix before `/api/` (the service root the spec's paths are relative to). */
  base: string;
  /** The path from `/api/` on (relative to the service root, what the spec's paths are). */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  requestHeaders: Record<string, string>;
  requestBody?: string;
  requestJson?: unknown;
  /** The request had a body the recording does not hold. */
  requestBodyMissing: boolean;
  /** 0 when there was no answer. */
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The parsed answer; undefined when the body is empty, not JSON or not evidence. */
  json?: unknown;
  /** The answer is no evidence (`evidence` says why): rules that need it skip. */
  bodyMissing: boolean;
  evidence?: MissingEvidence;
  /** Start and end on the recording's clock (ms since the epoch). */
  startMs: number;
  endMs: number;
  operation?: OperationMatch;
}

/** Where attached bodies (`_file`) are read from. */
export type Resources = (name: string) => Buffer | undefined;

/** The candidate exchanges (a path with `/api/`) among HAR entries; `others` counts the rest. */
export function exchangesOf(
  entries: Iterable<HarEntry>,
  file: string,
  index: OpenApiIndex,
  first = 0,
  resource: Resources = () => undefined,
  others?: { n: number },
  read?: { n: number },
  states?: StateCall[],
): TrafficExchange[] {
  const out: TrafficExchange[] = [];
  let i = -1;
  // entries arrive one at a time (har.ts reads the file in pieces): each is dropped once its exchange is built
  for (const e of entries) {
    i++;
    if (read) read.n++;
    let u: URL;
    try {
      u = new URL(e.request.url);
    } catch {
      if (others) others.n++;
      continue;
    }
    const at = u.pathname.indexOf('/api/');
    if (at < 0) {
      if (others) others.n++;
      // a provider-state call of the suite's own recorded run: evidence of stored data (states.ts), never judged
      if (states && u.pathname.endsWith('/_provider-states')) {
        const startMs = Date.parse(e.startedDateTime) || 0;
        const c = stateCallOf(
          e.request.method,
          u.pathname,
          requestBodyOf(e, resource).text,
          e.response?.status ?? 0,
          responseBodyOf(e, lower(e.response?.headers), resource).text,
          startMs,
          startMs + Math.max(0, Number(e.time) || 0),
          `${file}#${i}`,
        );
        if (c) states.push(c);
      }
      continue;
    }
    const path = u.pathname.slice(at);
    const responseHeaders = lower(e.response?.headers);
    const res = responseBodyOf(e, responseHeaders, resource);
    const req = requestBodyOf(e, resource);
    const startMs = Date.parse(e.startedDateTime);
    const start = Number.isFinite(startMs) ? startMs : 0;
    out.push({
      index: first + out.length,
      source: `${file}#${i}`,
      file,
      method: e.request.method.toUpperCase(),
      url: e.request.url,
      base: `${u.origin}${u.pathname.slice(0, at)}`,
      path,
      query: u.searchParams,
      requestHeaders: lower(e.request.headers),
      requestBody: req.text,
      requestJson: parse(req.text),
      requestBodyMissing: req.missing,
      status: res.evidence === 'no-answer' ? 0 : e.response.status,
      responseHeaders,
      responseBody: res.text ?? '',
      json: res.evidence ? undefined : parse(res.text),
      bodyMissing: res.evidence !== undefined,
      ...(res.evidence ? { evidence: res.evidence } : {}),
      startMs: start,
      endMs: start + Math.max(0, Number(e.time) || 0),
      operation: index.match(e.request.method, path),
    });
  }
  return out;
}

const ENCODED = /\b(gzip|x-gzip|br|deflate|zstd)\b/i;
// control characters JSON text never holds raw, and the replacement character of bytes that were not UTF-8
// eslint-disable-next-line no-control-regex
const BINARY = /[\u0000-\u0008\u000e-\u001f\ufffd]/;

/** The answer's body as text, or why the recording holds none that is evidence. */
function responseBodyOf(
  e: HarEntry,
  headers: Record<string, string>,
  resource: Resources,
): { text?: string; evidence?: MissingEvidence } {
  const r = e.response as HarEntry['response'] | undefined;
  if (!r || !(r.status >= 100 && r.status <= 599)) return { evidence: 'no-answer' };
  const c = r.content ?? { size: 0, mimeType: '' };
  let bytes: Buffer | undefined;
  if (typeof c._file === 'string') {
    bytes = resource(c._file);
    if (!bytes) return { evidence: 'not-recorded' };
  } else if (c.text === undefined) {
    // content.size is not a reliable length across tools (chrome-har counts the bytes of the
    // dataReceived events on top of the body), so a size or a Content-Length says a body existed
    const declared = Number(headers['content-length'] ?? 0);
    return (c.size ?? 0) > 0 || declared > 0 ? { evidence: 'not-recorded' } : { text: '' };
  } else if (c.encoding === 'base64') bytes = Buffer.from(c.text, 'base64');
  const encoding = headers['content-encoding'] ?? '';
  if (bytes) {
    const text = decoded(bytes, encoding);
    return text === undefined ? { evidence: 'undecodable' } : { text };
  }
  const text = c.text!;
  if (!ENCODED.test(encoding) || !BINARY.test(text) || parse(text) !== undefined) return { text };
  // compressed bytes kept as text: readable only when each byte became one character
  // eslint-disable-next-line no-control-regex
  const t = /[^\u0000-\u00ff]/.test(text) ? undefined : decoded(Buffer.from(text, 'latin1'), encoding);
  return t === undefined ? { evidence: 'undecodable' } : { text: t };
}

/** Bytes of a body as UTF-8 text, inflated first when they are still compressed; undefined when they cannot be. */
function decoded(bytes: Buffer, encoding: string): string | undefined {
  const plain = bytes.toString('utf8');
  if (!BINARY.test(plain)) return plain;
  try {
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) return zlib.gunzipSync(bytes).toString('utf8');
    if (/\bbr\b/i.test(encoding)) return zlib.brotliDecompressSync(bytes).toString('utf8');
    if (/\bdeflate\b/i.test(encoding)) return zlib.inflateSync(bytes).toString('utf8');
  } catch {
    return undefined;
  }
  // bytes that are not text: what the answer was is for GEN-001 to judge, unless a compression was declared
  return ENCODED.test(encoding) ? undefined : plain;
}

function requestBodyOf(e: HarEntry, resource: Resources): { text?: string; missing: boolean } {
  const p = e.request.postData;
  if (p && typeof p._file === 'string') {
    const b = resource(p._file);
    return b ? { text: b.toString('utf8'), missing: false } : { missing: true };
  }
  if (p?.text !== undefined)
    return { text: p.encoding === 'base64' ? Buffer.from(p.text, 'base64').toString('utf8') : p.text, missing: false };
  return { missing: (Number(e.request.bodySize) || 0) > 0 };
}

function lower(h: Array<{ name: string; value: string }> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  // HTTP/2 pseudo-headers (`:authority`) in browser exports are not headers of the request
  for (const { name, value } of h ?? [])
    if (!name.startsWith(':'))
      out[name.toLowerCase()] = out[name.toLowerCase()] ? `${out[name.toLowerCase()]}, ${value}` : value;
  return out;
}

function parse(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The record objects of an answer: `Record` of a single read, the items of `List` of a listing. */
export function recordsOf(x: TrafficExchange): Array<Record<string, unknown>> {
  const j = x.json as { Record?: unknown; List?: unknown } | undefined;
  if (!j || typeof j !== 'object') return [];
  if (isObject(j.Record)) return [j.Record];
  if (Array.isArray(j.List)) return j.List.filter(isObject);
  return [];
}

/** Whether `later` began after `earlier` had its answer (so the recording orders them). */
export function after(earlier: TrafficExchange, later: TrafficExchange): boolean {
  return later.startMs >= earlier.endMs && later.index > earlier.index;
}

/** One provider-state call as recorded (a POST to a path ending in /_provider-states). */
export interface StateCall {
  state: string;
  action: string;
  params: Record<string, unknown>;
  /** The answer's values (setup), when it answered 200 with an object. */
  values?: Record<string, unknown>;
  startMs: number;
  endMs: number;
  source: string;
}

/** A provider-state call of a HAR entry, or undefined when the entry is none. */
function stateCallOf(
  method: string,
  pathname: string,
  requestBody: string | undefined,
  status: number,
  responseBody: string | undefined,
  startMs: number,
  endMs: number,
  source: string,
): StateCall | undefined {
  if (method.toUpperCase() !== 'POST' || !pathname.endsWith('/_provider-states')) return undefined;
  const req = parse(requestBody);
  if (!isObject(req) || typeof req.state !== 'string' || typeof req.action !== 'string' || !isObject(req.params))
    return undefined;
  const res = status === 200 ? parse(responseBody) : undefined;
  return {
    state: req.state,
    action: req.action,
    params: req.params,
    ...(isObject(res) ? { values: res } : {}),
    startMs,
    endMs,
    source,
  };
}
