// Service settings, persisted in the `settings` table and mirrored in deps.settings.
import type Database from 'better-sqlite3';
import type { Settings } from './deps.js';

/** Setting names of the service mapped to the fields of Settings. */
export const SETTING_NAMES: Record<string, keyof Settings> = {
  'Service.EnableEnhancedSessionIDSecurity': 'enhancedSessionIDSecurity',
};

const DEFAULTS: Settings = { enhancedSessionIDSecurity: true };

export function loadSettings(db: Database.Database, overrides: Partial<Settings> = {}): Settings {
  const settings: Settings = { ...DEFAULTS };
  const rows = db.prepare('SELECT Name, Value FROM settings').all() as Array<{ Name: string; Value: string }>;
  for (const r of rows) {
    const field = SETTING_NAMES[r.Name];
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
  const field = SETTING_NAMES[name];
  if (!field) throw new Error(`unknown setting ${name}`);
  settings[field] = value as never;
  saveSetting(db, name, value);
}
