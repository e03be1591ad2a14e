// The performance changes of the query path (measured by `npm run bench`): the statement cache of
// db.ts, the dictionary's extra indexes, and pages read keys first (columns-engine.ts). These tests
// check behaviour only, never timing.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheStatements } from '../src/db.js';
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
});
