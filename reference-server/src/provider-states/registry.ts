// Provider-state tracking (architecture section 5): the shape of a state, and the context a setup
// gets to track what it creates so that the teardown removes exactly that.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { q } from '../dictionary.js';
import type { StateMode } from './protocol.js';

/** How this endpoint answers (main.ts: --provider-states-mode, --single-id-sequence). */
export interface StateOptions {
  mode: StateMode;
  /** Record IDs of every domain come from one sequence: twins (one ID in two domains) cannot exist. */
  singleIdSequence: boolean;
}

export interface StateContext {
  deps: Deps;
  options: StateOptions;
  setupId: string;
  /** Record a row created by this setup; the default teardown deletes it. `table` is a domain name
   * (its table) or an internal table (users, links, codes, ...); `id` its primary key. */
  track(table: string, id: number): void;
  /** Rows tracked so far for this setup (same state, params and setupId), in creation order. */
  tracked(table?: string): Array<{ table: string; id: number; data: unknown }>;
  /** Track with a JSON payload (e.g. a previous setting value to restore). */
  trackData(table: string, id: number, data: unknown): void;
}

export interface StateDef {
  setup(params: Record<string, unknown>, ctx: StateContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Runs before the default teardown (which deletes the tracked rows). */
  teardown?(params: Record<string, unknown>, ctx: StateContext): void;
}

/** Canonical JSON (sorted keys) so that the same params give the same tracking key. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v && typeof v === 'object') {
    return (
      '{' +
      Object.keys(v)
        .sort()
        .map((k) => JSON.stringify(k) + ':' + canonical((v as Record<string, unknown>)[k]))
        .join(',') +
      '}'
    );
  }
  return JSON.stringify(v) ?? 'null';
}

function trackKey(state: string, params: Record<string, unknown>): string {
  return createHash('sha256')
    .update(state + '\u0000' + canonical(params))
    .digest('hex');
}

export function makeContext(
  deps: Deps,
  state: string,
  params: Record<string, unknown>,
  options: StateOptions = { mode: 'full', singleIdSequence: false },
): StateContext {
  const key = trackKey(state, params);
  const ins = deps.db.prepare('INSERT INTO state_objects (TrackKey, TableName, RowID, Data) VALUES (?, ?, ?, ?)');
  return {
    deps,
    options,
    setupId: String(params.setupId ?? ''),
    track: (table, id) => void ins.run(key, table, id, null),
    trackData: (table, id, data) => void ins.run(key, table, id, JSON.stringify(data ?? null)),
    tracked: (table) => {
      const rows = deps.db
        .prepare('SELECT TableName, RowID, Data FROM state_objects WHERE TrackKey = ? ORDER BY Seq')
        .all(key) as Array<{ TableName: string; RowID: number; Data: string | null }>;
      return rows
        .filter((r) => table === undefined || r.TableName === table)
        .map((r) => ({ table: r.TableName, id: r.RowID, data: r.Data === null ? undefined : JSON.parse(r.Data) }));
    },
  };
}

function primaryKeyOf(deps: Deps, table: string): string | undefined {
  const def = deps.dict.get(table);
  if (def) return def.key;
  const cols = deps.db.prepare(`SELECT name, pk FROM pragma_table_info(?)`).all(table) as Array<{
    name: string;
    pk: number;
  }>;
  return cols.find((c) => c.pk === 1)?.name;
}

/** Delete one tracked row. A domain record also takes its links along (both sides), so that no link
 * points at a record that no longer exists. */
function deleteTracked(deps: Deps, table: string, id: number): void {
  const key = primaryKeyOf(deps, table);
  if (!key) return; // not a table (e.g. a pure data entry)
  deps.db.prepare(`DELETE FROM ${q(table)} WHERE ${q(key)} = ?`).run(id);
  const def = deps.dict.get(table);
  if (def) {
    deps.db
      .prepare('DELETE FROM links WHERE (ParentDomainID = ? AND ParentID = ?) OR (ChildDomainID = ? AND ChildID = ?)')
      .run(def.id, id, def.id, id);
  }
}

/** Default teardown: delete everything tracked for this state+params, newest first. */
export function defaultTeardown(ctx: StateContext, state: string, params: Record<string, unknown>): void {
  const key = trackKey(state, params);
  const { db } = ctx.deps;
  db.transaction(() => {
    const rows = ctx.tracked().reverse();
    for (const r of rows) deleteTracked(ctx.deps, r.table, r.id);
    db.prepare('DELETE FROM state_objects WHERE TrackKey = ?').run(key);
  })();
}
