// Time formats beside the dictionary's timestamp (deps.ts `timestamp`).
/** UTC ISO 8601 timestamp with 'Z' (BoundDateUTC). */
export function utcTimestamp(d: Date): string {
  return d.toISOString();
}
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
