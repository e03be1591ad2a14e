// Shared dependencies of the area modules (docs/architecture.md section 6.1).
import type Database from 'better-sqlite3';
import type { Dictionary } from './dictionary.js';
import type { User } from './permissions.js';

/** Runtime settings (mutable: the provider state 'a setting' changes them). */
export interface Settings {
  /** Service.EnableEnhancedSessionIDSecurity (spec 4.3 rule 4). */
  enhancedSessionIDSecurity: boolean;
}

export interface Deps {
  db: Database.Database; // better-sqlite3
  dict: Dictionary; // src/dictionary.ts
  settings: Settings; // mutable
  clock: () => Date;
}

/** Hono's context variables: the authenticated user (set by the auth middleware). Areas get their
 * dependencies through `register(app, deps)`, not through the context. */
export type AppEnv = { Variables: { user: User } };

/** Timestamp in the service's format: ISO 8601, UTC, milliseconds, no zone designator
 * (`2026-11-21T05:40:12.345`). */
export function timestamp(d: Date): string {
  return d.toISOString().slice(0, 23);
}
