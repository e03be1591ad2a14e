// Sequence rules of query pages (spec 4.2, 4.4): consecutive pages join, each page is its slice of
// the whole, and a provider state's filter selects exactly its records.
import { recordsOf, type TrafficExchange } from './exchange.js';
import { PAGES_JUDGE, judgePages } from '../judge/pages.js';
import { boolParam, intParam, judgedSequence, selectionKeepingParams, show, type SequenceRule } from './rule.js';
import { sortVerdict, totalCount } from './rules-columns.js';
import { op } from './sequence-records.js';

/** Rows as whole values, key order aside (the identity of a row when no ID column is asked for). */
const rowKey = (r: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(r)
      .sort()
      .map((k) => [k, r[k]]),
  );

/** QRY-006, FILE-022: consecutive pages of the same query join without overlap (judge/pages.ts). */
export const pagesJoin = judgedSequence([PAGES_JUDGE], {
  name: 'pages_join_without_overlap',
  requirements: ['QRY-006', 'FILE-022'],
  description:
    'two pages of the same sorted query (same parameters but the start offset, the second starting where the first, full, page ended) share no record and join in order (the last record of the first page and the first of the second keep the sort), only when both pages carry the same total count or a filter (no other writer assumed); a record is told by its ID column, else by its whole row when a complete answer of the same filter shows a requested column whose values tell its records apart',
  *findings(xs, ctx) {
    const b = ctx.bindings;
    const skipName = b.query.skip;
    const isQuery = (x: TrafficExchange) =>
      (op(x) === 'queryRecords' || op(x) === 'queryFiles') &&
      x.status === 200 &&
      Array.isArray((x.json as { List?: unknown } | undefined)?.List);
    const queries = xs.filter(isQuery);
    const without = (x: TrafficExchange, names: string[]) =>
      `${x.path}?${[...x.query]
        .filter(([k]) => !names.includes(k))
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join('&')}`;
    // the pages of each query, by start offset (keys built once: linear in the recording)
    const pages = new Map<string, Map<number, TrafficExchange[]>>();
    for (const x of queries) {
      if (!x.query.get('sort')) continue;
      const k = without(x, [skipName]);
      const s = intParam(x.query, skipName) ?? (x.query.has(skipName) ? -1 : 0);
      if (s < 0) continue;
      const m = pages.get(k) ?? new Map<number, TrafficExchange[]>();
      const at = m.get(s);
      if (at) at.push(x);
      else m.set(s, [x]);
      pages.set(k, m);
    }
    // complete answers of a filter (from offset 0, fewer records than asked): the columns that tell its records apart
    const telling = new Map<string, Set<string>>();
    for (const x of queries) {
      const f = x.query.get(b.query.filter);
      if (!f || (intParam(x.query, skipName) ?? 0) !== 0) continue;
      const rows = recordsOf(x);
      const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
      if (rows.length === 0 || rows.length >= take) continue;
      const k = `${x.path}?${f}`;
      const cols = telling.get(k) ?? new Set<string>();
      for (const c of Object.keys(rows[0]))
        if (
          rows.every((r) => r[c] !== null && r[c] !== undefined) &&
          new Set(rows.map((r) => show(r[c]))).size === rows.length
        )
          cols.add(c);
      telling.set(k, cols);
    }
    const total = (x: TrafficExchange) => totalCount(x, ctx);
    for (const [, byStart] of pages)
      for (const [s1, firsts] of byStart)
        for (const p1 of firsts) {
          const r1 = recordsOf(p1);
          const take = intParam(p1.query, 'take') ?? 30;
          if (r1.length === 0 || r1.length !== take) continue;
          const p2 = (byStart.get(s1 + take) ?? []).find((p) => p !== p1);
          if (!p2) continue;
          const filter = p1.query.get(b.query.filter);
          const stable = !!filter || (total(p1) !== undefined && total(p1) === total(p2));
          const r2 = recordsOf(p2);
          if (!stable || r2.length === 0) continue;
          const domain = p1.operation!.pathParams.domain ?? 'File';
          const idKey = [`${domain.replace(/^Custom\./, '')}ID`, 'ID', 'Id'].find(
            (k) => r1.every((r) => k in r) && r2.every((r) => k in r),
          );
          const tells = filter ? telling.get(`${p1.path}?${filter}`) : undefined;
          const byRow = !idKey && [...(tells ?? [])].some((c) => [...r1, ...r2].every((r) => c in r));
          if (!idKey && !byRow) continue;
          const keyOf = (r: Record<string, unknown>) => (idKey ? show(r[idKey]) : rowKey(r));
          const ids1 = new Set(r1.map(keyOf));
          if (ids1.size !== r1.length) continue;
          // the pages join into one ordered set: the last record of the first and the first of the second keep the order
          const seamBroken = sortVerdict(p1.query, [r1[r1.length - 1], r2[0]])?.broken;
          const pages = [r1, r2].map((r, i) => ({ skip: s1 + i * take, take, keys: r.map(keyOf) }));
          yield [judgePages(op(p1), pages, { seamBroken }), [p1, p2]];
        }
  },
});

/** QRY-006, QRY-007, FILE-022: a page is the slice of the whole ordered set that its start offset and take name (judge/pages.ts). */
export const pagesAreSlices = judgedSequence([PAGES_JUDGE], {
  name: 'pages_are_slices_of_the_whole',
  requirements: ['QRY-006', 'QRY-007', 'FILE-022'],
  description:
    'where one answer of a sorted, filtered query holds the whole set (no start offset or 0, and fewer records than take or as many as an answer of the filter from its first record with fewer than take) with no two records tied on the sort, every page of the same query and columns is its slice from the start offset (without one, from the first record)',
  *findings(xs, ctx) {
    const b = ctx.bindings;
    const skipName = b.query.skip;
    const sorted = xs.filter(
      (x) =>
        (op(x) === 'queryRecords' || op(x) === 'queryFiles') &&
        x.status === 200 &&
        !!x.query.get('sort') &&
        !!x.query.get(b.query.filter) &&
        Array.isArray((x.json as { List?: unknown } | undefined)?.List),
    );
    const keyOf = (x: TrafficExchange) =>
      `${x.path}?${[...x.query]
        .filter(([k]) => k !== skipName && k !== 'take' && k !== b.query.includeTotalCount)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join('&')}`;
    // how many records a filter selects: any answer of it from the first record with fewer than take
    const sizes = new Map<string, number>();
    for (const x of xs) {
      const f = x.query.get(b.query.filter);
      if (!f || x.status !== 200 || (op(x) !== 'queryRecords' && op(x) !== 'queryFiles')) continue;
      const list = (x.json as { List?: unknown } | undefined)?.List;
      const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
      if ((intParam(x.query, skipName) ?? (x.query.has(skipName) ? -1 : 0)) !== 0 || !Array.isArray(list)) continue;
      if (list.length < take && list.length > 0) sizes.set(`${x.path}?${f}`, list.length);
    }
    const wholes = new Map<string, { x: TrafficExchange; rows: string[] }>();
    for (const x of sorted) {
      const skip = intParam(x.query, skipName) ?? (x.query.has(skipName) ? -1 : 0);
      const rows = recordsOf(x);
      const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
      const size = sizes.get(`${x.path}?${x.query.get(b.query.filter)}`);
      if (skip !== 0 || rows.length === 0 || !(rows.length < take || rows.length === size)) continue;
      const k = keyOf(x);
      if (wholes.has(k)) continue;
      // no ties on the sort: each pair of neighbours is decided by it, so the order is one
      const v = sortVerdict(x.query, rows);
      if (!v || v.broken || v.judged !== rows.length - 1) continue;
      wholes.set(k, { x, rows: rows.map(rowKey) });
    }
    for (const x of sorted) {
      const whole = wholes.get(keyOf(x));
      if (!whole || whole.x === x) continue;
      const skip = intParam(x.query, skipName) ?? (x.query.has(skipName) ? -1 : 0);
      const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
      if (skip < 0 || take < 1) continue;
      const rows = recordsOf(x).map(rowKey);
      // an empty page may predate the filter's records (written by a provider state or a client the recording does not show)
      if (rows.length === 0) continue;
      const page = { skip: x.query.has(skipName) ? skip : undefined, take, keys: rows };
      yield [judgePages(op(x), [page], { whole: whole.rows }), [whole.x, x]];
    }
  },
});

/**
 * QRY-009, QRY-010, QRY-014: a query with the filter a "records" provider state gave selects
 * exactly its records; with its LINQ filter alone, exactly those at odd positions short of the
 * last (spec/provider-states.yaml); the first page holds as many as take allows, and the total
 * count is the number selected.
 */
export const stateFilterSelects: SequenceRule = {
  name: 'state_filter_selects_its_records',
  requirements: ['QRY-009', 'QRY-010', 'QRY-014'],
  description:
    'a query of the domain with the filter (or, alone, the LINQ filter) a "records" provider state gave, without a start offset and with take above the number selected, answers exactly the selected rows and, with the total count on, the number selected (filter: all the state\'s records; LINQ filter: those at odd positions short of the last)',
  judge(xs, ctx, emit) {
    if (!ctx.states?.records.length) return;
    const q = ctx.bindings.query;
    const allowed = selectionKeepingParams(q, q.linqFilter);
    for (const x of xs) {
      if (op(x) !== 'queryRecords' || x.status !== 200) continue;
      const rows = (x.json as { List?: unknown } | undefined)?.List;
      if (!Array.isArray(rows) || [...x.query.keys()].some((k) => !allowed.has(k))) continue;
      if ((intParam(x.query, q.skip) ?? 0) !== 0 || (x.query.has(q.skip) && intParam(x.query, q.skip) === undefined))
        continue;
      const f = x.query.get(q.filter);
      const l = x.query.get(q.linqFilter);
      const hits = ctx.states.records.filter(
        (r) =>
          r.domain === x.operation!.pathParams.domain &&
          x.startMs >= r.from &&
          x.endMs <= r.to &&
          ((f !== null && l === null && f === r.filter) || (l !== null && f === null && l === r.linqFilter)),
      );
      if (hits.length !== 1) continue;
      const r = hits[0];
      const linq = l !== null;
      const selected = linq ? r.ids.filter((_, i) => i % 2 === 1 && i < r.ids.length - 1).length : r.ids.length;
      const take = x.query.has('take') ? intParam(x.query, 'take') : 30;
      if (take === undefined) continue;
      // only where take cannot cut the selection: a page cut short or long is for the take rules to name
      if (selected >= Math.min(take, 100)) continue;
      const want = selected;
      const req = linq ? 'QRY-010' : 'QRY-009';
      const what = `${linq ? 'the LINQ filter' : 'the filter'} of ${r.setup.source} (${selected} of its ${r.ids.length} records)`;
      emit(
        [req],
        rows.length === want,
        rows.length === want
          ? `${rows.length} row(s) for ${what}`
          : `${rows.length} row(s) for ${what} (take ${take}): ${want} expected`,
        [x],
      );
      if (boolParam(x.query, q.includeTotalCount) === true) {
        const n = totalCount(x, ctx);
        if (n === undefined) continue;
        emit(['QRY-014'], n === selected, `total count ${show(n)} for ${what}`, [x]);
      }
    }
  },
};
