// Rules that exchanges in recorded order decide (a write then a read, two pages, CreateMember
// twice, a removed link then queried, a failed atomic batch then a read). Every rule judges only
// pairs the recording orders (the later exchange began after the earlier one had its answer) and
// skips a pair when another recorded write to the same record may have come between: a rule never
// blames a correct implementation for a write it did not see. What no recording can show (a writer
// outside the recording) is the limit documented in conformance/README.md.
import { isDeepStrictEqual } from 'node:util';
import { requestedColumns } from '../judge/col.js';
import { after, isObject, recordsOf, type TrafficExchange } from './exchange.js';
import { atPath } from '../model/bindings.js';
import { boolParam, intParam, isInt, show, type NotJudgeable, type SequenceRule } from './rule.js';
import { sortVerdict, totalCount } from './rules-columns.js';
import { batchOf, itemId, itemOf } from './schedules.js';
import { proposalOf } from './states.js';
import { QUERY_SEQUENCE_RULES } from './sequence-queries.js';

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';

/** The schedule writes and single reads of a recording, by `domain#id`, built once per recording. */
interface RecordIndex {
  writes: Map<string, TrafficExchange[]>;
  /** Batches whose request cannot be read: they may have touched any record of their domain. */
  blind: Map<string, TrafficExchange[]>;
  reads: Map<string, TrafficExchange[]>;
}
const indexes = new WeakMap<TrafficExchange[], RecordIndex>();

function indexOf(xs: TrafficExchange[]): RecordIndex {
  let ix = indexes.get(xs);
  if (ix) return ix;
  ix = { writes: new Map(), blind: new Map(), reads: new Map() };
  const add = (m: Map<string, TrafficExchange[]>, k: string, x: TrafficExchange) => {
    const l = m.get(k);
    if (!l) m.set(k, [x]);
    else if (l[l.length - 1] !== x) l.push(x);
  };
  for (const x of xs) {
    const p = x.operation?.pathParams;
    if (!p) continue;
    if (op(x) === 'deleteSchedule' || op(x) === 'reinstateSchedule')
      add(ix.writes, `${p.domain}#${Number(p.scheduleId)}`, x);
    else if (op(x) === 'upsertSchedules') {
      const b = batchOf(x);
      if (!b) {
        add(ix.blind, p.domain, x);
        continue;
      }
      for (const i of [...b.input.Updates, ...b.input.Deletes])
        if (itemId(i) !== undefined) add(ix.writes, `${p.domain}#${itemId(i)}`, x);
      for (const r of b.results?.Inserts ?? []) if (isInt(r.RecordID)) add(ix.writes, `${p.domain}#${r.RecordID}`, x);
    } else if (
      op(x) === 'getRecord' &&
      x.status === 200 &&
      isObject((x.json as { Record?: unknown } | undefined)?.Record)
    )
      add(ix.reads, `${p.domain}#${p.id}`, x);
  }
  indexes.set(xs, ix);
  return ix;
}

/** Every exchange that may change schedule record `id` of `domain` (whatever its outcome), in recorded order. */
function writesOf(xs: TrafficExchange[], domain: string, id: number): TrafficExchange[] {
  const ix = indexOf(xs);
  const w = [...(ix.writes.get(`${domain}#${id}`) ?? []), ...(ix.blind.get(domain) ?? [])];
  return w.sort((a, b) => a.index - b.index);
}

/** Whether `w` may overlap the span from the end of `a` to the start of `b`. */
const between = (w: TrafficExchange, a: TrafficExchange, b: TrafficExchange) =>
  w.endMs > a.startMs && w.startMs < b.endMs;

/** Reads (GET /api/{domain}/{id}, 200) of a record. */
const readsOf = (xs: TrafficExchange[], domain: string, id: number) =>
  indexOf(xs).reads.get(`${domain}#${String(id)}`) ?? [];

function equalish(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  return (
    (typeof a === 'number' || typeof a === 'string') &&
    (typeof b === 'number' || typeof b === 'string') &&
    String(a) === String(b)
  );
}

/** SCHED-007, SCHED-008, SCHED-029: what a successful insert or update wrote reads back. */
const writeThenRead: SequenceRule = {
  name: 'write_then_read',
  requirements: ['SCHED-007', 'SCHED-008', 'SCHED-029'],
  description:
    'after a successful insert or update of a schedule record, a later read of that record (GET /api/{domain}/{id}) shows the written values of the fields it returns, unless another write to it came between',
  judge(xs, _ctx, emit) {
    for (const w of xs) {
      const b = batchOf(w);
      if (!b?.results || (b.atomic && b.anyFailure)) continue;
      for (const k of ['Inserts', 'Updates'] as const)
        for (const r of b.results[k]) {
          const item = itemOf(b, k, r);
          const fields = item && isObject(item.Fields) ? item.Fields : undefined;
          const id = k === 'Inserts' ? r.RecordID : item && itemId(item);
          if (r.IsSuccessful !== true || !fields || typeof id !== 'number' || id <= 0) continue;
          const writes = writesOf(xs, b.domain, id);
          const read = readsOf(xs, b.domain, id).find(
            (x) => after(w, x) && !writes.some((o) => o !== w && between(o, w, x)),
          );
          if (!read) continue;
          const rec = (read.json as { Record: Record<string, unknown> }).Record;
          const cols = requestedColumns(read.query.get('columns'));
          const keyOf = (f: string) => (cols ? cols.find((c) => c.field === f)?.key : f);
          const compared = Object.keys(fields).filter((f) => {
            const key = keyOf(f);
            return key !== undefined && key in rec;
          });
          if (compared.length === 0) continue;
          const bad = compared.find((f) => !equalish(rec[keyOf(f)!], fields[f]));
          const reqs = [k === 'Inserts' ? 'SCHED-007' : 'SCHED-008', ...(b.atomic ? ['SCHED-029'] : [])];
          emit(
            reqs,
            !bad,
            bad
              ? `${k} item of ${b.domain} ${id} wrote ${f2(bad, fields[bad])}; the later read shows ${show(rec[keyOf(bad)!])}`
              : `${k} item of ${b.domain} ${id}: ${compared.length} field(s) read back as written`,
            [w, read],
          );
        }
    }
  },
};
const f2 = (f: string, v: unknown) => `${f} ${show(v)}`;

/** SCHED-014, SCHED-011: an item that failed (or a whole failed atomic batch) leaves its record as it read before. */
const failedWriteChangesNothing: SequenceRule = {
  name: 'failed_write_changes_nothing',
  requirements: ['SCHED-014', 'SCHED-011'],
  description:
    'a record named by an update or delete of a failed atomic batch (or by a failed item of a non-atomic one) reads the same just before and just after it, when no other write to it came between',
  judge(xs, _ctx, emit) {
    for (const w of xs) {
      const b = batchOf(w);
      if (!b?.results || !b.anyFailure) continue;
      const ids = new Set<number>();
      if (b.atomic)
        for (const i of [...b.input.Updates, ...b.input.Deletes]) if (itemId(i) !== undefined) ids.add(itemId(i)!);
      if (!b.atomic)
        for (const k of ['Updates', 'Deletes'] as const)
          for (const r of b.results[k]) {
            const item = itemOf(b, k, r);
            if (r.IsSuccessful === false && item && itemId(item) !== undefined) ids.add(itemId(item)!);
          }
      for (const id of ids) {
        const reads = readsOf(xs, b.domain, id);
        const writes = writesOf(xs, b.domain, id).filter((o) => o !== w);
        const before = reads.filter((r) => after(r, w)).pop();
        const later = reads.find((r) => after(w, r) && r.query.toString() === before?.query.toString());
        if (!before || !later || writes.some((o) => between(o, before, later))) continue;
        const a = (before.json as { Record: unknown }).Record;
        const c = (later.json as { Record: unknown }).Record;
        const req = b.atomic ? 'SCHED-014' : 'SCHED-011';
        emit(
          [req],
          isDeepStrictEqual(a, c),
          isDeepStrictEqual(a, c)
            ? `${b.domain} ${id} unchanged by the failed ${b.atomic ? 'atomic batch' : 'item'}`
            : `${b.domain} ${id} read ${show(a)} before and ${show(c)} after the failed ${b.atomic ? 'atomic batch' : 'item'}`,
          [before, w, later],
        );
      }
    }
  },
};

/** Rows as whole values, key order aside (the identity of a row when no ID column is asked for). */
const rowKey = (r: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(r)
      .sort()
      .map((k) => [k, r[k]]),
  );

/** QRY-006, FILE-022: consecutive pages of the same query join without overlap. */
const pagesJoin: SequenceRule = {
  name: 'pages_join_without_overlap',
  requirements: ['QRY-006', 'FILE-022'],
  description:
    'two pages of the same sorted query (same parameters but the start offset, the second starting where the first, full, page ended) share no record and join in order (the last record of the first page and the first of the second keep the sort), only when both pages carry the same total count or a filter (no other writer assumed); a record is told by its ID column, else by its whole row when a complete answer of the same filter shows a requested column whose values tell its records apart',
  judge(xs, ctx, emit) {
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
    const total = (x: TrafficExchange) => atPath(x.json, b.totalCountField);
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
          const dup = r2.find((r) => ids1.has(keyOf(r)));
          // the pages join into one ordered set: the last record of the first and the first of the second keep the order
          const order = dup ? undefined : sortVerdict(p1.query, [r1[r1.length - 1], r2[0]]);
          if (order?.broken) {
            emit(
              [op(p1) === 'queryFiles' ? 'FILE-022' : 'QRY-006'],
              false,
              `pages at start offset ${s1} and ${s1 + take} do not join into one ordered set: the last record of the first page and the first of the second are out of order (${order.broken})`,
              [p1, p2],
            );
            continue;
          }
          const what = idKey ? `${idKey} ${show(dup?.[idKey])}` : `the record ${show(dup)}`;
          emit(
            [op(p1) === 'queryFiles' ? 'FILE-022' : 'QRY-006'],
            !dup,
            dup
              ? `${what} is on both pages (start offset ${s1} and ${s1 + take})`
              : `pages at start offset ${s1} and ${s1 + take} share no ${idKey ?? 'record'}`,
            [p1, p2],
          );
        }
  },
};

/** QRY-006, QRY-007, FILE-022: a page is the slice of the whole ordered set that its start offset and take name. */
const pagesAreSlices: SequenceRule = {
  name: 'pages_are_slices_of_the_whole',
  requirements: ['QRY-006', 'QRY-007', 'FILE-022'],
  description:
    'where one answer of a sorted, filtered query holds the whole set (no start offset or 0, and fewer records than take or as many as an answer of the filter from its first record with fewer than take) with no two records tied on the sort, every page of the same query and columns is its slice from the start offset (without one, from the first record)',
  judge(xs, ctx, emit) {
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
      const want = whole.rows.slice(skip, skip + take);
      // an empty page may predate the filter's records (written by a provider state or a client the recording does not show)
      if (rows.length === 0) continue;
      const good = rows.length === want.length && rows.every((r, i) => r === want[i]);
      const req = op(x) === 'queryFiles' ? 'FILE-022' : x.query.has(skipName) ? 'QRY-006' : 'QRY-007';
      emit(
        [req],
        good,
        good
          ? `the page at start offset ${skip} is records ${skip + 1}..${skip + rows.length} of the whole ordered set`
          : `the page at start offset ${skip}${x.query.has(skipName) ? '' : ' (none given)'} holds ${rows.length} record(s) that are not records ${skip + 1}..${skip + want.length} of the whole ordered set (${whole.rows.length} records, answered at once)`,
        [whole.x, x],
      );
    }
  },
};

/** BIND-003: a bound proposal stays bound: Bound is never followed by NotBound. */
const boundStaysBound: SequenceRule = {
  name: 'bound_stays_bound',
  requirements: ['BIND-003'],
  description:
    'after BindStatus answered Bound for a proposal, the next BindStatus of it (no other call naming that proposal between) answers Bound again: no stated transition leaves Bound',
  judge(xs, _ctx, emit) {
    const last = new Map<string, TrafficExchange>();
    for (const x of xs) {
      const pid = x.operation?.pathParams.proposalId;
      if (pid === undefined) continue;
      const prev = last.get(pid);
      if (op(x) !== 'getBindStatus') {
        last.delete(pid); // another call on the proposal came between
        continue;
      }
      const st = (x.json as { Status?: unknown } | undefined)?.Status;
      if (x.status !== 200 || typeof st !== 'string') {
        last.delete(pid);
        continue;
      }
      const was = prev && (prev.json as { Status?: unknown }).Status;
      if (prev && was === 'Bound' && after(prev, x) && (st === 'Bound' || st === 'NotBound'))
        emit(
          ['BIND-003'],
          st === 'Bound',
          st === 'Bound'
            ? `proposal ${pid}: Bound, then Bound again`
            : `proposal ${pid} answered Bound, then NotBound on the next read with no call between`,
          [prev, x],
        );
      last.set(pid, x);
    }
  },
};

/** SCHED-021: a record reinstated successfully is active again and readable. */
const reinstatedIsReadable: SequenceRule = {
  name: 'reinstated_is_readable',
  requirements: ['SCHED-021'],
  description:
    'after a successful Reinstate of a schedule record, a later read of it (GET /api/{domain}/{id}, no other write to it between) answers it, not 404; judged only where a read of that domain answered 200 in the recording',
  judge(xs, _ctx, emit) {
    const readable = new Set(
      xs.filter((x) => op(x) === 'getRecord' && x.status === 200).map((x) => x.operation!.pathParams.domain),
    );
    for (const w of xs) {
      if (op(w) !== 'reinstateSchedule' || w.status < 200 || w.status >= 300) continue;
      if ((w.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful === false) continue;
      const { domain, scheduleId } = w.operation!.pathParams;
      const id = Number(scheduleId);
      if (!readable.has(domain) || !Number.isInteger(id)) continue;
      const writes = writesOf(xs, domain, id).filter((o) => o !== w);
      const read = xs.find(
        (x) =>
          op(x) === 'getRecord' &&
          x.operation!.pathParams.domain === domain &&
          x.operation!.pathParams.id === scheduleId &&
          after(w, x) &&
          (x.status === 404 || x.status === 200),
      );
      if (!read || writes.some((o) => between(o, w, read))) continue;
      const good = read.status === 200 && isObject((read.json as { Record?: unknown } | undefined)?.Record);
      if (read.status === 200 && !good) continue;
      emit(
        ['SCHED-021'],
        good,
        good
          ? `${domain} ${id} reinstated, then read`
          : `${domain} ${id} reinstated successfully (HTTP ${w.status}), then read with HTTP 404`,
        [w, read],
      );
    }
  },
};

/** AUTH-003: Contents is returned to a caller authenticated with a token. */
const contentsWithToken: SequenceRule = {
  name: 'contents_with_token',
  requirements: ['AUTH-003'],
  description:
    "a file read asking for Contents with the API token (the bindings' token header) answers Contents; refused with 401 or 403 while the same token reads the same file without Contents, it fails. A request without the token header (a sanitized export) is not judged",
  judge(xs, ctx, emit) {
    const header = ctx.bindings.tokenHeader.toLowerCase();
    const tokenOf = (x: TrafficExchange) => x.requestHeaders[header];
    const asks = (x: TrafficExchange) =>
      (requestedColumns(x.query.get('columns')) ?? []).some((c) => c.field === 'Contents');
    const reads = xs.filter((x) => (op(x) === 'getFile' || op(x) === 'listAttachedFiles') && !!tokenOf(x));
    const plainOk = new Set(
      reads.filter((x) => x.status === 200 && !asks(x)).map((x) => `${x.path}\u0000${tokenOf(x)}`),
    );
    for (const x of reads) {
      if (!asks(x)) continue;
      if (x.status === 200) {
        const rows = recordsOf(x);
        if (rows.length && rows.every((r) => typeof r.Contents === 'string'))
          emit(['AUTH-003'], true, `Contents answered to a token-authenticated caller (${rows.length} file(s))`, [x]);
      } else if ((x.status === 401 || x.status === 403) && plainOk.has(`${x.path}\u0000${tokenOf(x)}`)) {
        const plain = reads.find(
          (y) => y.status === 200 && !asks(y) && y.path === x.path && tokenOf(y) === tokenOf(x),
        )!;
        emit(
          ['AUTH-003'],
          false,
          `Contents refused with HTTP ${x.status} to the token that reads the same file without Contents`,
          [plain, x],
        );
      }
    }
  },
};

/** MEM-003, MEM-005: a second CreateMember after a successful one is refused with 500 and a JSON string. */
const createMemberTwice: SequenceRule = {
  name: 'create_member_twice',
  requirements: ['MEM-003', 'MEM-005'],
  description:
    'after a successful CreateMember on a proposal, a later CreateMember on it is refused: HTTP 500 with a JSON string body saying a member is already assigned',
  judge(xs, _ctx, emit) {
    const calls = xs.filter((x) => op(x) === 'createMember');
    for (const first of calls) {
      if (first.status !== 200 || (first.json as { IsSuccessful?: unknown })?.IsSuccessful !== true) continue;
      const pid = first.operation!.pathParams.proposalId;
      const second = calls.find((x) => x.operation!.pathParams.proposalId === pid && after(first, x));
      // a second call whose answer is not in the recording shows nothing
      if (!second || second.bodyMissing) continue;
      const refused = !(
        second.status >= 200 &&
        second.status < 300 &&
        (second.json as { IsSuccessful?: unknown })?.IsSuccessful !== false
      );
      emit(
        ['MEM-003'],
        refused,
        refused
          ? `second CreateMember on proposal ${pid} refused`
          : `second CreateMember on proposal ${pid} answered ${second.status} ${show(second.json)}`,
        [first, second],
      );
      if (!refused) continue;
      const body = second.json;
      const good =
        second.status === 500 &&
        typeof body === 'string' &&
        /member/i.test(body) &&
        /already|assigned|exists|existing|has a/i.test(body);
      emit(['MEM-005'], good, `second CreateMember: HTTP ${second.status}, body ${show(body ?? second.responseBody)}`, [
        first,
        second,
      ]);
    }
  },
};

const LINK_SCOPE = new Set(['childDomain', 'childRecordID', 'parentDomain', 'columns']);

/** LINK-015, LINK-013: a removed link no longer appears in Link/Query; an upserted one does. */
const linkThenQuery: SequenceRule = {
  name: 'link_write_then_query',
  requirements: ['LINK-013', 'LINK-015'],
  description:
    'after a successful Link/Remove (by primary keys), a later Link/Query of that child with ParentID in its rows lists no link to that parent; after a successful Link/Upsert, it lists it; unless another link write on that child came between',
  judge(xs, ctx, emit) {
    const lb = ctx.bindings.link;
    const isWrite = (x: TrafficExchange) =>
      x.method === 'POST' && (x.path === ctx.bindings.paths.linkRemove || x.path === ctx.bindings.paths.linkUpsert);
    const field = (x: TrafficExchange, path: string) =>
      path.split('.').reduce<any>((o, k) => (isObject(o) ? o[k] : undefined), x.requestJson);
    const childOf = (x: TrafficExchange) =>
      `${field(x, lb.childDomain)}#${field(x, lb.childRecordId) ?? field(x, lb.childRecordKey)}`;
    const writes = xs.filter(isWrite);
    // a Link/Query whose answer is not a readable List is no evidence of what it lists
    const queries = xs.filter(
      (x) =>
        op(x) === 'queryLinks' &&
        x.status === 200 &&
        !x.bodyMissing &&
        Array.isArray((x.json as { List?: unknown } | undefined)?.List),
    );
    // indexed once: the link writes of each child, the queries of each child
    const writesByChild = new Map<string, TrafficExchange[]>();
    for (const w of writes) {
      const k = childOf(w);
      const l = writesByChild.get(k);
      if (l) l.push(w);
      else writesByChild.set(k, [w]);
    }
    const queriesByChild = new Map<string, TrafficExchange[]>();
    for (const x of queries) {
      const k = `${x.query.get('childDomain')}#${x.query.get('childRecordID')}`;
      const l = queriesByChild.get(k);
      if (l) l.push(x);
      else queriesByChild.set(k, [x]);
    }
    for (const w of writes) {
      if (w.status < 200 || w.status >= 300 || (w.json as { IsSuccessful?: unknown })?.IsSuccessful === false) continue;
      const pd = field(w, lb.parentDomain);
      const pid = field(w, lb.parentRecordId);
      const cd = field(w, lb.childDomain);
      const cid = field(w, lb.childRecordId);
      if (
        typeof pd !== 'string' ||
        typeof cd !== 'string' ||
        !Number.isInteger(Number(pid)) ||
        !Number.isInteger(Number(cid))
      )
        continue;
      const same = writesByChild.get(childOf(w)) ?? [];
      const q = (queriesByChild.get(`${cd}#${String(cid)}`) ?? []).find(
        (x) => after(w, x) && !same.some((o) => o !== w && between(o, w, x)),
      );
      if (!q) continue;
      const removed = w.path === ctx.bindings.paths.linkRemove;
      // a further filter may leave out a link that exists: only an unfiltered query shows it is there
      if (!removed && [...q.query.keys()].some((k) => !LINK_SCOPE.has(k))) continue;
      const rows = recordsOf(q);
      if (!rows.every((r) => 'ParentID' in r)) continue;
      const pdId = ctx.domainIds.get(pd);
      const scoped = q.query.get('parentDomain') === pd;
      const canTell = scoped || (pdId !== undefined && rows.every((r) => 'ParentDomainID' in r));
      if (!canTell) continue;
      const hit = rows.some((r) => r.ParentID === Number(pid) && (scoped || r.ParentDomainID === pdId));
      emit(
        [removed ? 'LINK-015' : 'LINK-013'],
        removed ? !hit : hit,
        `link ${pd} ${pid} → ${cd} ${cid} ${removed ? 'removed' : 'upserted'}; the later Link/Query ${hit ? 'lists' : 'does not list'} it`,
        [w, q],
      );
    }
  },
};

/** FILE-010, FILE-002: Contents decodes to the FileSize another answer gave for the same file. */
const contentsAgainstFileSize: SequenceRule = {
  name: 'contents_against_file_size',
  requirements: ['FILE-010', 'FILE-002'],
  description:
    "a file's Contents is base64 of exactly the FileSize any answer gave for that FileID (the single read of Contents and the query of FileSize may be separate calls)",
  judge(xs, _ctx, emit) {
    const files = xs.filter((x) => ['getFile', 'queryFiles', 'listAttachedFiles'].includes(op(x)) && x.status === 200);
    const sizes = new Map<unknown, { size: number; x: TrafficExchange }>();
    for (const x of files)
      for (const r of recordsOf(x))
        if (r.FileID !== undefined && isInt(r.FileSize)) sizes.set(r.FileID, { size: r.FileSize, x });
    for (const x of files) {
      const id = op(x) === 'getFile' ? Number(x.operation!.pathParams.id) : undefined;
      for (const r of recordsOf(x)) {
        const fid = r.FileID ?? id;
        const known = sizes.get(fid);
        if (typeof r.Contents !== 'string' || !known || known.x === x) continue;
        const c = r.Contents.replace(/\s+/g, '');
        const good = BASE64.test(c) && Buffer.from(c, 'base64').length === known.size;
        emit(
          ['FILE-010', 'FILE-002'],
          good,
          good
            ? `file ${show(fid)}: Contents of FileSize ${known.size} bytes`
            : `file ${show(fid)}: Contents ${BASE64.test(c) ? `decodes to ${Buffer.from(c, 'base64').length} bytes` : 'is not base64'}, FileSize ${known.size}`,
          [known.x, x],
        );
      }
    }
  },
};
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * PROP-002, PROP-003, PROP-004 with PROP-005 and SCHED-018: a proposal the recording's provider state
 * set up not modifiable (status B, R or 0; its proposal set bound; a pending expiry-date change)
 * has no schedule write succeed while the state holds (section 3; 4.5 rule 1).
 */
const notModifiableRefusesWrites: SequenceRule = {
  name: 'not_modifiable_refuses_writes',
  requirements: ['PROP-002', 'PROP-003', 'PROP-004', 'PROP-005', 'SCHED-018'],
  description:
    'on a proposal the recording\'s provider state ("a proposal" with status B, R or 0, boundSet or pendingExpiryChange) set up not modifiable, no UpsertMulti item and no schedule DELETE is answered as successful while the state holds; the cause names the requirement (PROP-002 status, PROP-003 bound set, PROP-004 pending expiry change)',
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    for (const x of xs) {
      const kind = op(x);
      if ((kind !== 'upsertSchedules' && kind !== 'deleteSchedule') || x.json === undefined) continue;
      const p = proposalOf(ctx.states, x.operation!.pathParams.proposalId, x);
      if (!p || !p.notModifiable.length) continue;
      const causes = p.notModifiable.map((c) => c.requirement);
      const why = `proposal ${p.proposalId} set up with ${p.notModifiable.map((c) => c.cause).join(' and ')} (${p.setup.source})`;
      if (kind === 'upsertSchedules') {
        const b = batchOf(x);
        if (!b) continue;
        if (b.anySuccess)
          emit([...causes, 'PROP-005'], false, `UpsertMulti answered an item as successful on ${why}`, [x]);
        else if (b.results || x.status >= 400) emit([...causes, 'PROP-005'], true, `no item successful on ${why}`, [x]);
        continue;
      }
      const ok = (x.json as { IsSuccessful?: unknown }).IsSuccessful;
      if (ok === true)
        emit([...causes, 'SCHED-018'], false, `schedule DELETE answered IsSuccessful true on ${why}`, [x]);
      else if (ok === false || x.status >= 400) emit(causes, true, `schedule DELETE refused on ${why}`, [x]);
    }
  },
};

/** States whose setup creates no schedule record (so no record ID can be issued again by it). */
const CREATE_NO_SCHEDULE = new Set([
  'a user',
  'an expired token',
  'a file',
  'a contact',
  'a link parent',
  'contact relationships',
  'a setting',
]);

/**
 * SCHED-022: a schedule record deleted successfully on a modifiable Quote, Application, Renewal,
 * Rewrite or Reissue proposal (its type from the recording's provider state) is gone: a later read
 * of it does not answer it (section 3: permanently deleted).
 */
const permanentDeleteIsGone: SequenceRule = {
  name: 'permanent_delete_is_gone',
  requirements: ['SCHED-022'],
  description:
    "after a successful schedule DELETE on a proposal the recording's provider state set up modifiable and of type Quote, Application, Renewal, Rewrite or Reissue, the next read of the record (GET /api/{domain}/{id}) does not answer it; not judged when anything between may have issued that ID again (a write naming it, an unreadable batch, a state setup that may create schedule records)",
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    const setups = ctx.states.setups;
    for (const d of xs) {
      if (op(d) !== 'deleteSchedule' || d.status < 200 || d.status >= 300) continue;
      if ((d.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful !== true) continue;
      const { proposalId, domain, scheduleId } = d.operation!.pathParams;
      const p = proposalOf(ctx.states, proposalId, d);
      if (!p || p.notModifiable.length || !PERMANENT.has(p.type)) continue;
      const id = Number(scheduleId);
      if (!Number.isInteger(id)) continue;
      const read = xs.find(
        (x) =>
          op(x) === 'getRecord' &&
          x.operation!.pathParams.domain === domain &&
          Number(x.operation!.pathParams.id) === id &&
          after(d, x) &&
          x.json !== undefined,
      );
      if (!read) continue;
      if (writesOf(xs, domain, id).some((w) => w !== d && between(w, d, read))) continue;
      const reissued = setups.some(
        (s) =>
          s.endMs > d.startMs &&
          s.startMs < read.endMs &&
          !CREATE_NO_SCHEDULE.has(s.state) &&
          !(s.state === 'a proposal' && Array.isArray(s.values?.locationIds) && !s.values.locationIds.includes(id)),
      );
      if (reissued) continue;
      const answered = read.status === 200 && isObject((read.json as { Record?: unknown }).Record);
      if (read.status === 200 && !answered) continue;
      emit(
        ['SCHED-022'],
        !answered,
        answered
          ? `${domain} ${id} deleted (HTTP ${d.status}, IsSuccessful true) on ${p.type} proposal ${proposalId} (${p.setup.source}), then read back with HTTP 200`
          : `${domain} ${id} deleted on ${p.type} proposal ${proposalId}, then read: HTTP ${read.status}`,
        [d, read],
      );
    }
  },
};
const PERMANENT = new Set(['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue']);

/** What a recorded write did to the set of a proposal's schedule records, as its answer says. */
type Effect = { add: number[]; remove: number[]; requirement: string; what: string } | 'unknown';

function effectOf(x: TrafficExchange, type: string): Effect {
  if (op(x) === 'deleteSchedule') {
    const ok = (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful;
    if (x.status < 200 || x.status >= 300 || typeof ok !== 'boolean') return 'unknown';
    if (!ok) return { add: [], remove: [], requirement: 'SCHED-018', what: 'a refused DELETE' };
    // what a soft delete shows is not stated (SCHED-019)
    if (!PERMANENT.has(type)) return 'unknown';
    return {
      add: [],
      remove: [Number(x.operation!.pathParams.scheduleId)],
      requirement: 'SCHED-022',
      what: `DELETE of ${x.operation!.pathParams.scheduleId}`,
    };
  }
  if (op(x) !== 'upsertSchedules') return 'unknown';
  const b = batchOf(x);
  if (!b?.results || x.status < 200 || x.status >= 300) return 'unknown';
  // an update that may move a record to another proposal
  if (b.input.Updates.some((u) => isObject(u.Fields) && Object.keys(u.Fields).some((k) => /proposal/i.test(k))))
    return 'unknown';
  const all = KINDS_.flatMap((k) => b.results![k]);
  if (b.atomic && b.anyFailure)
    return { add: [], remove: [], requirement: 'SCHED-014', what: 'an atomic batch with a failed item' };
  if (b.atomic) {
    if (all.some((r) => r.IsSuccessful !== true) || b.results.Inserts.length !== b.input.Inserts.length)
      return 'unknown';
    const add = b.results.Inserts.map((r) => r.RecordID);
    const remove = b.input.Deletes.map(itemId);
    if (!add.every(isInt) || !remove.every(isInt)) return 'unknown';
    return { add, remove, requirement: 'SCHED-029', what: 'an atomic batch without a failed item' };
  }
  if (KINDS_.some((k) => b.results![k].length !== b.input[k].length)) return 'unknown';
  const add = b.results.Inserts.filter((r) => r.IsSuccessful === true).map((r) => r.RecordID);
  const remove = b.results.Deletes.filter((r) => r.IsSuccessful === true).map((r) => itemOf(b, 'Deletes', r)?.ID);
  if (!add.every(isInt) || !remove.every(isInt)) return 'unknown';
  return b.anyFailure
    ? { add, remove, requirement: 'SCHED-011', what: 'a non-atomic batch with failed items' }
    : { add, remove, requirement: 'SCHED-008', what: 'a non-atomic batch' };
}
const KINDS_ = ['Inserts', 'Updates', 'Deletes'] as const;

/**
 * SCHED-008, SCHED-011, SCHED-014, SCHED-029, SCHED-022: a proposal's schedule records, read back
 * whole with the filter its provider state gave (`scheduleFilter`, which selects exactly them),
 * are the records the state created (`locationIds`) changed by what each write's answer says it
 * did: a failed atomic batch nothing, a successful one everything, a non-atomic one exactly its
 * successful items, a permanent DELETE its record.
 */
const proposalRecordsFollowWrites: SequenceRule = {
  name: 'proposal_records_follow_writes',
  requirements: ['SCHED-008', 'SCHED-011', 'SCHED-014', 'SCHED-029', 'SCHED-022'],
  description:
    "a proposal's schedule records read back whole (GET /api/{scheduleDomain}/Query with the state's scheduleFilter and key column, first page not full) are the state's locationIds changed by what each write between says it did; a mismatch after one write names that write's requirement (SCHED-014 failed atomic, SCHED-029 atomic, SCHED-011 non-atomic with failures, SCHED-008 non-atomic, SCHED-022 permanent DELETE). Not judged after a write whose effect is not stated (a soft delete, a Reinstate, an unreadable batch) or one naming the records from another proposal",
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    const q = ctx.bindings.query;
    const allowed = new Set([
      'columns',
      'take',
      'sort',
      'resolveAssociationNames',
      q.filter,
      q.skip,
      q.includeTotalCount,
      q.excludeEmptyColumns,
    ]);
    for (const p of ctx.states.proposals) {
      const v = p.setup.values!;
      const filter = v.scheduleFilter;
      const key = v.scheduleKey;
      const domain = p.scheduleDomain;
      if (typeof filter !== 'string' || typeof key !== 'string' || !domain) continue;
      let expected: Set<number> | undefined = new Set(p.locationIds);
      let pending: TrafficExchange[] = [];
      const mine = (x: TrafficExchange) =>
        x.operation?.pathParams.proposalId === p.proposalId && x.operation.pathParams.domain === domain;
      const ids = new Set(p.locationIds);
      for (const x of xs) {
        if (x.startMs < p.from || x.endMs > p.to) continue;
        const o = op(x);
        if (o === 'upsertSchedules' || o === 'deleteSchedule' || o === 'reinstateSchedule') {
          if (!mine(x)) {
            // a write through another proposal naming these records: what it did is for SCHED-010 to say
            const b = o === 'upsertSchedules' ? batchOf(x) : undefined;
            const named =
              o === 'upsertSchedules'
                ? !b || [...b.input.Updates, ...b.input.Deletes].some((i) => ids.has(itemId(i) ?? -1))
                : ids.has(Number(x.operation!.pathParams.scheduleId));
            if (named && x.operation!.pathParams.domain === domain) expected = undefined;
            continue;
          }
          if (!expected) continue;
          const e = effectOf(x, p.type);
          if (e === 'unknown') {
            expected = undefined;
            continue;
          }
          for (const id of e.add) {
            expected.add(id);
            ids.add(id);
          }
          for (const id of e.remove) expected.delete(id);
          pending.push(x);
          continue;
        }
        if (o !== 'queryRecords' || x.operation!.pathParams.domain !== domain || x.status !== 200) continue;
        if (x.query.get(q.filter) !== filter || [...x.query.keys()].some((k) => !allowed.has(k))) continue;
        if ((intParam(x.query, q.skip) ?? 0) !== 0) continue;
        const rows = (x.json as { List?: unknown } | undefined)?.List;
        if (!Array.isArray(rows)) continue;
        const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
        if (rows.length >= take) continue;
        const got = rows.map((r) => (isObject(r) ? r[key] : undefined));
        if (!got.every(isInt)) continue;
        // a write of this proposal still running while it was read: the read may show either side
        if (xs.some((w) => mine(w) && w.endMs > x.startMs && w.startMs < x.endMs)) continue;
        const seen = new Set(got as number[]);
        if (!expected) {
          // after a write whose effect is not stated, the next whole read is where to start again
          expected = seen;
          for (const id of seen) ids.add(id);
          pending = [];
          continue;
        }
        const same =
          seen.size === expected.size && [...seen].every((id) => expected!.has(id)) && got.length === seen.size;
        if (pending.length === 1) {
          const e = effectOf(pending[0], p.type) as Exclude<Effect, 'unknown'>;
          const want = [...expected].sort((a, b) => a - b);
          emit(
            [e.requirement],
            same,
            same
              ? `proposal ${p.proposalId}: after ${e.what}, its ${domain} records are ${want.join(', ') || 'none'}`
              : `proposal ${p.proposalId} (${p.setup.source}): after ${e.what}, its ${domain} records read back as ${show(got)}, where the answers say ${show(want)}`,
            [pending[0], x],
          );
        }
        if (!same && pending.length !== 1) expected = undefined;
        else if (!same) expected = seen;
        pending = [];
      }
    }
  },
};

/**
 * QRY-009, QRY-010, QRY-014: a query with the filter a "records" provider state gave selects
 * exactly its records; with its LINQ filter alone, exactly those at odd positions short of the
 * last (spec/provider-states.yaml); the first page holds as many as take allows, and the total
 * count is the number selected.
 */
const stateFilterSelects: SequenceRule = {
  name: 'state_filter_selects_its_records',
  requirements: ['QRY-009', 'QRY-010', 'QRY-014'],
  description:
    'a query of the domain with the filter (or, alone, the LINQ filter) a "records" provider state gave, without a start offset and with take above the number selected, answers exactly the selected rows and, with the total count on, the number selected (filter: all the state\'s records; LINQ filter: those at odd positions short of the last)',
  judge(xs, ctx, emit) {
    if (!ctx.states?.records.length) return;
    const q = ctx.bindings.query;
    const allowed = new Set([
      'columns',
      'take',
      'sort',
      'resolveAssociationNames',
      q.filter,
      q.linqFilter,
      q.skip,
      q.includeTotalCount,
      q.excludeEmptyColumns,
    ]);
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

/**
 * SCHED-010: an update or delete naming, through proposal P, a schedule record a provider state
 * created for another proposal is not answered as successful.
 */
const foreignRecordRefused: SequenceRule = {
  name: 'foreign_record_refused',
  requirements: ['SCHED-010'],
  description:
    'an UpsertMulti update or delete (non-atomic, or atomic without a failure) or a single DELETE through one proposal, naming a schedule record a provider state created for another proposal (its locationIds), is not answered as successful',
  judge(xs, ctx, emit) {
    if (!ctx.states?.proposals.length) return;
    const owner = (id: number, x: TrafficExchange) => {
      const held = ctx.states!.proposals.filter(
        (p) => p.locationIds.includes(id) && x.startMs >= p.from && x.endMs <= p.to,
      );
      return held.length === 1 ? held[0] : undefined;
    };
    for (const x of xs) {
      const o = op(x);
      if (o !== 'upsertSchedules' && o !== 'deleteSchedule') continue;
      const pid = x.operation!.pathParams.proposalId;
      const named: Array<{ id: number; ok: unknown }> = [];
      if (o === 'deleteSchedule') {
        named.push({
          id: Number(x.operation!.pathParams.scheduleId),
          ok: (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful,
        });
      } else {
        const b = batchOf(x);
        if (!b?.results || (b.atomic && b.anyFailure)) continue;
        for (const k of ['Updates', 'Deletes'] as const)
          for (const r of b.results[k]) {
            const id = itemId(itemOf(b, k, r) ?? {});
            // the result is that item's only where its RecordID agrees (an update's, a successful delete's)
            // or the array has one item: a wrong OrderNumber is SCHED-003's to name, not this rule's
            const paired = r.RecordID === id || (b.input[k].length === 1 && r.OrderNumber === 0);
            if (id !== undefined && paired) named.push({ id, ok: r.IsSuccessful });
          }
      }
      for (const { id, ok } of named) {
        const p = owner(id, x);
        if (!p || p.proposalId === pid || typeof ok !== 'boolean') continue;
        if (ctx.states.proposals.some((q) => q.proposalId === pid && q.locationIds.includes(id))) continue;
        emit(
          ['SCHED-010'],
          !ok,
          `${x.operation!.pathParams.domain} ${id}, a record of proposal ${p.proposalId} (${p.setup.source}), named through proposal ${pid}: IsSuccessful ${ok}`,
          [x],
        );
      }
    }
  },
};

/** Link writes whose child is a File, in recorded order (they change which files are linked). */
const fileLinkWrites = (xs: TrafficExchange[]) =>
  xs.filter(
    (x) =>
      (op(x) === 'upsertLink' || op(x) === 'removeLink') &&
      (!isObject(x.requestJson) || x.requestJson.ChildDomain === undefined || x.requestJson.ChildDomain === 'File'),
  );

/** The bare (not aliased) key of `field` in the answer's rows, or undefined when it is not requested as itself. */
function bareKey(x: TrafficExchange, field: string): string | undefined {
  const cols = requestedColumns(x.query.get('columns'));
  if (!cols) return field;
  if (cols.some((c) => c.key === field && (c.alias || c.field !== field))) return undefined;
  return cols.some((c) => c.field === field && !c.alias) ? field : undefined;
}

/**
 * FILE-002, FILE-006: a file a provider state created answers the FileSize of the bytes it was
 * given, and IsUnlinked false when the state linked it, true when it left it orphaned (until a
 * link write on a file).
 */
const stateFilesAsSetUp: SequenceRule = {
  name: 'state_files_as_set_up',
  requirements: ['FILE-002', 'FILE-006'],
  description:
    'a file a provider state created ("a file", "a record with files") answers, wherever a row carries its FileID, the FileSize of its decoded bytes, and IsUnlinked false when linked, true when orphaned (not judged after a link write on a file)',
  judge(xs, ctx, emit) {
    if (!ctx.states?.files.length) return;
    const links = fileLinkWrites(xs);
    const byId = new Map<number, typeof ctx.states.files>();
    for (const f of ctx.states.files) byId.set(f.fileId, [...(byId.get(f.fileId) ?? []), f]);
    for (const x of xs) {
      const o = op(x);
      if ((o !== 'queryFiles' && o !== 'getFile' && o !== 'listAttachedFiles') || x.status !== 200) continue;
      const idKey = bareKey(x, 'FileID');
      if (!idKey) continue;
      const sizeKey = bareKey(x, 'FileSize');
      const unlinkedKey = bareKey(x, 'IsUnlinked');
      for (const row of recordsOf(x)) {
        const fid = row[idKey];
        if (!isInt(fid)) continue;
        const hits = (byId.get(fid) ?? []).filter((f) => x.startMs >= f.from && x.endMs <= f.to);
        if (hits.length !== 1) continue;
        const f = hits[0];
        if (sizeKey && f.size !== undefined && sizeKey in row)
          emit(
            ['FILE-002'],
            row[sizeKey] === f.size,
            `file ${fid} (${f.setup.source}, ${f.size} bytes): FileSize ${show(row[sizeKey])}`,
            [x],
          );
        if (
          unlinkedKey &&
          f.linked !== undefined &&
          unlinkedKey in row &&
          !links.some((l) => l.startMs < x.endMs && l.endMs > f.from)
        )
          emit(
            ['FILE-006'],
            row[unlinkedKey] === !f.linked,
            `file ${fid} set up ${f.linked ? 'linked' : 'orphaned'} (${f.setup.source}): IsUnlinked ${show(row[unlinkedKey])}`,
            [x],
          );
      }
    }
  },
};

/**
 * FILE-007, LINK-021: the attached-files listing of a parent a provider state gave files lists
 * exactly those files; none of its twin's (the same ID in another domain).
 */
const stateParentListsItsFiles: SequenceRule = {
  name: 'state_parent_lists_its_files',
  requirements: ['FILE-007', 'LINK-021'],
  description:
    'GET /api/{domain}/{id}/Files of a parent a provider state ("a record with files") created lists exactly the state\'s fileIds, none of its twin\'s (LINK-021); judged with FileID requested, no start offset, take at or above the count (or no take and fewer than 30 files), and no link write on a file since the setup',
  judge(xs, ctx, emit) {
    if (!ctx.states?.parents.length) return;
    const links = fileLinkWrites(xs);
    const q = ctx.bindings.query;
    for (const x of xs) {
      if (op(x) !== 'listAttachedFiles' || x.status !== 200) continue;
      const rows = (x.json as { List?: unknown } | undefined)?.List;
      if (!Array.isArray(rows)) continue;
      const { domain, id } = x.operation!.pathParams;
      const hits = ctx.states.parents.filter(
        (p) => p.domain === domain && String(p.id) === id && x.startMs >= p.from && x.endMs <= p.to,
      );
      if (hits.length !== 1) continue;
      const p = hits[0];
      if (links.some((l) => l.startMs < x.endMs && l.endMs > p.from)) continue;
      if ((intParam(x.query, q.skip) ?? 0) !== 0 || (x.query.has(q.skip) && intParam(x.query, q.skip) === undefined))
        continue;
      const take = x.query.has('take') ? intParam(x.query, 'take') : undefined;
      if (x.query.has('take') ? take === undefined || Math.min(take, 100) < p.fileIds.length : p.fileIds.length >= 30)
        continue;
      const idKey = bareKey(x, 'FileID');
      if (!idKey) continue;
      const got = rows.map((r) => (isObject(r) ? r[idKey] : undefined));
      if (!got.every(isInt)) continue;
      const twins = got.filter((g) => p.twinFileIds.includes(g as number));
      if (twins.length) {
        emit(['LINK-021'], false, `${domain} ${id} (${p.setup.source}) lists its twin's file(s) ${show(twins)}`, [x]);
        continue;
      }
      if (p.twinFileIds.length) emit(['LINK-021'], true, `${domain} ${id}: none of its twin's files`, [x]);
      const same = got.length === p.fileIds.length && p.fileIds.every((f) => got.includes(f));
      emit(
        ['FILE-007'],
        same,
        same
          ? `${domain} ${id}: exactly its ${p.fileIds.length} file(s)`
          : `${domain} ${id} (${p.setup.source}) lists ${show(got)}, where the state linked ${show(p.fileIds)}${take !== undefined ? ` (take ${take})` : ''}`,
        [x],
      );
    }
  },
};

/**
 * LINK-014: Link/Upsert of an existing link updates it. A pair of records upserted (by primary keys,
 * always with the same relationship or none) is listed once by a later Link/Query, never twice.
 */
const upsertDoesNotDuplicate: SequenceRule = {
  name: 'link_upsert_does_not_duplicate',
  requirements: ['LINK-014'],
  description:
    'after a successful Link/Upsert by primary keys of a parent and child (every upsert of that pair with the same relationship, or none), a later Link/Query row of that pair appears once; listed twice with all four IDs equal, it fails',
  judge(xs, ctx, emit) {
    const ups = new Map<string, { at: TrafficExchange[]; rel: Set<string> }>();
    const keyOf = (pd: unknown, p: unknown, cd: unknown, c: unknown) => `${pd}/${p}/${cd}/${c}`;
    for (const x of xs) {
      if (op(x) === 'upsertLink' && x.status === 200 && isObject(x.requestJson)) {
        if ((x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful !== true) continue;
        const b = x.requestJson;
        const pd = ctx.domainIds.get(String(b.ParentDomain));
        const cd = ctx.domainIds.get(String(b.ChildDomain));
        if (pd === undefined || cd === undefined || !isInt(b.ParentRecordID) || !isInt(b.ChildRecordID)) continue;
        const k = keyOf(pd, b.ParentRecordID, cd, b.ChildRecordID);
        const u = ups.get(k) ?? { at: [], rel: new Set<string>() };
        u.at.push(x);
        u.rel.add(JSON.stringify(b.Relationship ?? null));
        ups.set(k, u);
        continue;
      }
      if (op(x) !== 'queryLinks' || x.status !== 200) continue;
      const rows = recordsOf(x);
      const seen = new Map<string, number>();
      for (const r of rows) {
        if (![r.ParentDomainID, r.ParentID, r.ChildDomainID, r.ChildID].every(isInt)) continue;
        const k = keyOf(r.ParentDomainID, r.ParentID, r.ChildDomainID, r.ChildID);
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      for (const [k, n] of seen) {
        const u = ups.get(k);
        if (!u || u.rel.size !== 1 || !u.at.some((w) => after(w, x))) continue;
        if (n === 1 && u.at.filter((w) => after(w, x)).length < 2) continue;
        emit(
          ['LINK-014'],
          n === 1,
          n === 1
            ? `link ${k} upserted ${u.at.length} time(s), listed once`
            : `link ${k} (parent domain/ID/child domain/ID) upserted ${u.at.filter((w) => after(w, x)).length} time(s) with one relationship, listed ${n} times`,
          [u.at[u.at.length - 1], x],
        );
      }
    }
  },
};

/**
 * FILE-006: after a successful Link/Upsert with a File child, that file has a parent link, so a
 * later read of it answers IsUnlinked false (until a link removal that may name it).
 */
const linkedFileIsNotUnlinked: SequenceRule = {
  name: 'linked_file_is_not_unlinked',
  requirements: ['FILE-006'],
  description:
    'after a successful Link/Upsert whose child is File F (by its primary key), a later read of F (GET /api/File/{id}, a file query or listing row with FileID F) answers IsUnlinked false; not judged after a Link/Remove that may name F',
  judge(xs, _ctx, emit) {
    const removals = xs.filter(
      (x) => op(x) === 'removeLink' && (!isObject(x.requestJson) || x.requestJson.ChildDomain !== 'Contact'),
    );
    const ups = xs.filter(
      (x) =>
        op(x) === 'upsertLink' &&
        x.status === 200 &&
        (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful === true &&
        isObject(x.requestJson) &&
        x.requestJson.ChildDomain === 'File' &&
        isInt(x.requestJson.ChildRecordID),
    );
    if (!ups.length) return;
    for (const x of xs) {
      const o = op(x);
      if ((o !== 'getFile' && o !== 'queryFiles' && o !== 'listAttachedFiles') || x.status !== 200) continue;
      const unlinkedKey = bareKey(x, 'IsUnlinked');
      if (!unlinkedKey) continue;
      const idKey = bareKey(x, 'FileID');
      for (const row of recordsOf(x)) {
        const fid = o === 'getFile' ? Number(x.operation!.pathParams.id) : idKey ? row[idKey] : undefined;
        if (!isInt(fid) || !(unlinkedKey in row)) continue;
        const up = ups
          .filter((u) => (u.requestJson as { ChildRecordID: number }).ChildRecordID === fid && after(u, x))
          .pop();
        if (!up) continue;
        const removed = removals.some(
          (r) =>
            r.endMs > up.startMs &&
            r.startMs < x.endMs &&
            (!isObject(r.requestJson) ||
              r.requestJson.ChildRecordID === undefined ||
              r.requestJson.ChildRecordID === fid),
        );
        if (removed) continue;
        emit(
          ['FILE-006'],
          row[unlinkedKey] === false,
          `file ${fid} linked by a successful Link/Upsert, then read: IsUnlinked ${show(row[unlinkedKey])}`,
          [up, x],
        );
      }
    }
  },
};

export const SEQUENCE_RULES: readonly SequenceRule[] = [
  ...QUERY_SEQUENCE_RULES,
  contentsAgainstFileSize,
  writeThenRead,
  failedWriteChangesNothing,
  pagesJoin,
  pagesAreSlices,
  createMemberTwice,
  linkThenQuery,
  boundStaysBound,
  reinstatedIsReadable,
  contentsWithToken,
  notModifiableRefusesWrites,
  permanentDeleteIsGone,
  proposalRecordsFollowWrites,
  stateFilterSelects,
  foreignRecordRefused,
  stateFilesAsSetUp,
  stateParentListsItsFiles,
  upsertDoesNotDuplicate,
  linkedFileIsNotUnlinked,
];

/** Requirements of authentication and permissions no recording decides. */
export const AUTH_NOT_JUDGEABLE: readonly NotJudgeable[] = [
  {
    requirements: ['AUTH-001', 'AUTH-002'],
    reason:
      'needs to know which tokens the service issued, and exports often strip credentials (a request recorded without a token may have carried one), so a recording does not show what the caller sent',
  },
  {
    requirements: ['AUTH-004', 'AUTH-005', 'AUTH-006', 'AUTH-007'],
    reason:
      "depends on the caller's permissions on the parent and child domains, which a recording does not show (only a provider state that sets up the user does)",
  },
];
