// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the types this tool reads and writes,
// reading a file (browser developer tools, Playwright's recordHar, mitmproxy, proxies) into its
// entries, and building a log for the files this tool writes (`record`, `run --record-har`).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { SpooledExchange } from '../suite-api/spool.js';
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

/**
 * A HAR file as read: its entries, parsed one at a time as they are iterated (the file is read in
 * pieces, never whole), and the bodies stored beside it (Playwright's `content: 'attach'`).
 */
export interface HarFile {
  entries: Iterable<HarEntry>;
  /** The bytes of an attached body (`_file` of a content or postData); undefined when absent. */
  resource(name: string): Buffer | undefined;
}

/**
 * A HAR file (`.har`, its attached bodies read from beside it) or a Playwright `.har.zip` (the HAR
 * and its attached bodies in one zip). A file that is neither is a usage error saying what it is.
 */
export function readHarFile(file: string): HarFile {
  const head = Buffer.alloc(4);
  try {
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, head, 0, 4, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  if (head.readUInt32LE(0) === 0x04034b50) {
    let zip: Map<string, () => Buffer>;
    try {
      zip = readZip(fs.readFileSync(file));
    } catch (e) {
      throw new UsageError(`${file} is a zip file that cannot be read: ${(e as Error).message}`);
    }
    const har = [...zip.keys()].find((n) => /\.har$/i.test(n));
    if (!har)
      throw new UsageError(
        `${file} is a zip file without a .har file in it (Playwright's recordHar to a .zip writes har.har beside the bodies)`,
      );
    const dir = path.posix.dirname(har) === '.' ? '' : `${path.posix.dirname(har)}/`;
    return {
      entries: { [Symbol.iterator]: () => harEntriesOf([zip.get(har)!()], `${file}:${har}`) },
      resource: (name) => zip.get(dir + name)?.() ?? zip.get(name)?.(),
    };
  }
  const dir = path.dirname(file);
  return {
    entries: { [Symbol.iterator]: () => harEntriesOf(chunksOf(file), file) },
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

/** The bytes of a file in pieces of 1 MiB, each a buffer of its own (an entry's pieces are kept until it is whole). */
function* chunksOf(file: string): Generator<Buffer> {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    for (;;) {
      const b = Buffer.allocUnsafe(1 << 20);
      let got: number;
      try {
        got = fs.readSync(fd, b, 0, b.length, null);
      } catch (e) {
        throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
      }
      if (got === 0) return;
      yield got === b.length ? b : b.subarray(0, got);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The entries of a HAR text, parsed one at a time: the bytes are scanned (strings, escapes and
 * nesting tracked, never decoded) until `log.entries`, each element of that array is cut out and
 * parsed alone, so neither the whole text nor the whole parsed tree is ever held. `chunks` gives
 * the bytes in order (a file read piece by piece, or one buffer). Any structure outside the
 * entries (`log.creator`, `log.pages`) is skipped; `log.version` is read and checked.
 */
export function* harEntriesOf(chunks: Iterable<Buffer>, file: string): Generator<HarEntry> {
  const notJson = (why: string) =>
    new UsageError(`${file} is not JSON, so not a HAR file (a HAR 1.2 file or Playwright's .har.zip is read): ${why}`);
  // containers open, innermost last: '{' or '['
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  let started = false;
  let sawEntries = false;
  // the key being read or last read at depth 1 (top object) and 2 (log), and the string value of log.version
  let text: number[] | undefined;
  let lastKey = '';
  let path1 = '';
  let version: string | undefined;
  let stringIsVersion = false;
  // the entry being cut out: its pieces and its start in the current chunk
  let pieces: Buffer[] | undefined;
  let from = 0;
  let n = 0;
  let entriesKey = false;
  const inEntries = () => stack.length === 3 && stack[2] === 0x5b && path1 === 'log' && entriesKey;
  let prevColon = false;
  let done = false;
  let bom = 0;
  const finish = (b: Buffer, end: number): HarEntry => {
    pieces!.push(b.subarray(from, end));
    const s = Buffer.concat(pieces!).toString('utf8');
    pieces = undefined;
    let e: unknown;
    try {
      e = JSON.parse(s);
    } catch (err) {
      throw notJson(`entry ${n}: ${(err as Error).message}`);
    }
    const x = e as Partial<HarEntry> | null;
    // an entry without a response is an exchange without an answer (counted, never judged)
    if (!x?.request || typeof x.request.url !== 'string' || typeof x.request.method !== 'string')
      throw new UsageError(`${file}: entry ${n} has no request method and URL (HAR 1.2)`);
    n++;
    return x as HarEntry;
  };
  for (const b of chunks) {
    from = 0;
    // where the next backslash of this piece is (-1: none left), found once, not per string
    let backslash = -2;
    for (let i = 0; i < b.length; i++) {
      if (inString && !escaped && !text) {
        // a string nobody reads: jump to its closing quote, or to the escape before it
        const q = b.indexOf(0x22, i);
        if (backslash !== -1 && backslash < i) backslash = b.indexOf(0x5c, i);
        if (backslash !== -1 && (q < 0 || backslash < q)) {
          i = backslash;
          escaped = true;
          continue;
        }
        if (q < 0) break;
        i = q;
        inString = false;
        continue;
      }
      const c = b[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (text) {
            const s = Buffer.from(text).toString('utf8');
            text = undefined;
            if (stringIsVersion) version = s;
            else lastKey = s;
            stringIsVersion = false;
          }
          continue;
        }
        if (text) text.push(c);
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (done) throw notJson('there is more after the top-level object');
      if (!started) {
        // a byte order mark before the text
        // (its three bytes may fall in two pieces)
        if (bom < 3 && c === [0xef, 0xbb, 0xbf][bom]) {
          bom++;
          continue;
        }
        if (bom > 0 && bom < 3) throw notJson('it begins with a broken byte order mark');
        if (c !== 0x7b) throw notJson(`it does not begin with an object (byte ${String.fromCharCode(c)})`);
        started = true;
      }
      if (c === 0x22) {
        inString = true;
        const d = stack.length;
        const inObject = stack[d - 1] === 0x7b;
        // keys of the top object and of log, and the value of log.version, are read; nothing else is
        if (inObject && (d === 1 || (d === 2 && path1 === 'log'))) {
          const value = prevColon;
          if (!value) text = [];
          else if (d === 2 && lastKey === 'version') {
            text = [];
            stringIsVersion = true;
          }
        }
        prevColon = false;
        continue;
      }
      if (c === 0x3a) {
        prevColon = true;
        continue;
      }
      if (c === 0x2c) {
        prevColon = false;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        const d = stack.length;
        if (d === 1 && prevColon) path1 = lastKey;
        if (d === 2 && prevColon && path1 === 'log' && lastKey === 'entries' && c === 0x5b) {
          entriesKey = true;
          sawEntries = true;
        }
        if (inEntries() && c === 0x7b) {
          pieces = [];
          from = i;
        } else if (inEntries()) throw new UsageError(`${file}: entry ${n} has no request method and URL (HAR 1.2)`);
        stack.push(c);
        prevColon = false;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        const open = stack.pop();
        if (open === undefined || (open === 0x7b) !== (c === 0x7d))
          throw notJson(`unbalanced ${String.fromCharCode(c)}`);
        if (stack.length === 3 && pieces) yield finish(b, i + 1);
        else if (stack.length === 2 && entriesKey) entriesKey = false;
        else if (stack.length === 1) path1 = '';
        if (stack.length === 0) done = true;
        prevColon = false;
        continue;
      }
      // a scalar (number, true, false, null) inside the entries array is not an entry
      if (inEntries() && !pieces) throw new UsageError(`${file}: entry ${n} has no request method and URL (HAR 1.2)`);
      prevColon = false;
    }
    if (pieces) {
      pieces.push(b.subarray(from));
      from = 0;
    }
  }
  if (!started) throw notJson('it is empty');
  if (stack.length || inString) throw notJson('it ends before its last object is closed');
  if (!sawEntries) throw new UsageError(`${file} is not a HAR file: it has no log.entries array (HAR 1.2)`);
  if (version !== undefined && !/^1\./.test(version))
    throw new UsageError(`${file}: HAR version ${version} is not read (HAR 1.x)`);
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
export function harEntry(x: SpooledExchange & { statusText?: string }): HarEntry {
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
