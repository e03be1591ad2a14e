// Service settings, persisted in the `settings` table and mirrored in deps.settings.
import type Database from 'better-sqlite3';
import type { Settings } from './deps.js';
import { own } from './own.js';

/** Setting names of the service mapped to the fields of Settings. */
export const SETTING_NAMES: Record<string, keyof Settings> = {
  'Service.EnableEnhancedSessionIDSecurity': 'enhancedSessionIDSecurity',
};

const DEFAULTS: Settings = { enhancedSessionIDSecurity: true };

export function loadSettings(db: Database.Database, overrides: Partial<Settings> = {}): Settings {
  const settings: Settings = { ...DEFAULTS };
  const rows = db.prepare('SELECT Name, Value FROM settings').all() as Array<{ Name: string; Value: string }>;
  for (const r of rows) {
    const field = own(SETTING_NAMES, r.Name);
    if (field) settings[field] = JSON.parse(r.Value) as never;
  }
  for (const [name, field] of Object.entries(SETTING_NAMES)) {
    if (overrides[field] !== undefined) {
      settings[field] = overrides[field] as never;
      saveSetting(db, name, overrides[field]);
    }
  }
  return settings;
}

function saveSetting(db: Database.Database, name: string, value: unknown): void {
  db.prepare(
    'INSERT INTO settings (Name, Value) VALUES (?, ?) ON CONFLICT (Name) DO UPDATE SET Value = excluded.Value',
  ).run(name, JSON.stringify(value));
}

/** Set a setting by its service name, in the database and in the live settings object. */
export function setSetting(db: Database.Database, settings: Settings, name: string, value: unknown): void {
  const field = own(SETTING_NAMES, name);
  if (!field) throw new Error(`unknown setting ${name}`);
  settings[field] = value as never;
  saveSetting(db, name, value);
}

/**
 * Number new rows of every AUTOINCREMENT table from `first` on (`--id-start`): a vendor's IDs need
 * not start at 1, and the conformance controls prove the suite does not assume they do. Rows that
 * exist already (seeded domains and code lists) keep their IDs.
 */
export function startIdsAt(db: Database.Database, first: number): void {
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'`)
    .all() as Array<{ name: string }>;
  const seq = first - 1;
  const bump = db.transaction(() => {
    for (const { name } of tables) {
      db.prepare('UPDATE sqlite_sequence SET seq = ? WHERE name = ? AND seq < ?').run(seq, name, seq);
      db.prepare(
        'INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)',
      ).run(name, seq, name);
    }
  });
  bump();
}
