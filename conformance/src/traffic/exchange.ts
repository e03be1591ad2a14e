// One recorded exchange of the interface as the traffic rules see it: request and answer, the
// operation of spec/openapi.yaml it addresses, bodies parsed once. Built from HAR entries; entries
// that are not the interface's (no `/api/` in the path, no answer) are left out.
import type { OpenApiIndex, OperationMatch } from '../spec/openapi.js';
import type { HarEntry } from './har.js';

export interface TrafficExchange {
  /** Position in the recording (files in the order given, entries in file order). */
  index: number;
  /** `file#entry` for people. */
  source: string;
  method: string;
  url: string;
  /** The path from `/api/` on (relative to the service root, what the spec's paths are). */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  requestHeaders: Record<string, string>;
  requestBody?: string;
  requestJson?: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The parsed answer; undefined when the body is empty or not JSON. */
  json?: unknown;
  /** The answer's body was not recorded (no text in the HAR): rules that need it skip. */
  bodyMissing: boolean;
  /** Start and end on the recording's clock (ms since the epoch). */
  startMs: number;
  endMs: number;
  operation?: OperationMatch;
}

/** The interface's exchanges among HAR entries. */
export function exchangesOf(entries: HarEntry[], file: string, index: OpenApiIndex, first = 0): TrafficExchange[] {
  const out: TrafficExchange[] = [];
  entries.forEach((e, i) => {
    let u: URL;
    try {
      u = new URL(e.request.url);
    } catch {
      return;
    }
    const at = u.pathname.indexOf('/api/');
    if (at < 0 || !e.response || !(e.response.status >= 100 && e.response.status <= 599)) return;
    const path = u.pathname.slice(at);
    const content = e.response.content ?? { size: 0, mimeType: '' };
    let responseBody = content.text ?? '';
    if (content.text !== undefined && content.encoding === 'base64')
      responseBody = Buffer.from(content.text, 'base64').toString('utf8');
    // content.size is not a reliable length across tools (chrome-har counts the bytes of the
    // dataReceived events on top of the body: twice the body), so only an absent text is missing
    const bodyMissing = content.text === undefined && (content.size ?? 0) !== 0;
    let requestBody = e.request.postData?.text;
    if (requestBody !== undefined && e.request.postData?.encoding === 'base64')
      requestBody = Buffer.from(requestBody, 'base64').toString('utf8');
    const startMs = Date.parse(e.startedDateTime);
    out.push({
      index: first + out.length,
      source: `${file}#${i}`,
      method: e.request.method.toUpperCase(),
      url: e.request.url,
      path,
      query: u.searchParams,
      requestHeaders: lower(e.request.headers),
      requestBody,
      requestJson: parse(requestBody),
      status: e.response.status,
      responseHeaders: lower(e.response.headers),
      responseBody,
      json: bodyMissing ? undefined : parse(responseBody),
      bodyMissing,
      startMs: Number.isFinite(startMs) ? startMs : 0,
      endMs: (Number.isFinite(startMs) ? startMs : 0) + Math.max(0, Number(e.time) || 0),
      operation: index.match(e.request.method, path),
    });
  });
  return out;
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `later` began after `earlier` had its answer (so the recording orders them). */
export function after(earlier: TrafficExchange, later: TrafficExchange): boolean {
  return later.startMs >= earlier.endMs && later.index > earlier.index;
}
