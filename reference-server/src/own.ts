// Lookups by a name that may come from a request (a column, property, field, setting, state or
// status name) see only a table's own entries. `table[name]` on a plain object also finds what
// every object inherits: `constructor`, `toString`, `__proto__`, `hasOwnProperty`... (issue 35:
// `Custom2Code.constructor` passed the coded-property check and reached SQL as a column, a 500).
// The lint rules of eslint.config.js ("own lookups") make a constant table read with a computed
// key, and the `in` operator, errors in reference-server/src: such reads go through `own()`, or
// the table is a Map.

/** `table[key]` when `key` is an own entry of `table`, else undefined (never an inherited member). */
export function own<V>(table: Readonly<Record<string, V>>, key: string | number): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
