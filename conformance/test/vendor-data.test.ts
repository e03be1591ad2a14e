// Vendors' data is safe: the whole suite (every profile) runs against a reference server seeded
// with `--seed demo`; every table is snapshotted before and after, and must be identical (only
// sqlite_sequence, the AUTOINCREMENT counters, may move). The suite changes only what its own
// provider states created, and their teardown removes it. Then a --read-only run: only
// non-mutating tests run, no request that changes data reaches the API, and nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RunResults, TestResult } from '../src/report/results.js';
import { ROOT } from '../../spec/paths.js';
import { startReferenceProcess, type ReferenceProcess } from '../src/targets/reference-process.js';
import { ONE_WORKER } from './helpers/cli.js';

const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');

let tmp: string;
let dbFile: string;
let server: ReferenceProcess | undefined;
let base = '';
let serverOut = '';

type Snapshot = Map<string, string[]>;

/** Every row of every table (sqlite_sequence aside), as JSON lines in rowid order. */
function snapshot(): Snapshot {
  const db = new Database(dbFile, { readonly: true });
  try {
    const tables = (
      db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
    const out: Snapshot = new Map();
    for (const t of tables) {
      const rows = db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all() as Array<Record<string, unknown>>;
      out.set(
        t,
        rows.map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? `b64:${v.toString('base64')}` : v))),
      );
    }
    return out;
  } finally {
    db.close();
  }
}

function diff(a: Snapshot, b: Snapshot): string[] {
  const out: string[] = [];
  for (const t of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(t) ?? [];
    const y = b.get(t) ?? [];
    const sx = new Set(x);
    const sy = new Set(y);
    for (const r of x.filter((r) => !sy.has(r)).slice(0, 10)) out.push(`${t}: changed or removed ${r.slice(0, 300)}`);
    for (const r of y.filter((r) => !sx.has(r)).slice(0, 10)) out.push(`${t}: changed or added ${r.slice(0, 300)}`);
  }
  return out;
}

function tests(r: RunResults): TestResult[] {
  const seen = new Map<string, TestResult>();
  for (const q of r.requirements) for (const t of q.tests) seen.set(t.id, t);
  return [...seen.values()];
}

function rows(s: Snapshot): number {
  let n = 0;
  for (const r of s.values()) n += r.length;
  return n;
}

function run(args: string[]): Promise<{ code: number | null; out: string; results?: RunResults; ms: number }> {
  const dir = fs.mkdtempSync(path.join(tmp, 'run-'));
  const t0 = Date.now();
  return new Promise((resolve) => {
    // one worker thread (helpers/cli.ts): the tests of a file still run 16 at once against the data
    const child = spawn(process.execPath, [BIN, 'run', '--base-url', base, '--report-dir', dir, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '', ...ONE_WORKER },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      const f = path.join(dir, 'results.json');
      resolve({
        code,
        out,
        ms: Date.now() - t0,
        results: fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : undefined,
      });
    });
  });
}

/** The server's request log lines ({method, path, status}) since `from` (an offset in its output). */
function requestsSince(from: number): Array<{ method: string; path: string; status: number }> {
  return serverOut
    .slice(from)
    .split('\n')
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as { method: string; path: string; status: number });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-vendor-'));
  dbFile = path.join(tmp, 'vendor.db');
  server = await startReferenceProcess({
    db: dbFile,
    args: ['--seed', 'demo', '--provider-states', '--log-level', 'info'],
    onOutput: (text) => (serverOut += text),
    startTimeoutMs: 20_000,
  });
  base = server.url;
}, 30_000);

afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe("vendors' data is safe", () => {
  it('the full suite (--profile all) against demo data leaves every table exactly as it was', async () => {
    const before = snapshot();
    expect(rows(before)).toBeGreaterThan(50);
    const r = await run(['--profile', 'all']);
    expect(r.results, r.out.slice(-3000)).toBeDefined();
    // the data check does not depend on every test passing (a failed test still tears down), but
    // the run must have exercised the suite
    expect([0, 1], r.out.slice(-3000)).toContain(r.code);
    expect(tests(r.results!).filter((t) => t.result === 'passed').length, r.out.slice(-3000)).toBeGreaterThan(100);
    const after = snapshot();
    const d = diff(before, after);
    const counts = r.results!.counts as Record<string, number>;
    console.log(
      `[reliability] vendor-data full: ${JSON.stringify({ tables: before.size, rows: rows(before), tests: counts, ms: r.ms, differences: d.length })}`,
    );
    expect(d).toEqual([]);
  }, 180_000);

  it('--read-only runs only non-mutating tests, sends no data-changing API request, and changes nothing', async () => {
    const listed = await new Promise<Array<{ id: string; mutates: boolean }>>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'list', '--json'], { cwd: ROOT });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`list exited ${code}`))));
    });
    const mutating = new Set(listed.filter((t) => t.mutates).map((t) => t.id));
    expect(mutating.size).toBeGreaterThan(10);
    const before = snapshot();
    const from = serverOut.length;
    const r = await run(['--profile', 'all', '--read-only']);
    expect(r.results, r.out.slice(-3000)).toBeDefined();
    expect([0, 1], r.out.slice(-3000)).toContain(r.code);
    const byId = new Map(tests(r.results!).map((t) => [t.id, t]));
    const ran = [...byId.values()].filter((t) => t.result !== 'not-applicable');
    expect(ran.length).toBeGreaterThan(10);
    for (const t of ran) expect(mutating.has(t.id), `${t.id} mutates but ran under --read-only`).toBe(false);
    for (const id of mutating) {
      const t = byId.get(id);
      if (t) expect(t.result, id).toBe('not-applicable');
    }
    // API requests that could change data: none (provider-state set-up and Authenticate aside)
    const api = requestsSince(from).filter((q) => q.path.startsWith('/api/'));
    const writes = api.filter((q) => MUTATING_METHODS.has(q.method) && q.status < 400);
    const d = diff(before, snapshot());
    console.log(
      `[reliability] vendor-data read-only: ${JSON.stringify({ ran: ran.length, leftOut: byId.size - ran.length, apiRequests: api.length, successfulWrites: writes.length, ms: r.ms, differences: d.length })}`,
    );
    expect(writes, 'successful POST/PUT/PATCH/DELETE on /api under --read-only').toEqual([]);
    expect(d).toEqual([]);
  }, 180_000);
});
