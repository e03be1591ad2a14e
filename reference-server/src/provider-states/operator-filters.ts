// The operator classes of the provider state 'records' (protocol 1.3.0, param `operatorFilters`):
// values stored in the state's records that make the boundaries of the filter operators bite, and
// one filter per class in the reference's grammar (architecture 2.1, `Field:op:value && ...`) with
// the records it selects. The data is the bugs' opposite, one per class: numbers whose text order
// differs from their numeric order with the boundary stored (9, 10, 100), two times of one day on
// both sides of noon, a text containing the term but not starting with it, false and true, null
// and the empty text.
import type { FieldDef } from '../dictionary.js';

/** Records of one pattern; the i-th record takes the (i mod 8)-th value of each column. */
const PATTERN = 8;
const NUMBERS = [9, 10, 100, 95, 10, null, 1000, 2];
const BOUNDARY = 10;
const DAY = '2026-03-14';
const MORNING = `${DAY}T08:00:00.000`;
const EVENING = `${DAY}T17:30:00.000`;
const NOON = `${DAY}T12:00:00.000`;
const TERM = 'mid';
const TEXTS = ['x-mid-0', 'mid-1', '', 'amid', '', null, 'midway', null];
const BOOLEANS = [true, false, true, false, false, true, true, false];

type OperatorClass = 'numericBoundary' | 'timestampWithinDay' | 'textContains' | 'boolean' | 'nullCheck' | 'combined';

/** The fields that carry the classes (a class whose field the domain lacks is not stated). */
export interface OperatorFields {
  number?: FieldDef;
  timestamp?: FieldDef;
  text?: FieldDef;
  boolean?: FieldDef;
}

interface OperatorFixture {
  /** the values of the i-th record created */
  valuesAt(i: number): Record<string, unknown>;
  /** per stated class, the filter and the IDs (of `ids`, in creation order) it selects */
  filters(ids: number[]): Partial<Record<OperatorClass, { filter: string; ids: number[] }>>;
}

/** The classes' data and filters over `count` records; `scope` is the condition that keeps a filter to this setup. */
export function operatorFixture(fields: OperatorFields, count: number, scope: string): OperatorFixture {
  const at = <T>(list: T[], i: number): T => list[i % PATTERN]!;
  const numberAt = (i: number) => at(NUMBERS, i);
  const boolAt = (i: number) => at(BOOLEANS, i);
  // class → [condition, predicate on the record's position]
  const classes: Array<[OperatorClass, string, (i: number) => boolean]> = [];
  const { number, timestamp, text, boolean } = fields;
  const ge = (i: number) => numberAt(i) !== null && numberAt(i)! >= BOUNDARY;
  if (number) classes.push(['numericBoundary', `${number.name}:ge:${BOUNDARY}`, ge]);
  if (timestamp) classes.push(['timestampWithinDay', `${timestamp.name}:gt:${NOON}`, (i) => i % 2 === 1]);
  if (text) {
    classes.push(['textContains', `${text.name}:contains:${TERM}`, (i) => at(TEXTS, i)?.includes(TERM) === true]);
    classes.push(['nullCheck', `${text.name}:isnull:`, (i) => at(TEXTS, i) === null]);
  }
  if (boolean) classes.push(['boolean', `${boolean.name}:eq:false`, (i) => !boolAt(i)]);
  if (number && boolean)
    classes.push(['combined', `${number.name}:ge:${BOUNDARY} && ${boolean.name}:eq:false`, (i) => ge(i) && !boolAt(i)]);
  return {
    valuesAt(i) {
      const v: Record<string, unknown> = {};
      if (number) v[number.name] = numberAt(i);
      if (timestamp) v[timestamp.name] = i % 2 === 1 ? EVENING : MORNING;
      if (text) v[text.name] = at(TEXTS, i);
      if (boolean) v[boolean.name] = boolAt(i);
      return v;
    },
    filters(ids) {
      // fewer records than the pattern: the boundaries need all of them, so no class is stated
      if (count < PATTERN) return {};
      const out: Partial<Record<OperatorClass, { filter: string; ids: number[] }>> = {};
      for (const [cls, condition, selects] of classes)
        out[cls] = { filter: `${condition} && ${scope}`, ids: ids.filter((_, i) => selects(i)) };
      return out;
    },
  };
}
