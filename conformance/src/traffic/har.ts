// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the types this tool reads and writes,
// reading a file (browser developer tools, Playwright's recordHar, mitmproxy, proxies) into its
// entries, and building a log for the files this tool writes (`record`, `run --record-har`).
import fs from 'node:fs';
import { UsageError } from '../errors.js';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: HarHeader[];
    queryString: HarHeader[];
    cookies: unknown[];
    headersSize: number;
    bodySize: number;
    postData?: { mimeType: string; text?: string; encoding?: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: HarHeader[];
    cookies: unknown[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
}

export interface HarLog {
  log: {
    version: string;
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

/** The entries of a HAR file, in recorded order. A file that is not HAR 1.x is a usage error. */
export function readHar(file: string): HarEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UsageError(`${file} is not JSON, so not a HAR file: ${(e as Error).message}`);
  }
  const log = (doc as { log?: { version?: unknown; entries?: unknown } } | null)?.log;
  if (!log || !Array.isArray(log.entries))
    throw new UsageError(`${file} is not a HAR file: it has no log.entries array (HAR 1.2)`);
  if (log.version !== undefined && !/^1\./.test(String(log.version)))
    throw new UsageError(`${file}: HAR version ${String(log.version)} is not read (HAR 1.x)`);
  log.entries.forEach((e, i) => {
    const x = e as Partial<HarEntry> | null;
    if (!x?.request || typeof x.request.url !== 'string' || typeof x.request.method !== 'string' || !x.response)
      throw new UsageError(`${file}: entry ${i} has no request method and URL or no response (HAR 1.2)`);
  });
  return log.entries as HarEntry[];
}

/** A HAR log with these entries, written by this tool. */
export function harLog(entries: HarEntry[], creatorVersion: string, comment?: string): HarLog {
  return {
    log: {
      version: '1.2',
      creator: { name: 'rflps-conformance', version: creatorVersion },
      entries,
      ...(comment ? { comment } : {}),
    },
  };
}

/** `{name: value}` pairs of a header object, as HAR lists them. */
export function harHeaders(h: Record<string, string>): HarHeader[] {
  return Object.entries(h).map(([name, value]) => ({ name, value }));
}

/** A HAR entry of one exchange whose bodies are text (the interface's bodies are JSON). */
export function harEntry(x: {
  startedMs: number;
  ms: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  statusText?: string;
  responseHeaders: Record<string, string>;
  responseBody: string;
}): HarEntry {
  const u = new URL(x.url);
  const reqType = lookup(x.requestHeaders, 'content-type') ?? 'application/octet-stream';
  const resType = lookup(x.responseHeaders, 'content-type') ?? '';
  return {
    startedDateTime: new Date(x.startedMs).toISOString(),
    time: x.ms,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(x.requestHeaders),
      queryString: [...u.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: x.requestBody === undefined ? 0 : Buffer.byteLength(x.requestBody),
      ...(x.requestBody !== undefined ? { postData: { mimeType: reqType, text: x.requestBody } } : {}),
    },
    response: {
      status: x.status,
      statusText: x.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      headers: harHeaders(x.responseHeaders),
      cookies: [],
      content: { size: Buffer.byteLength(x.responseBody), mimeType: resType, text: x.responseBody },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: x.ms, receive: 0 },
  };
}

function lookup(h: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(h)) if (k.toLowerCase() === name) return v;
  return undefined;
}
