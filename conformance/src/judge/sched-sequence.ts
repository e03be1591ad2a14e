// SCHED-007, -008, -011, -014, -021, -022, -029: what a schedule write did to the stored records
// (spec 2.5, 3, 4.5), judged on reads of them after it: the records as the write's answer says it
// left them (`expected`) against the records as read (`seen`). Who reads is the caller's: the suite
// reads back what it wrote (suite/schedules.test.ts), the traffic rules pick the reads of a
// recording (traffic/sequence-schedules.ts). Which requirement states the effect follows from what
// the answer says the write was (writtenItemRequirements, batchRequirement).
import { isDeepStrictEqual } from 'node:util';
import { type Finding, type JudgeEntry, isObject, show } from './finding.js';

/** A record's fields as read (any JSON values), or null where the read did not answer the record. */
export type ReadRecord = Readonly<Record<string, unknown>> | null;
/** Records by ID, as a Map or as the rows of a listing in order (an ID listed twice shows). */
export type Records = Iterable<readonly [number, ReadRecord]>;

const READ_BACK_REQUIREMENTS = [
  'SCHED-007',
  'SCHED-008',
  'SCHED-011',
  'SCHED-014',
  'SCHED-021',
  'SCHED-022',
  'SCHED-029',
] as const;
export type ReadBackRequirement = (typeof READ_BACK_REQUIREMENTS)[number];
export const isReadBackRequirement = (r: string): r is ReadBackRequirement =>
  (READ_BACK_REQUIREMENTS as readonly string[]).includes(r);

export const SCHED_READ_BACK_JUDGE: JudgeEntry = { name: 'judgeReadBack', requirements: READ_BACK_REQUIREMENTS };

/** The requirements stating what a successful item wrote: an insert's values SCHED-007, an update's SCHED-008; in an atomic batch also SCHED-029. */
export function writtenItemRequirements(kind: 'Inserts' | 'Updates', atomic: boolean): ReadBackRequirement[] {
  return [kind === 'Inserts' ? 'SCHED-007' : 'SCHED-008', ...(atomic ? (['SCHED-029'] as const) : [])];
}

/** The requirement stating what a batch did as a whole (4.5): atomic with a failure SCHED-014, atomic SCHED-029, non-atomic with failures SCHED-011, else SCHED-008. */
export function batchRequirement(atomic: boolean, anyFailure: boolean): ReadBackRequirement {
  if (atomic) return anyFailure ? 'SCHED-014' : 'SCHED-029';
  return anyFailure ? 'SCHED-011' : 'SCHED-008';
}

/** Equal values; a number and a string of the same text are one value (a client may send either). */
function sameValue(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'string';
  return scalar(a) && scalar(b) && String(a) === String(b);
}

/**
 * Where `seen` differs from `expected`, in words; undefined where it agrees. A record expected gone
 * (null) is not answered; a record expected with values is answered, and each expected field the
 * read shows holds its value (a field the read does not show is not compared). `whole`: `seen` is
 * every record there is (a listing), so a record it lacks or lists twice, or one not expected, differs.
 * `compared` counts the records compared (none: nothing decided).
 */
export function readBackFault(expected: Records, seen: Records, whole = false): { fault?: string; compared: number } {
  const got = new Map<number, ReadRecord>();
  for (const [id, r] of seen) {
    if (whole && got.has(id)) return { fault: `record ${id} listed twice`, compared: 0 };
    got.set(id, r);
  }
  const want = new Map(expected);
  let compared = 0;
  for (const [id, e] of want) {
    const s = got.get(id);
    if (s === undefined && !whole) continue;
    compared++;
    if (e === null) {
      if (isObject(s)) return { fault: `record ${id} read back as ${show(s)}, where it is gone`, compared };
      continue;
    }
    if (!isObject(s))
      return {
        fault: `record ${id} not read back${Object.keys(e).length ? `, where it holds ${show(e)}` : ''}`,
        compared,
      };
    const bad = Object.keys(e).find((f) => f in s && !sameValue(s[f], e[f]));
    if (bad !== undefined)
      return { fault: `record ${id}: ${bad} read back as ${show(s[bad])}, where it is ${show(e[bad])}`, compared };
  }
  if (whole) {
    const extra = [...got].filter(([id, r]) => r !== null && !want.get(id)).map(([id]) => id);
    if (extra.length) return { fault: `record(s) ${extra.join(', ')} read back, not expected`, compared };
  }
  return { compared };
}

/**
 * The records a write left, read back: `requirement` (the one stating the write's effect) holds
 * where `seen` agrees with `expected` (readBackFault). `what` names the records for the detail.
 * Not decided when no record is compared.
 */
export function judgeReadBack(
  requirement: ReadBackRequirement,
  expected: Records,
  seen: Records,
  whole = false,
  what = 'the records',
): Finding[] {
  const { fault, compared } = readBackFault(expected, seen, whole);
  if (!fault && !compared && !whole) return [];
  return [
    {
      requirement,
      ok: fault === undefined,
      detail: `${what}: ${fault ?? `${compared} record(s) read back as the answers say`}`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// SCHED-010

export const SCHED_FOREIGN_RECORD_JUDGE: JudgeEntry = { name: 'judgeForeignRecords', requirements: ['SCHED-010'] };

/** A schedule record a write named (its ID where known), the proposal that holds it, and what the answer says of it. */
export interface NamedRecord {
  id?: number;
  owner: number | string;
  /** IsSuccessful of the item's result (a single DELETE's), as answered. */
  isSuccessful: unknown;
}

/**
 * SCHED-010 (4.5 "All operations target the same domain on the same proposal"): an update or delete
 * through proposal `through` naming a record of another proposal is not answered as successful. One
 * finding per such record answered with a boolean IsSuccessful; what = the write, for the detail.
 */
export function judgeForeignRecords(through: number | string, named: readonly NamedRecord[], what = ''): Finding[] {
  return named
    .filter((n) => String(n.owner) !== String(through) && typeof n.isSuccessful === 'boolean')
    .map((n) => ({
      requirement: 'SCHED-010',
      ok: n.isSuccessful === false,
      detail: `${what}${n.id === undefined ? 'a record' : `record ${n.id}`} of proposal ${n.owner}, named through proposal ${through}: IsSuccessful ${String(n.isSuccessful)}`,
    }));
}
