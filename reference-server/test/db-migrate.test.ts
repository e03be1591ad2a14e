// openDatabase on a file an older reference made: the columns the dictionary gained since are added
// (CREATE TABLE IF NOT EXISTS alone leaves the old table as it was, and every read of it failed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../src/db.js';
import { DOMAINS } from '../src/dictionary.js';

it('adds the columns a domain gained to a table of an older database file, keeping its rows', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ref-db-')), 'old.db');
  const older = DOMAINS.map((d) =>
    d.name === 'Claim' ? { ...d, fields: d.fields.filter((f) => f.name !== 'IsLitigated') } : d,
  );
  const old = openDatabase(file, older);
  old.prepare('INSERT INTO "Claim" ("ClaimNumber") VALUES (?)').run('C-1');
  old.close();
  const db = openDatabase(file);
  const cols = (db.prepare('PRAGMA table_info("Claim")').all() as Array<{ name: string }>).map((c) => c.name);
  expect(cols).toContain('IsLitigated');
  expect(db.prepare('SELECT "ClaimNumber", "IsLitigated" FROM "Claim"').all()).toEqual([
    { ClaimNumber: 'C-1', IsLitigated: null },
  ]);
  db.close();
});
