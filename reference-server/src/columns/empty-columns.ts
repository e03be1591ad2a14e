// Empty-column suppression (spec 4.2): a column null in every record of the answer is left out.

/** Drop the columns that are null in every row (excludeEmptyColumns). */
// REQ: QRY-011
// REQ: QRY-012
export function excludeEmptyColumns(rows: Array<Record<string, unknown>>): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]!);
  for (const k of keys) {
    if (rows.every((r) => r[k] === null || r[k] === undefined)) for (const r of rows) delete r[k];
  }
}
