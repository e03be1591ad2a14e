// Per-exchange rules of column selection and queries (spec 4.1, 4.2, 8).
import { totalCountOf } from '../model/not-shown-shapes.js';
import { COLUMN_KEYS_JUDGE, hasDuplicateKeys, judgeColumnKeys, requestedColumns } from '../judge/col.js';
import { SUPPRESSION_JUDGE, TOTAL_COUNT_JUDGE, judgeSuppression, judgeTotalCount } from '../judge/query.js';
import { SINGLE_READ_JUDGE, judgeSingleRead } from '../judge/rec.js';
import { recordsOf, type TrafficExchange } from './exchange.js';
import {
  boolParam,
  intParam,
  isInt,
  judgedRule,
  show,
  type NotJudgeable,
  type ExchangeRule,
  type RuleContext,
} from './rule.js';

const QUERY_OPS = new Set(['queryRecords', 'queryFiles']);

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';
const ok200 = (x: TrafficExchange) => x.status === 200 && x.json !== undefined;
const listOf = (x: TrafficExchange) => {
  const l = (x.json as { List?: unknown } | undefined)?.List;
  return Array.isArray(l) ? l : undefined;
};
const suppressing = (x: TrafficExchange, ctx: RuleContext) =>
  boolParam(x.query, ctx.bindings.query.excludeEmptyColumns) === true;

/** COL-001, COL-003, COL-011: the judge of the keys (judge/col.ts) on every answer to a `columns` list. */
const columnsAreKeys = judgedRule([COLUMN_KEYS_JUDGE], {
  name: 'columns_requested_are_keys',
  description:
    'with a `columns` list, every record holds exactly the requested keys: a field under its name, a renamed one under its alias only',
  findings: (x, ctx) =>
    ok200(x)
      ? judgeColumnKeys({
          operationId: op(x),
          columns: x.query.get('columns'),
          suppressing: QUERY_OPS.has(op(x)) && suppressing(x, ctx),
          records: recordsOf(x),
        })
      : [],
});

/** The effective total count of a query answer, where the bindings put it. */
export function totalCount(x: TrafficExchange, ctx: RuleContext): unknown {
  // where the bindings put it, else the one header or body field named "total" (as the suite finds it)
  return totalCountOf(ctx.bindings, { json: x.json, headers: new Headers(x.responseHeaders) });
}

/** How many records a page of `size` starting at `skip` holds, when the total count is in the answer. */
function expectedLength(x: TrafficExchange, ctx: RuleContext, size: number): number | undefined {
  if (boolParam(x.query, ctx.bindings.query.includeTotalCount) !== true) return undefined;
  const total = totalCount(x, ctx);
  if (!isInt(total)) return undefined;
  const skip = intParam(x.query, ctx.bindings.query.skip) ?? (x.query.has(ctx.bindings.query.skip) ? undefined : 0);
  if (skip === undefined) return undefined;
  return Math.max(0, Math.min(size, total - skip));
}

/** QRY-003: without `take`, a page holds 30 records (fewer only when fewer remain). */
const defaultTake: ExchangeRule = {
  name: 'take_default_30',
  requirements: ['QRY-003'],
  description: 'a query without `take` answers at most 30 records, and 30 when the total count shows more remain',
  judge(x, ctx, emit) {
    if (!QUERY_OPS.has(op(x)) || !ok200(x) || x.query.has('take')) return;
    const list = listOf(x);
    if (!list) return;
    if (list.length > 30) return emit(['QRY-003'], false, `no take: ${list.length} records, more than the default 30`);
    const exp = expectedLength(x, ctx, 30);
    if (exp !== undefined)
      return emit(
        ['QRY-003'],
        list.length === exp,
        `no take: ${list.length} records; the total count leaves ${exp} for this page`,
      );
    if (list.length === 30) emit(['QRY-003'], true, 'no take: a page of 30 records');
  },
};

/** QRY-004: never more than 100 records, whatever `take` asks, and 100 when more remain. */
const takeCap: ExchangeRule = {
  name: 'take_cap_100',
  requirements: ['QRY-004'],
  description:
    'a query never answers more than 100 records; where `take` asked for more than 100 and the total count shows at least 100 remain, it answers 100 (the maximum is a page of 100, not fewer)',
  judge(x, ctx, emit) {
    if (!QUERY_OPS.has(op(x)) || !ok200(x)) return;
    const list = listOf(x);
    if (!list) return;
    const take = intParam(x.query, 'take');
    if (list.length > 100) return emit(['QRY-004'], false, `${list.length} records, more than the maximum 100`);
    if (take === undefined || take <= 100) return;
    const exp = expectedLength(x, ctx, 100);
    if (exp !== undefined && list.length < exp)
      return emit(
        ['QRY-004'],
        false,
        `take=${take}: ${list.length} records, though the total count leaves ${exp} (the maximum is 100)`,
      );
    emit(['QRY-004'], true, `take=${take}: ${list.length} records`);
  },
};

/** QRY-005: take=n (1..100) answers at most n records, and n when the total count shows they exist. */
const takeN: ExchangeRule = {
  name: 'take_n',
  requirements: ['QRY-005'],
  description:
    'take=n (1..100) answers at most n records, and exactly n when a full page is shown or the total count shows n remain',
  judge(x, ctx, emit) {
    if (!new Set([...QUERY_OPS, 'listAttachedFiles']).has(op(x)) || !ok200(x)) return;
    const take = intParam(x.query, 'take');
    const list = listOf(x);
    if (take === undefined || take < 1 || take > 100 || !list) return;
    if (list.length > take) return emit(['QRY-005'], false, `take=${take}: ${list.length} records`);
    const exp = expectedLength(x, ctx, take);
    if (exp !== undefined)
      return emit(
        ['QRY-005'],
        list.length === exp,
        `take=${take}: ${list.length} records; the total count leaves ${exp}`,
      );
    if (list.length === take) emit(['QRY-005'], true, `take=${take}: ${take} records`);
  },
};

/** QRY-011, QRY-012, FILE-023: with suppression on, a column is in every record or none, kept only with a value: judge/query.ts. */
const suppression = judgedRule([SUPPRESSION_JUDGE], {
  name: 'empty_column_suppression',
  description:
    'with empty-column suppression on, a requested column is in every record or in none, and a column kept holds a value in at least one record (on the file query too)',
  findings(x, ctx) {
    const cols =
      QUERY_OPS.has(op(x)) && ok200(x) && suppressing(x, ctx) ? requestedColumns(x.query.get('columns')) : undefined;
    // a key asked twice may be answered once: which of the two is not shown
    if (!cols || hasDuplicateKeys(cols)) return [];
    return judgeSuppression(
      op(x),
      cols.map((c) => c.key),
      recordsOf(x),
    );
  },
});

/** QRY-013: suppression is off by default: a requested column null everywhere is still there. */
const noSuppressionByDefault: ExchangeRule = {
  name: 'no_suppression_by_default',
  requirements: ['QRY-013'],
  description:
    'without the suppression parameter, a requested column that is null in every record is still in every record',
  judge(x, ctx, emit) {
    if (op(x) !== 'queryRecords' || !ok200(x) || x.query.has(ctx.bindings.query.excludeEmptyColumns)) return;
    const cols = requestedColumns(x.query.get('columns'));
    const records = recordsOf(x);
    if (!cols || hasDuplicateKeys(cols) || records.length === 0) return;
    for (const c of cols) {
      if (records.every((r) => r[c.key] === null))
        return emit(['QRY-013'], true, `column ${c.key}, null in every record, is returned`);
      if (records.every((r) => !(c.key in r)))
        return emit(['QRY-013'], false, `requested column ${c.key} is in no record, yet suppression was not asked for`);
    }
  },
};

/** QRY-014, QRY-015, FILE-024: the total count is there exactly when asked for, and consistent with the page: judge/query.ts. */
const totalCountRule = judgedRule([TOTAL_COUNT_JUDGE], {
  name: 'total_count',
  description:
    'without the total-count parameter (or with it false) no count is in the answer; with it true, the count is an integer at least skip + the records shown, and equal to it on a short page (on the file query too)',
  findings(x, ctx) {
    const list = QUERY_OPS.has(op(x)) && ok200(x) ? listOf(x) : undefined;
    const param = ctx.bindings.query.includeTotalCount;
    const asked = boolParam(x.query, param);
    // a parameter that is neither true nor false asks for what the spec does not say
    if (!list || (x.query.has(param) && asked === undefined)) return [];
    const skip = intParam(x.query, ctx.bindings.query.skip) ?? 0;
    const take = intParam(x.query, 'take') ?? 30;
    return judgeTotalCount({ operationId: op(x), asked, total: totalCount(x, ctx), skip, take, shown: list.length });
  },
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * Text values whose order no collation disputes: after their common prefix (which orders nothing),
 * only digits and lower-case letters, or only digits and upper-case letters (digits sort before
 * letters, and letters of one case alphabetically, in binary, ICU and SQL collations alike).
 * Undefined when the values are not all such text.
 */
function comparableText(values: unknown[]): string[] | undefined {
  if (!values.every((v) => typeof v === 'string')) return undefined;
  const vs = values as string[];
  let n = 0;
  while (vs.every((v) => v.length > n && v[n] === vs[0][n])) n++;
  const rest = vs.map((v) => v.slice(n));
  return rest.every((v) => /^[0-9a-z]*$/.test(v)) || rest.every((v) => /^[0-9A-Z]*$/.test(v)) ? rest : undefined;
}

/** The values of one column as comparable keys (numbers, ISO timestamps of one form, text no collation disputes); undefined when they are not. */
function comparable(values: unknown[]): Array<number | string | null> | undefined {
  const vs = values.filter((v) => v !== null);
  if (vs.length === 0) return undefined;
  if (vs.every((v) => typeof v === 'number')) return values as Array<number | null>;
  if (vs.every((v) => typeof v === 'string' && ISO.test(v)) && new Set(vs.map((v) => String(v).length)).size === 1)
    return values as Array<string | null>;
  const text = comparableText(vs);
  if (!text) return undefined;
  const at = new Map(vs.map((v, i) => [v, text[i]]));
  return values.map((v) => (v === null ? null : at.get(v)!));
}

const SORT_ITEM = /^\s*([^\s,]+)(?:\s+(asc|desc))?\s*$/i;

/** QRY-008, QRY-023, QRY-024: `sort` of one or several `<column> [asc|desc]` items orders the answer, ties broken by the next item. */
const sortOrder: ExchangeRule = {
  name: 'sort_order',
  requirements: ['QRY-008', 'QRY-023', 'QRY-024'],
  description:
    'sort `<column> desc` answers the records in descending order of that column, `<column>` (or `<column> asc`) in ascending order, and several comma-separated items order by the first, ties broken by the next, each in its own direction (judged on numbers, ISO timestamps of one form, and text whose order no collation disputes: after a common prefix only digits and letters of one case; a pair whose deciding value is null is not judged: the place of nulls is not stated)',
  judge(x, _ctx, emit) {
    if (!QUERY_OPS.has(op(x)) || !ok200(x)) return;
    const v = sortVerdict(x.query, recordsOf(x));
    if (v)
      emit(
        v.requirements,
        !v.broken,
        v.broken ?? `${v.judged} pair(s) of records in the order of ${x.query.get('sort')}`,
      );
  },
};

/**
 * Whether `records` (in answer order) keep the order `sort` asks for: undefined when no pair of
 * them is decided (values not comparable, nulls, ties), else the requirements the sort's shape
 * names (one column: QRY-008, or QRY-023 with `asc`; several: QRY-024), and the first broken pair.
 */
export function sortVerdict(
  query: URLSearchParams,
  records: Array<Record<string, unknown>>,
): { requirements: string[]; judged: number; broken?: string } | undefined {
  const items = (query.get('sort') ?? '').split(',').map((p) => SORT_ITEM.exec(p));
  if (items.length === 0 || items.some((m) => !m) || records.length < 2) return undefined;
  const cols = requestedColumns(query.get('columns'));
  const keys = items.map((m) => ({
    key: cols ? cols.find((c) => c.field === m![1])?.key : m![1],
    desc: m![2]?.toLowerCase() === 'desc',
    text: m![0].trim(),
  }));
  // the columns the answer shows, as comparable values; judging stops at the first it does not
  const values: Array<Array<number | string | null>> = [];
  for (const k of keys) {
    if (!k.key || !records.every((r) => k.key! in r)) break;
    const v = comparable(records.map((r) => r[k.key!]));
    if (!v) break;
    values.push(v);
  }
  if (values.length === 0) return undefined;
  const requirements =
    keys.length > 1 ? ['QRY-024'] : items[0]![2]?.toLowerCase() === 'asc' ? ['QRY-023'] : ['QRY-008'];
  let judged = 0;
  for (let i = 1; i < records.length; i++) {
    for (let c = 0; c < values.length; c++) {
      const a = values[c][i - 1];
      const b = values[c][i];
      if (a === null || b === null) break; // the place of nulls is not stated
      if (a === b) continue; // tied: the next column decides
      judged++;
      if (keys[c].desc ? a < b : a > b) {
        const at = (r: Record<string, unknown>) =>
          keys
            .slice(0, c + 1)
            .map((k) => show(r[k.key!]))
            .join(', ');
        return {
          requirements,
          judged,
          broken: `sort ${query.get('sort')}: record ${i - 1} (${at(records[i - 1])}) comes before record ${i} (${at(records[i])}); ${keys[c].text} is ${keys[c].desc ? 'descending' : 'ascending'}`,
        };
      }
      break;
    }
  }
  return judged ? { requirements, judged } : undefined;
}

/** REC-001, FILE-009: a single read answers Record, Domain (the path's domain) and Id (the path's ID): judge/rec.ts. */
const recordEnvelope = judgedRule([SINGLE_READ_JUDGE], {
  name: 'single_read_envelope',
  description:
    'GET /api/{domain}/{id} answers Record (an object), Domain (the domain of the path) and Id (the ID of the path)',
  findings: (x) =>
    (op(x) === 'getRecord' || op(x) === 'getFile') && ok200(x)
      ? judgeSingleRead({ ...x.operation!, status: x.status, body: x.json })
      : [],
});

export const COLUMN_RULES: readonly ExchangeRule[] = [
  columnsAreKeys,
  defaultTake,
  takeCap,
  takeN,
  suppression,
  noSuppressionByDefault,
  totalCountRule,
  sortOrder,
  recordEnvelope,
];

const STORED =
  'needs the stored data (which values a record, a referenced record or a code holds, which records a filter selects), which only a provider state or a fixtures file tells, never the exchange';

/** Requirements of domains, records, columns and queries no recorded exchange decides. */
export const COLUMN_NOT_JUDGEABLE: readonly NotJudgeable[] = [
  {
    requirements: [
      'REC-002',
      'COL-002',
      'COL-004',
      'COL-005',
      'COL-006',
      'COL-007',
      'COL-008',
      'COL-009',
      'COL-010',
      'QRY-002',
    ],
    reason: STORED,
  },
  {
    requirements: ['DOM-006', 'DOM-007', 'DOM-008'],
    reason: 'depends on which domains the caller may access, a permission of the user that a recording does not show',
  },
  {
    requirements: ['DOM-001', 'DOM-002', 'DOM-011', 'REC-004'],
    reason:
      'needs to know that a domain name or record ID does not exist (or is cased differently from a stored one) at the time of the request; a recording shows the request and its answer, not what the service held',
  },
  {
    requirements: ['DOM-003', 'QRY-001'],
    reason:
      'the shape of the answer is judged by the schema rule (GEN-002) on every exchange; no rule names this requirement apart from it',
  },
];
