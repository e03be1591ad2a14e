// The query rules a page shows (spec 4.2; File/Query takes them, 4.3): empty-column suppression
// (QRY-011, QRY-012, FILE-023) and the total count (QRY-014, QRY-015, FILE-024). The suite asserts
// these findings on the pages it reads (conformance/suite/query.test.ts, files.test.ts,
// support/records-query.ts, the query oracle) and the traffic rules empty_column_suppression and
// total_count emit them for every recorded query (traffic/rules-columns.ts). What the caller knows
// of the selection (how many records the query selects) comes in as `count`; without it the judge
// decides what the page alone shows.
import { type Finding, type JudgeEntry, show } from './finding.js';

export const TOTAL_COUNT_JUDGE: JudgeEntry = {
  name: 'judgeTotalCount',
  requirements: ['QRY-014', 'QRY-015', 'FILE-024'],
};

/** A page of a query (queryRecords or queryFiles) as the total-count rule reads it. */
export interface CountedPage {
  operationId: string;
  /** The total-count parameter: true, false, or undefined when not sent. */
  asked: boolean | undefined;
  /** The total count answered (where the bindings put it); undefined when none. */
  total: unknown;
  /** The start offset (0 when not sent) and the take asked (the default when not sent). */
  skip: number;
  take: number;
  /** How many records the page holds. */
  shown: number;
}

/**
 * Not asked for, no total count (QRY-015); asked for, a non-negative integer: the number of records
 * the query selects when the caller knows it (`count`), else at least the start offset plus the
 * records shown, and exactly that on a short page (QRY-014). On File/Query each finding is
 * FILE-024's too.
 */
export function judgeTotalCount(p: CountedPage, count?: number): Finding[] {
  const of = (requirement: string, ok: boolean, detail: string): Finding[] =>
    [requirement, ...(p.operationId === 'queryFiles' ? ['FILE-024'] : [])].map((r) => ({ requirement: r, ok, detail }));
  if (p.asked !== true)
    return of(
      'QRY-015',
      p.total === undefined,
      p.total === undefined ? 'no total count asked, none given' : `no total count asked, yet one is ${show(p.total)}`,
    );
  const { total, skip, shown } = p;
  const take = Math.min(p.take, 100);
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0)
    return of('QRY-014', false, `total count asked for, it is ${show(total)}`);
  if (count !== undefined)
    return of('QRY-014', total === count, `total count ${total} of the ${count} records selected (page at ${skip})`);
  if (shown > 0 && total < skip + shown)
    return of('QRY-014', false, `total count ${total} is less than skip ${skip} + ${shown} records shown`);
  if (shown > 0 && shown < take && total !== skip + shown)
    return of('QRY-014', false, `a short page (${shown} of ${take}) at skip ${skip}, yet the total count is ${total}`);
  return of('QRY-014', true, `total count ${total} with ${shown} records at skip ${skip}`);
}

export const SUPPRESSION_JUDGE: JudgeEntry = {
  name: 'judgeSuppression',
  requirements: ['QRY-011', 'QRY-012', 'FILE-023'],
};

/**
 * A page answered with empty-column suppression on, to a `columns` list of `keys` (each once): a
 * column is in every record or in none (QRY-012), one null in every record is left out (QRY-011),
 * one with a value somewhere is kept, nulls included (QRY-012). On File/Query each finding is
 * FILE-023's too. An empty page shows nothing.
 */
export function judgeSuppression(
  operationId: string,
  keys: readonly string[],
  records: ReadonlyArray<Record<string, unknown>>,
): Finding[] {
  const out: Finding[] = [];
  const add = (requirement: string, ok: boolean, detail: string) => {
    for (const r of [requirement, ...(operationId === 'queryFiles' ? ['FILE-023'] : [])])
      out.push({ requirement: r, ok, detail });
  };
  if (records.length === 0) return out;
  const having = keys.map((k) => records.filter((r) => k in r).length);
  const partly = keys.find((_, i) => having[i]! > 0 && having[i]! < records.length);
  if (partly !== undefined)
    add('QRY-012', false, `column ${partly} is in ${having[keys.indexOf(partly)]} of ${records.length} records`);
  const kept = keys.filter((_, i) => having[i] === records.length);
  const empty = kept.find((k) => records.every((r) => r[k] === null));
  if (empty !== undefined) add('QRY-011', false, `column ${empty} is null in every record yet not omitted`);
  else if (having.includes(0)) add('QRY-011', true, 'columns null everywhere omitted, the others kept');
  if (partly === undefined && kept.some((k) => records.some((r) => r[k] === null)))
    add('QRY-012', true, 'a column with a value in some records kept in all, nulls included');
  return out;
}
