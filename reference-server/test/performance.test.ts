// The performance changes of the query path (measured by `npm run bench`): the statement cache of
// db.ts, the dictionary's extra indexes, and pages read keys first (columns/paging.ts). These tests
// check behaviour only, never timing.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheStatements } from '../src/db.js';
import { seekCounts } from '../src/page-seek.js';
import { harness, type Harness } from './app-core.harness.js';

describe('statement cache', () => {
  it('returns the same statement for the same SQL and keeps at most max, least recently used out', () => {
    const db = new Database(':memory:');
    cacheStatements(db, 2);
    const a = db.prepare('SELECT 1 AS n');
    expect(db.prepare('SELECT 1 AS n')).toBe(a);
    const b = db.prepare('SELECT 2 AS n');
    expect(db.prepare('SELECT 1 AS n')).toBe(a); // a is now the most recently used
    db.prepare('SELECT 3 AS n'); // evicts b
    expect(db.prepare('SELECT 1 AS n')).toBe(a);
    expect(db.prepare('SELECT 2 AS n')).not.toBe(b);
    expect((a.get() as { n: number }).n).toBe(1);
    db.close();
  });

  it('a cached statement binds fresh parameters on every run and still sees schema changes', () => {
    const db = new Database(':memory:');
    cacheStatements(db);
    db.exec('CREATE TABLE t (a INTEGER)');
    db.prepare('INSERT INTO t (a) VALUES (?)').run(1);
    db.prepare('INSERT INTO t (a) VALUES (?)').run(2);
    expect(db.prepare('SELECT a FROM t WHERE a = ?').get(2)).toEqual({ a: 2 });
    expect(db.prepare('SELECT a FROM t WHERE a = ?').get(1)).toEqual({ a: 1 });
    db.exec('ALTER TABLE t ADD COLUMN b TEXT');
    expect(db.prepare('SELECT * FROM t WHERE a = ?').get(1)).toEqual({ a: 1, b: null });
    db.close();
  });

  it('a failed prepare is not cached', () => {
    const db = new Database(':memory:');
    cacheStatements(db);
    expect(() => db.prepare('SELECT * FROM nope')).toThrow();
    db.exec('CREATE TABLE nope (x)');
    expect(db.prepare('SELECT * FROM nope').all()).toEqual([]);
    db.close();
  });
});

describe('query path', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.close());

  it('the Claim table has the dictionary indexes for Status + LossDate and LossDate, in both directions', () => {
    const names = (
      h.deps.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Claim'`).all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'ix_Claim_Status_LossDate',
        'ix_Claim_Status_LossDate_desc',
        'ix_Claim_LossDate',
        'ix_Claim_LossDate_desc',
      ]),
    );
    const plan = (sql: string) =>
      (h.deps.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('Open') as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('\n');
    // both directions with the documented tie-break (the key ascending) read one index in order:
    // no sort step (USE TEMP B-TREE) however deep the page
    for (const dir of ['ASC', 'DESC']) {
      const p = plan(
        `SELECT "ClaimID" FROM "Claim" t WHERE t."Status" = ? ORDER BY t."LossDate" ${dir}, t."ClaimID" ASC LIMIT 10 OFFSET 100`,
      );
      expect(p).toMatch(/COVERING INDEX ix_Claim_Status_LossDate/);
      expect(p).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('pages (keys first, then columns) equal slices of the whole ordered result, ties and joins included', async () => {
    const s = await h.state('records', { count: 57, domain: 'Claim' });
    const loc = h.deps.db.prepare(`INSERT INTO "Location" ("Name") VALUES ('L')`).run().lastInsertRowid;
    // few distinct values: many ties, broken by ClaimID
    h.deps.db
      .prepare(
        `UPDATE "Claim" SET "Status" = CASE "ClaimID" % 3 WHEN 0 THEN 'Open' ELSE 'Closed' END, "LossDate" = '2020-01-0' || ("ClaimID" % 4 + 1), "LocationID" = ?`,
      )
      .run(loc);
    const base = `/api/Claim/Query?filter=${encodeURIComponent(s.filter)}&columns=ClaimID,Status,LossDate,Location.Name`;
    for (const sort of ['LossDate desc', 'Status,LossDate desc', 'Location.Name desc,LossDate']) {
      const whole = (await h.get(`${base}&sort=${encodeURIComponent(sort)}&take=100`)).json.List as Array<
        Record<string, unknown>
      >;
      expect(whole).toHaveLength(57);
      expect(whole.every((r) => r['Location.Name'] === 'L')).toBe(true);
      const paged: Array<Record<string, unknown>> = [];
      for (let skip = 0; skip < 57; skip += 10) {
        paged.push(
          ...((await h.get(`${base}&sort=${encodeURIComponent(sort)}&take=10&skip=${skip}`)).json.List as Array<
            Record<string, unknown>
          >),
        );
      }
      expect(paged).toEqual(whole);
      // the order is the sort, then the key ascending
      const keys = sort.split(',').map((x) => x.split(' ') as [string, string | undefined]);
      const expected = [...whole].sort((x, y) => {
        for (const [col, dir] of keys) {
          const c = String(x[col]).localeCompare(String(y[col]));
          if (c) return dir === 'desc' ? -c : c;
        }
        return Number(x.ClaimID) - Number(y.ClaimID);
      });
      expect(whole).toEqual(expected);
    }
    expect((await h.get(`${base}&sort=LossDate&take=10&skip=57`)).json.List).toEqual([]);
  });

  it('deep pages from a remembered page end (page-seek.ts) equal the offset pages, NULLs, ties and writes included', async () => {
    const s = await h.state('records', { count: 60, domain: 'Claim' });
    // NULL dates and amounts, few distinct values: the seek predicate must place NULLs as ORDER BY does
    h.deps.db
      .prepare(
        `UPDATE "Claim" SET "LossDate" = CASE WHEN "ClaimID" % 5 = 0 THEN NULL ELSE '2020-01-0' || ("ClaimID" % 3 + 1) END, "ReserveAmount" = CASE WHEN "ClaimID" % 4 = 0 THEN NULL ELSE "ClaimID" % 2 END`,
      )
      .run();
    const base = `/api/Claim/Query?filter=${encodeURIComponent(s.filter)}&columns=ClaimID,LossDate,ReserveAmount`;
    const list = async (q: string) => (await h.get(`${base}&${q}`)).json.List as Array<Record<string, unknown>>;
    const seeks = seekCounts.fromEnd;
    for (const sort of ['LossDate desc', 'LossDate', 'ReserveAmount desc,LossDate', 'ReserveAmount,LossDate desc']) {
      const sq = `sort=${encodeURIComponent(sort)}`;
      const whole = await list(`${sq}&take=100`);
      expect(whole).toHaveLength(60);
      // walk forward (each page starts from the previous end), then jump around (nearest end before)
      for (const skip of [7, 14, 21, 28, 35, 42, 49, 56, 59, 60, 3, 44, 44, 13, 58, 1])
        expect(await list(`${sq}&take=7&skip=${skip}`), `${sort}, skip ${skip}`).toEqual(whole.slice(skip, skip + 7));
      // a write forgets every remembered end: the pages follow the new data
      h.deps.db.prepare(`UPDATE "Claim" SET "LossDate" = '2019-12-31' WHERE "ClaimID" % 7 = 0`).run();
      const after = await list(`${sq}&take=100`);
      for (const skip of [14, 28, 42])
        expect(await list(`${sq}&take=7&skip=${skip}`), `${sort} after a write, skip ${skip}`).toEqual(
          after.slice(skip, skip + 7),
        );
    }
    // the remembered ends were used (all but the first page of each walk and after each write)
    expect(seekCounts.fromEnd - seeks).toBeGreaterThan(40);
  });
});

describe('--exclusive-db', () => {
  it('holds the file exclusively, and a revoked token stops working at once', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createApp } = await import('../src/app.js');
    const { createUser, issueToken, userForToken } = await import('../src/auth.js');
    const dir = mkdtempSync(join(tmpdir(), 'rflps-exclusive-'));
    const created = createApp({ dbPath: join(dir, 'x.db'), exclusiveDb: true, bindWorker: false, log: () => {} });
    try {
      const { deps } = created;
      expect(String(deps.db.pragma('locking_mode', { simple: true })).toLowerCase()).toBe('exclusive');
      const userId = createUser(deps.db, { name: 'x' });
      const { token } = issueToken(deps, userId);
      expect(userForToken(deps, token)?.userId).toBe(userId);
      expect(userForToken(deps, token)?.userId).toBe(userId); // cached
      deps.db.prepare('DELETE FROM tokens WHERE Token = ?').run(token);
      expect(userForToken(deps, token)).toBeUndefined();
      // another connection cannot read the file while the server holds it
      const other = new Database(join(dir, 'x.db'), { timeout: 50 });
      expect(() => other.prepare('SELECT COUNT(*) FROM users').get()).toThrow(/locked|busy/i);
      other.close();
    } finally {
      created.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
