// `--single-id-sequence`: record IDs of every domain come from one sequence, as in services whose
// records share one key space. The spec does not say whether IDs are unique per domain or across
// domains; with one sequence, two records of different domains never share an ID, so the fixtures
// that need such twins cannot exist (the provider states answer 501 FixtureCannotExist).
import type Database from 'better-sqlite3';
import { q, type DomainDef } from './dictionary.js';

/**
 * After every insert into a domain table, every domain table's AUTOINCREMENT counter moves up to the
 * new key: the next record of any domain gets a key above every key of every domain.
 */
export function shareIdSequence(db: Database.Database, domains: readonly DomainDef[]): void {
  const tables = [...new Set(domains.map((d) => d.table))];
  const list = tables.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');
  db.transaction(() => {
    for (const t of tables) {
      db.prepare(
        'INSERT INTO sqlite_sequence (name, seq) SELECT ?, 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)',
      ).run(t, t);
    }
    // start every counter at the highest key of any domain (rows that exist keep their IDs)
    db.prepare(
      `UPDATE sqlite_sequence SET seq = (SELECT max(seq) FROM sqlite_sequence WHERE name IN (${list})) WHERE name IN (${list})`,
    ).run();
    for (const d of domains) {
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${q(`share_ids_${d.table}`)} AFTER INSERT ON main.${q(d.table)} BEGIN ` +
          `UPDATE sqlite_sequence SET seq = NEW.${q(d.key)} WHERE name IN (${list}) AND seq < NEW.${q(d.key)}; END`,
      );
    }
  })();
}
