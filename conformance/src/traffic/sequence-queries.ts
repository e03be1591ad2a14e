// Sequence rules over several answers of one filtered query: the same query with and without
// empty-column suppression, and the total count across its pages. A filter is required (the
// records a filter selects are taken as stable between the calls; without one, another client's
// new record could change the answer, which no rule may blame on the implementation).
import { totalCount } from './rules-columns.js';
import { hasDuplicateKeys, requestedColumns } from '../judge/col.js';
import { recordsOf, type TrafficExchange } from './exchange.js';
import { boolParam, intParam, isInt, show, type RuleContext, type SequenceRule } from './rule.js';
import { between, op } from './sequence-records.js';

const queries = (xs: TrafficExchange[], ctx: RuleContext) =>
  xs.filter(
    (x) =>
      (x.operation?.operationId === 'queryRecords' || x.operation?.operationId === 'queryFiles') &&
      x.status === 200 &&
      Array.isArray((x.json as { List?: unknown } | undefined)?.List) &&
      (x.query.get(ctx.bindings.query.filter) ?? '') !== '',
  );

/** The query's identity without the named parameters. */
function keyWithout(x: TrafficExchange, names: string[]): string {
  const q = [...x.query]
    .filter(([k]) => !names.includes(k))
    .sort(([a, va], [b, vb]) => a.localeCompare(b) || va.localeCompare(vb));
  return `${x.path}?${new URLSearchParams(q).toString()}`;
}

/** QRY-011, QRY-012: the same query with suppression on keeps exactly the columns that have a value without it. */
const suppressionAgainstPlain: SequenceRule = {
  name: 'suppression_against_plain_query',
  requirements: ['QRY-011', 'QRY-012'],
  description:
    'the same filtered query answered with and without empty-column suppression: with it, a requested column is kept in every record exactly when it holds a value in some record of the answer without it',
  judge(xs, ctx, emit) {
    const name = ctx.bindings.query.excludeEmptyColumns;
    const qs = queries(xs, ctx);
    for (const on of qs.filter((x) => boolParam(x.query, name) === true)) {
      const cols = requestedColumns(on.query.get('columns'));
      if (!cols || hasDuplicateKeys(cols)) continue;
      const plain = qs.find(
        (x) => boolParam(x.query, name) !== true && keyWithout(x, [name]) === keyWithout(on, [name]),
      );
      if (!plain) continue;
      const a = recordsOf(on);
      const b = recordsOf(plain);
      if (a.length !== b.length || b.length === 0) continue;
      for (const c of cols) {
        const valued = b.some((r) => r[c.key] !== null && r[c.key] !== undefined);
        const kept = a.filter((r) => c.key in r).length;
        if (valued && kept !== a.length)
          return emit(
            ['QRY-012'],
            false,
            `column ${c.key} has a value without suppression, yet with it is in ${kept} of ${a.length} records`,
            [plain, on],
          );
        if (!valued && kept > 0)
          return emit(['QRY-011'], false, `column ${c.key} is null in every record, yet suppression keeps it`, [
            plain,
            on,
          ]);
      }
      emit(['QRY-011', 'QRY-012'], true, `${cols.length} column(s) kept or omitted as the plain answer's values say`, [
        plain,
        on,
      ]);
    }
  },
};

/** Operations that change no record a query selects. */
const READS = new Set([
  'queryRecords',
  'queryFiles',
  'queryLinks',
  'getRecord',
  'getFile',
  'listAttachedFiles',
  'listDomains',
  'getBindStatus',
  'authenticate',
]);
const SCHEDULE_WRITES = new Set(['upsertSchedules', 'deleteSchedule', 'reinstateSchedule']);

/** The domain of a records or files query. */
const queryDomain = (q: TrafficExchange) => (op(q) === 'queryFiles' ? 'File' : (q.operation?.pathParams.domain ?? ''));

const isWrite = (w: TrafficExchange) => !['GET', 'HEAD', 'OPTIONS'].includes(w.method) && !READS.has(op(w));

/**
 * Whether write `w` may change which records query `q` selects: a schedule write of its domain (of
 * any proposal: the filter may select by another field) and any other write (binding, a member, a
 * request of no known operation), whatever its outcome; a link write only for the file query.
 */
function mayChange(w: TrafficExchange, q: TrafficExchange): boolean {
  const domain = queryDomain(q);
  if (SCHEDULE_WRITES.has(op(w))) return w.operation?.pathParams.domain === domain;
  // a link creates or deletes no record; it changes only whether a file has a parent (IsUnlinked)
  if (op(w) === 'upsertLink' || op(w) === 'removeLink') return domain === 'File';
  return true;
}

/**
 * The answers of one query split where a recorded write may have changed its records (`mayChange`,
 * overlapping the span from one answer's request to a later one's answer): only answers of one
 * stretch are pages of one and the same set of records, whose total count they must agree on (spec
 * 4.2: "the total count of all records"). Provider-state calls do not split: they create fresh
 * records and delete those, never the records of another filter, as the header assumes of an
 * unrecorded client.
 */
function stretches(g: TrafficExchange[], writes: TrafficExchange[]): TrafficExchange[][] {
  const out: TrafficExchange[][] = [];
  let cur: TrafficExchange[] = [];
  for (const x of [...g].sort((a, b) => a.index - b.index)) {
    const first = cur[0];
    if (first && writes.some((w) => between(w, first, x) && mayChange(w, x))) {
      out.push(cur);
      cur = [];
    }
    cur.push(x);
  }
  if (cur.length) out.push(cur);
  return out;
}

/** QRY-014: every page of one filtered query gives the same total, at least what the pages show. */
const totalAcrossPages: SequenceRule = {
  name: 'total_count_across_pages',
  requirements: ['QRY-014'],
  description:
    'answers of one filtered query (whatever the start offset and take) with no recorded write between them that may change its records (a schedule write of its domain, a link write for the file query, any other write) that carry the total count carry the same one, at least the start offset plus the records of every page, and equal to it where a page came back short',
  judge(xs, ctx, emit) {
    const b = ctx.bindings;
    const skipName = b.query.skip;
    const groups = new Map<string, TrafficExchange[]>();
    for (const x of queries(xs, ctx)) {
      const k = keyWithout(x, [skipName, 'take', b.query.includeTotalCount, 'columns']);
      const g = groups.get(k);
      if (g) g.push(x);
      else groups.set(k, [x]);
    }
    const writes = xs.filter(isWrite);
    for (const g of [...groups.values()].flatMap((all) => stretches(all, writes))) {
      const counted = g.filter((x) => boolParam(x.query, b.query.includeTotalCount) === true);
      if (g.length < 2 || counted.length === 0) continue;
      const totals = new Set(counted.map((x) => totalCount(x, ctx)));
      const total = [...totals][0];
      if (totals.size !== 1 || !isInt(total)) {
        emit(['QRY-014'], false, `one query answered the total counts ${show([...totals])}`, counted);
        continue;
      }
      let bad: string | undefined;
      let badX: TrafficExchange | undefined;
      for (const x of g) {
        const skip = intParam(x.query, skipName) ?? 0;
        const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
        const n = recordsOf(x).length;
        if (n > 0 && skip + n > total)
          bad = `a page at skip ${skip} shows ${n} records, beyond the total count ${total}`;
        else if (n > 0 && n < take && skip + n !== total)
          bad = `a short page at skip ${skip} (${n} of ${take}) ends at ${skip + n}, the total count is ${total}`;
        if (bad) {
          badX = x;
          break;
        }
      }
      emit(
        ['QRY-014'],
        !bad,
        bad ?? `${g.length} answers agree with the total count ${total}`,
        bad ? [counted[0], badX!] : counted.slice(0, 2),
      );
    }
  },
};

/** QRY-007: without a start offset a query starts where the start offset 0 starts it. */
const offsetDefaultsToZero: SequenceRule = {
  name: 'start_offset_defaults_to_0',
  requirements: ['QRY-007'],
  description:
    'the same sorted, filtered query answered without a start offset and with start offset 0 answers the same records in the same order',
  judge(xs, ctx, emit) {
    const skipName = ctx.bindings.query.skip;
    const qs = queries(xs, ctx).filter((x) => x.query.get('sort'));
    const zero = new Map<string, TrafficExchange>();
    for (const x of qs)
      if (x.query.get(skipName)?.trim() === '0') {
        const k = keyWithout(x, [skipName]);
        if (!zero.has(k)) zero.set(k, x);
      }
    for (const x of qs) {
      if (x.query.has(skipName)) continue;
      const z = zero.get(keyWithout(x, [skipName]));
      if (!z) continue;
      const a = (x.json as { List: unknown[] }).List;
      const b = (z.json as { List: unknown[] }).List;
      // an empty answer may predate the filter's records (a provider state or another client wrote them, unrecorded)
      if (a.length === 0 || b.length === 0) continue;
      const same = show(a) === show(b) && JSON.stringify(a) === JSON.stringify(b);
      emit(
        ['QRY-007'],
        same,
        same
          ? `without a start offset: the ${a.length} records of start offset 0`
          : `without a start offset: ${show(a)}; with start offset 0: ${show(b)}`,
        [z, x],
      );
    }
  },
};

export const QUERY_SEQUENCE_RULES: readonly SequenceRule[] = [
  suppressionAgainstPlain,
  totalAcrossPages,
  offsetDefaultsToZero,
];
