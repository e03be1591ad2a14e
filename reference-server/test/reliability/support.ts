// Shared support of the reliability tests (reference-server/test/reliability/*.test.ts): the
// response audit (documented statuses, generic checks, no stack traces or SQL in bodies), table
// snapshots, and a spawned reference-server process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { GenericChecker } from '../../../conformance/src/suite-api/generic-checks/checker.js';
import { loadOpenApi, type OpenApiIndex } from '../../../conformance/src/spec/openapi.js';
import { startReferenceProcess, type ReferenceProcess } from '../../../conformance/src/targets/reference-process.js';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { expect } from 'vitest';
import { readResponse } from '../support/response.js';

/** `npm run test:reliability:long` sets RELIABILITY_LONG=1: many more requests, kills and rounds. */
export const LONG = process.env.RELIABILITY_LONG === '1';

/** Writes a JSON summary to $RELIABILITY_SUMMARY_DIR/<name>.json (the long run sets it) and prints it. */
export function report(name: string, summary: Record<string, unknown>): void {
  const line = `[reliability] ${name}: ${JSON.stringify(summary)}`;
  console.log(line.length > 4000 ? `${line.slice(0, 4000)}…` : line);
  const dir = process.env.RELIABILITY_SUMMARY_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `${name}.json`),
      JSON.stringify({ name, long: LONG, at: new Date().toISOString(), ...summary }, null, 2) + '\n',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Response audit

/** Operations whose documented responses include a 500 (CreateMember with a member; DownloadURL
 * with the enhanced session security off). Their 500 body is a bare JSON string, never a problem. */
const DOCUMENTED_500 = new Set(['createMember', 'getFile', 'queryFiles', 'listAttachedFiles']);

/**
 * Known gaps of spec/openapi.yaml, reported instead of failed: `operationId status`. None today:
 * the spec documents the URL limit (414) and the body limit (413) on every operation.
 */
const KNOWN_SPEC_GAPS = new Set<string>();

/** Statuses a request that addresses no operation of the spec may get (wrong method or path),
 * and the answers before routing of spec/openapi.yaml ("Answers before routing": 400 for a bad
 * Host or a target that is not a path such as `OPTIONS *`, 408, 417, 431). */
const UNMATCHED_OK = new Set([400, 401, 404, 408, 413, 414, 417, 431]);

/** Server-internal text that must never reach a client (unless the client sent it itself):
 * stack frames and SQLite's own error texts, in any body. */
const LEAKS: RegExp[] = [
  /\bat (?:async )?[\w.$<>[\]]+ \(?(?:file:\/\/)?\/[^\s()]+:\d+:\d+\)?/g, // a stack frame
  /node_modules|node:internal|\.ts:\d+:\d+|\.m?js:\d+:\d+/g,
  /SqliteError|SQLITE_[A-Z_]+|better-sqlite3/gi,
  /no such (?:column|table|function)|syntax error|unrecognized token|constraint failed|datatype mismatch|database is locked|database table is locked|too many (?:columns|terms)|Expression tree is too large|incomplete input|parser stack overflow/gi,
];
/** SQL statements and JavaScript error names: in error bodies (a 2xx body may hold stored data). */
const ERROR_LEAKS: RegExp[] = [
  /\b(?:SELECT\s[\s\S]{0,200}?\sFROM\s|INSERT\s+INTO\s|UPDATE\s+"?\w+"?\s+SET\s|DELETE\s+FROM\s|CREATE\s+(?:TABLE|INDEX)\s|PRAGMA\s)/gi,
  /Maximum call stack|RangeError|TypeError|ReferenceError|SyntaxError: |Cannot read propert/g,
];

export interface AuditInput {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Request body text (for the "echoed input" exception of the leak check). */
  requestText?: string;
  status: number;
  contentType: string | null;
  bodyText: string;
}

export interface Expectation {
  /** The status must be exactly one of these. */
  exact?: number[];
  /** The request is certainly invalid: the status must be 4xx. */
  refuse?: boolean;
}

/** Percent-decoding that decodes what it can (one bad escape does not spoil the rest). */
function lenientDecode(s: string): string {
  return s.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return Buffer.from(m.replace(/%/g, ''), 'hex').toString('utf8');
    }
  });
}

/** Audits responses: documented status for the operation, generic checks (GEN-001/GEN-002, also
 * the reference's implementation-defined response schemas), documented 5xx only, no leaks. */
export class Auditor {
  readonly index: OpenApiIndex;
  readonly checker: GenericChecker;
  /** operationId (or `(none)`) → status → count */
  readonly statuses = new Map<string, Map<number, number>>();
  readonly failures: string[] = [];
  failureCount = 0;
  count = 0;
  /** `operationId status` of KNOWN_SPEC_GAPS seen → count */
  readonly knownGaps = new Map<string, number>();

  constructor() {
    this.index = loadOpenApi();
    this.checker = new GenericChecker(this.index);
  }

  /** Problems with one exchange (empty when it is fine); also counted and kept. */
  audit(x: AuditInput, expect: Expectation = {}): string[] {
    this.count++;
    const problems: string[] = [];
    let u: URL;
    try {
      u = new URL(`http://localhost${x.url.startsWith('/') ? '' : '/'}${x.url}`);
    } catch {
      u = new URL('http://localhost/');
    }
    const method = x.method.toUpperCase() === 'HEAD' ? 'GET' : x.method.toUpperCase();
    // the spec's paths have no empty segments: `/x/` or `//x` addresses no operation
    const op = /\/\/|.\/$/.test(u.pathname) ? undefined : this.index.match(method, u.pathname);
    const opId = op?.operationId ?? '(none)';
    // A method the spec does not declare on a path it declares (or on /health): the reference
    // resolves the path literal-first and answers 405 with Allow before it looks at the token
    // (GEN-005, implementation-defined). The suite's matcher takes the most literal path that
    // declares the method, so a path such as DELETE .../UpsertMulti may still match another operation here.
    // the router folds repeated slashes and ignores a trailing one before it resolves the path
    const declaredPath = u.pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
    const otherMethodDeclared =
      declaredPath === '/health' ||
      ['GET', 'POST', 'DELETE'].some((m) => m !== method && this.index.match(m, declaredPath));
    const methodRefused = otherMethodDeclared && x.status === 405;
    let m = this.statuses.get(opId);
    if (!m) this.statuses.set(opId, (m = new Map()));
    m.set(x.status, (m.get(x.status) ?? 0) + 1);

    if (expect.exact && !expect.exact.includes(x.status) && !methodRefused)
      problems.push(`status ${x.status}, expected ${expect.exact.join(' or ')}`);
    if (expect.refuse && (x.status < 400 || x.status >= 500))
      problems.push(`status ${x.status} for a request that must be refused with a 4xx`);
    if (op) {
      const gap = `${op.operationId} ${x.status}`;
      if (KNOWN_SPEC_GAPS.has(gap)) this.knownGaps.set(gap, (this.knownGaps.get(gap) ?? 0) + 1);
      else if (!this.index.response(op, x.status) && !methodRefused)
        problems.push(`status ${x.status} is not documented for ${op.operationId}`);
    } else if (
      !UNMATCHED_OK.has(x.status) &&
      !methodRefused &&
      !(u.pathname === '/health' && method === 'GET' && x.status === 200)
    ) {
      problems.push(
        `status ${x.status} for a request that addresses no operation (expected one of ${[...UNMATCHED_OK].join(', ')})`,
      );
    }
    if (x.status >= 500) {
      let isString = false;
      try {
        isString = typeof JSON.parse(x.bodyText) === 'string';
      } catch {
        /* not JSON */
      }
      if (!op || !DOCUMENTED_500.has(op.operationId) || x.status !== 500 || !isString) {
        problems.push(`undocumented server error ${x.status}: ${x.bodyText.slice(0, 200)}`);
      }
    }
    if (x.method.toUpperCase() !== 'HEAD') {
      const r = this.checker.check({
        method,
        url: x.url,
        path: u.pathname,
        status: x.status,
        contentType: x.contentType,
        bodyText: x.bodyText,
      });
      for (const v of r.violations) problems.push(v.message);
      for (const f of r.findings)
        if (f.kind !== 'unknown-operation' && f.kind !== 'undocumented-status') problems.push(f.message);
    }
    problems.push(...leaks(x));
    if (problems.length) {
      if (process.env.RELIABILITY_DEBUG_FILE)
        fs.appendFileSync(process.env.RELIABILITY_DEBUG_FILE, JSON.stringify({ ...x, problems }) + '\n');
      this.failureCount++;
      if (this.failures.length < 40) {
        this.failures.push(
          `${x.method} [${x.url.length} chars] ${x.url.slice(0, 300)}${x.requestText ? ` body ${JSON.stringify(x.requestText.slice(0, 300))}` : ''} → ${x.status} ${x.bodyText.slice(0, 300)}\n    ${problems.join('\n    ')}`,
        );
      }
    }
    return problems;
  }

  statusTable(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [op, m] of [...this.statuses].sort()) out[op] = Object.fromEntries([...m].sort((a, b) => a[0] - b[0]));
    return out;
  }

  /** status → count over every operation */
  statusTotals(): Record<string, number> {
    const t = new Map<number, number>();
    for (const m of this.statuses.values()) for (const [s, n] of m) t.set(s, (t.get(s) ?? 0) + n);
    return Object.fromEntries([...t].sort((a, b) => a[0] - b[0]));
  }
}

/** Leak check: stack traces, SQL text or SQLite error text in a body (an echo of the request's own
 * text is not a leak: the server quotes bad input back in its problem details). */
function leaks(x: Pick<AuditInput, 'url' | 'requestText' | 'bodyText' | 'status'>): string[] {
  if (!x.bodyText) return [];
  let text = x.bodyText;
  try {
    const v = JSON.parse(x.bodyText);
    text = typeof v === 'string' ? v : JSON.stringify(v, null, 0).replace(/\\"/g, '"');
  } catch {
    /* not JSON: the raw text */
  }
  // decodeURI keeps reserved characters escaped (Hono's c.req.path): that form too
  const asPath = lenientDecode(x.url).replace(/[;/?:@&=+$,#]/g, (c) =>
    c === '/' ? c : `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  const sent = [x.url, lenientDecode(x.url), lenientDecode(x.url.replace(/\+/g, ' ')), asPath, x.requestText ?? '']
    .join('\n')
    .toLowerCase();
  const out: string[] = [];
  for (const re of x.status >= 200 && x.status < 300 ? LEAKS : [...LEAKS, ...ERROR_LEAKS]) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      if (!sent.includes(m[0].toLowerCase())) out.push(`body leaks server internals: ${JSON.stringify(m[0])}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Snapshots

export type Snapshot = Map<string, string[]>;

/**
 * Every row of every table, as JSON lines ordered by rowid. `allowed` maps a table to an SQL
 * predicate selecting the rows the test may change (left out of the snapshot); `skip` lists
 * tables left out entirely (sqlite_sequence always is: counters move on every insert).
 */
export function snapshot(
  db: Database.Database,
  opts: { allowed?: Record<string, string>; skip?: string[] } = {},
): Snapshot {
  const tables = (
    db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .all() as Array<{ name: string }>
  ).map((r) => r.name);
  const snap: Snapshot = new Map();
  for (const t of tables) {
    if (opts.skip?.includes(t)) continue;
    const pred = opts.allowed?.[t];
    const rows = db
      .prepare(`SELECT * FROM "${t}"${pred ? ` WHERE NOT coalesce((${pred}), 0)` : ''} ORDER BY rowid`)
      .all() as Array<Record<string, unknown>>;
    snap.set(
      t,
      rows.map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? `b64:${v.toString('base64')}` : v))),
    );
  }
  return snap;
}

/** Differences between two snapshots (empty when equal). */
export function diffSnapshots(before: Snapshot, after: Snapshot, max = 20): string[] {
  const out: string[] = [];
  for (const t of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(t);
    const b = after.get(t);
    if (!a || !b) {
      out.push(`table ${t} ${a ? 'disappeared' : 'appeared'}`);
      continue;
    }
    const sa = new Set(a);
    const sb = new Set(b);
    const gone = a.filter((r) => !sb.has(r));
    const added = b.filter((r) => !sa.has(r));
    for (const r of gone.slice(0, max)) out.push(`${t}: row changed or removed: ${r.slice(0, 300)}`);
    for (const r of added.slice(0, max)) out.push(`${t}: row changed or added: ${r.slice(0, 300)}`);
  }
  return out;
}

export function integrity(db: Database.Database): { integrity: string; foreignKeyViolations: number } {
  const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
  const fk = db.pragma('foreign_key_check') as unknown[];
  return { integrity: rows.map((r) => r.integrity_check).join('; '), foreignKeyViolations: fk.length };
}

// ---------------------------------------------------------------------------------------------
// A spawned reference server

export type SpawnedServer = ReferenceProcess;

/** The reference server on `db` (`--port 0 --host 127.0.0.1 --db <db> ...args`), listening and healthy. */
export function startServer(db: string, args: string[], opts: { timeoutMs?: number } = {}): Promise<SpawnedServer> {
  return startReferenceProcess({ db, args, startTimeoutMs: opts.timeoutMs ?? 20_000 });
}

/** A server process on a file database of its own (in a fresh temporary directory), seeded with the
 * demo data and serving provider states: how the tests that read the file beside the server start
 * theirs (wire, hostile, slow-requests). */
export interface SeededServer {
  server: SpawnedServer;
  /** the database file: the tests open it read-only beside the server (snapshots, fixtures) */
  dbFile: string;
  /** SIGTERM; the server must exit with 0 (its last output in the message otherwise). The
   * directory is removed either way. */
  stop(): Promise<void>;
}

/** Starts a SeededServer named `name` (its directory `rflps-<name>-*`, its file `<name>.db`) with
 * `args` after `--seed demo --provider-states`. */
export async function startSeededServer(name: string, args: string[]): Promise<SeededServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rflps-${name}-`));
  const dbFile = path.join(dir, `${name}.db`);
  let server: SpawnedServer;
  try {
    server = await startServer(dbFile, ['--seed', 'demo', '--provider-states', ...args]);
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    server,
    dbFile,
    async stop() {
      try {
        const exit = await server.stop('SIGTERM');
        expect(exit.code, server.output().slice(-2000)).toBe(0);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface HttpResult {
  status: number;
  contentType: string | null;
  text: string;
  json: any;
}

/** fetch with a timeout; the body is read as text and parsed when it is JSON. */
export async function http(
  base: string,
  pathAndQuery: string,
  init: RequestInit & { token?: string | null; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('Token', init.token);
  if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const res = await fetch(base + pathAndQuery, {
    ...init,
    headers,
    signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
  });
  const r = await readResponse(res);
  return { status: r.status, contentType: r.headers.get('content-type'), text: r.text, json: r.json };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A provider-state setup against a server started with --provider-states. */
export async function providerState(
  base: string,
  state: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const r = await http(base, '/_provider-states', {
    method: 'POST',
    body: JSON.stringify({
      state,
      params: { setupId: `rel-${Math.random().toString(36).slice(2, 10)}`, ...params },
      action: 'setup',
    }),
  });
  if (r.status !== 200) throw new Error(`provider state '${state}' → ${r.status} ${r.text.slice(0, 300)}`);
  return r.json as Record<string, any>;
}

/** A seeded random number in [0, 1): pure-rand's xoroshiro128+, so runs replay from their seed. */
export function prng(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  return () => uniformFloat64(rng);
}
