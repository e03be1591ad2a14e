// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the types this tool reads and writes,
// reading a file (browser developer tools, Playwright's recordHar, mitmproxy, proxies) into its
// entries, and building a log for the files this tool writes (`record`, `run --record-har`).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { UsageError } from '../model/errors.js';

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
    postData?: { mimeType: string; text?: string; encoding?: string; _file?: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: HarHeader[];
    cookies: unknown[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string; _file?: string };
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

/** A HAR file as read: its entries, and the bodies stored beside it (Playwright's `content: 'attach'`). */
export interface HarFile {
  entries: HarEntry[];
  /** The bytes of an attached body (`_file` of a content or postData); undefined when absent. */
  resource(name: string): Buffer | undefined;
}

/**
 * A HAR file (`.har`, its attached bodies read from beside it) or a Playwright `.har.zip` (the HAR
 * and its attached bodies in one zip). A file that is neither is a usage error saying what it is.
 */
export function readHarFile(file: string): HarFile {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50) {
    let zip: Map<string, () => Buffer>;
    try {
      zip = readZip(bytes);
    } catch (e) {
      throw new UsageError(`${file} is a zip file that cannot be read: ${(e as Error).message}`);
    }
    const har = [...zip.keys()].find((n) => /\.har$/i.test(n));
    if (!har)
      throw new UsageError(
        `${file} is a zip file without a .har file in it (Playwright's recordHar to a .zip writes har.har beside the bodies)`,
      );
    const entries = parseHar(zip.get(har)!().toString('utf8'), `${file}:${har}`);
    const dir = path.posix.dirname(har) === '.' ? '' : `${path.posix.dirname(har)}/`;
    return { entries, resource: (name) => zip.get(dir + name)?.() ?? zip.get(name)?.() };
  }
  const entries = parseHar(bytes.toString('utf8'), file);
  const dir = path.dirname(file);
  return {
    entries,
    resource(name) {
      // only a plain name or a relative path below the HAR's directory
      if (path.isAbsolute(name) || name.split(/[\\/]/).includes('..')) return undefined;
      try {
        return fs.readFileSync(path.join(dir, name));
      } catch {
        return undefined;
      }
    },
  };
}

function parseHar(text: string, file: string): HarEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UsageError(
      `${file} is not JSON, so not a HAR file (a HAR 1.2 file or Playwright's .har.zip is read): ${(e as Error).message}`,
    );
  }
  const log = (doc as { log?: { version?: unknown; entries?: unknown } } | null)?.log;
  if (!log || !Array.isArray(log.entries))
    throw new UsageError(`${file} is not a HAR file: it has no log.entries array (HAR 1.2)`);
  if (log.version !== undefined && !/^1\./.test(String(log.version)))
    throw new UsageError(`${file}: HAR version ${String(log.version)} is not read (HAR 1.x)`);
  log.entries.forEach((e, i) => {
    const x = e as Partial<HarEntry> | null;
    // an entry without a response is an exchange without an answer (counted, never judged)
    if (!x?.request || typeof x.request.url !== 'string' || typeof x.request.method !== 'string')
      throw new UsageError(`${file}: entry ${i} has no request method and URL (HAR 1.2)`);
  });
  return log.entries as HarEntry[];
}

/**
 * The members of a zip file by name, each read when asked (stored or deflated; the central
 * directory, as Playwright's and Info-ZIP's zips write it; no ZIP64, no encryption).
 */
function readZip(buf: Buffer): Map<string, () => Buffer> {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--)
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw new Error('no end of central directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || at === 0xffffffff) throw new Error('ZIP64 archives are not read');
  const out = new Map<string, () => Buffer>();
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${n}`);
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const csize = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    at += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    if (flags & 1) throw new Error(`${name} is encrypted`);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} is not read`);
    out.set(name, () => {
      if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header of ${name}`);
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const data = buf.subarray(start, start + csize);
      return method === 0 ? Buffer.from(data) : zlib.inflateRawSync(data);
    });
  }
  return out;
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
