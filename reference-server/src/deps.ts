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

/** The clock of a server started without one (createApp): the system time. */
export const systemClock = (): Date => new Date();

/** `deps.clock().getTime()`, without a Date per call on the system clock: the token cache reads the
 * time on every authenticated request (auth.ts; 0.4 µs of a record read in the profile of
 * docs/benchmarks.md, 28 November). An injected clock (tests) is still called every time. */
export function nowMs(deps: Deps): number {
  return deps.clock === systemClock ? Date.now() : deps.clock().getTime();
}

/** Hono's context variables: the authenticated user and the token it was found by (set by
 * `authenticate`). Areas get their dependencies through `register(app, deps)`, not through the
 * context. */
export type AppEnv = { Variables: { user: User; token: string } };

/** Timestamp in the service's format: ISO 8601, UTC, milliseconds, no zone designator
 * (`2026-11-21T05:40:12.345`). */
export function timestamp(d: Date): string {
  return d.toISOString().slice(0, 23);
}
