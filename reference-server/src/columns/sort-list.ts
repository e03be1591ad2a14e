// The `sort` parameter (spec 4.2): comma-separated `<column>` or `<column> <direction>` items, each
// resolved through the select builder. The caller adds the key last, so the order is total.
import { ApiError } from '../errors.js';
import type { SortTerm } from '../page-seek.js';
import type { SelectBuilder } from './select-builder.js';

/** At most this many items in `sort` (SQLite refuses more than 2000 ORDER BY terms; without a cap
 * a long URL of short names answered 500). More → 400. */
const MAX_SORT_ITEMS = 100;

/** The ORDER BY terms of `sort`, in its order (none when it is absent or blank). */
export function parseSortList(b: SelectBuilder, sort: string | undefined): SortTerm[] {
  const terms: SortTerm[] = [];
  if (sort !== undefined && sort.trim() !== '') {
    // REQ: QRY-023 — `asc` is an explicit ascending keyword.
    // REQ: QRY-024 — several comma-separated items: the first decides, ties go to the next.
    // REQ: QRY-008
    const items = sort.split(',');
    if (items.length > MAX_SORT_ITEMS)
      throw new ApiError(
        400,
        'MalformedRequest',
        `'sort' may list at most ${MAX_SORT_ITEMS} columns; got ${items.length}.`,
      );
    for (const item of items) {
      const s = item.trim();
      if (!s) continue;
      const m = /^(\S+)(?:\s+(asc|desc|ascending|descending))?$/i.exec(s);
      if (!m)
        throw new ApiError(400, 'MalformedRequest', `Sort item '${s}' is not of the form <column> or <column> desc.`);
      const r = b.resolve(m[1]!, 'sort');
      if (r.kind !== 'sql') throw new ApiError(400, 'UnknownColumn', `Column '${m[1]}' cannot be sorted on.`);
      terms.push({ sql: r.sql, desc: !!m[2] && m[2].toLowerCase().startsWith('desc') });
    }
  }
  return terms;
}
