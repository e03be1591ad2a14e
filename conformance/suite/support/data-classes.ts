// Stored values of the data classes (spec/data-classes.yaml) the suite asks the provider state
// 'records' for (protocol 1.2.0, params `numbers` and `texts`): the fixture says what the data is,
// so a `value || null`, a Latin-1 read of UTF-8, a text sort of numbers or a dropped null sort key
// shows. Each value is tagged with its class; tests declare the classes as `REQ-ID:<type>.<class>`.
import { expect } from 'vitest';
import type { ProviderStates } from '../../../spec/generated/provider-states.js';
import { PreconditionFailedError } from '../../src/suite-api/dsl.js';
import { type Ctx, allInOrder, enc, get } from './request.js';

export type Records = ProviderStates['records']['values'];

/** One record's stored number and text, with the classes they stand for. */
interface Sample {
  number: number | null;
  text: string | null;
  classes: string[];
}

/**
 * Twelve records. Numbers: zero, negative, fractions, digit counts 1 to 7 (2, 10, 100: a text sort
 * puts 10 before 2), a tie (2 twice) and two nulls. Texts: empty, padded, non-ASCII Latin,
 * multi-byte (CJK, Greek), emoji (outside the BMP), reserved words of JavaScript and SQL, the word
 * `null`, and two nulls. No value is first or last in creation order by accident of its class.
 */
const SAMPLES: Sample[] = [
  { number: 2, text: 'constructor', classes: ['number.digit-counts', 'number.tie', 'text.reserved-word'] },
  { number: 0, text: 'Zoë Ångström', classes: ['number.zero', 'text.non-ascii'] },
  { number: 10, text: '東京都千代田区', classes: ['number.digit-counts', 'text.multibyte'] },
  { number: null, text: '', classes: ['number.null', 'text.empty'] },
  { number: -3, text: '😀 emoji 🎉', classes: ['number.negative', 'text.emoji'] },
  { number: 2.75, text: '  padded  ', classes: ['number.fraction', 'text.whitespace'] },
  { number: 100, text: null, classes: ['number.digit-counts', 'text.null'] },
  { number: 2, text: '__proto__', classes: ['number.tie', 'text.reserved-word'] },
  {
    number: 0.1,
    text: "SELECT * FROM x; DROP TABLE y; -- O'Brien",
    classes: ['number.fraction', 'text.reserved-word'],
  },
  { number: null, text: 'null', classes: ['number.null', 'text.null-word'] },
  { number: -0.5, text: 'Ωμέγα ñ ß', classes: ['number.negative', 'number.fraction', 'text.multibyte'] },
  { number: 1234567.25, text: null, classes: ['number.digit-counts', 'number.fraction', 'text.null'] },
];

export const SAMPLE_NUMBERS: Array<number | null> = SAMPLES.map((s) => s.number);
export const SAMPLE_TEXTS: Array<string | null> = SAMPLES.map((s) => s.text);

/** The classes the samples stand for, as `REQ-ID:<type>.<class>` for the requirements named. */
export function sampleClasses(requirements: string[], types: Array<'number' | 'text'> = ['number', 'text']): string[] {
  const all = [...new Set(SAMPLES.flatMap((s) => s.classes))].filter((c) => types.some((t) => c.startsWith(`${t}.`)));
  return requirements.flatMap((r) => all.sort().map((c) => `${r}:${c}`));
}

/** A 'records' state holding the samples (protocol 1.2.0). */
export async function sampleRecords(t: Ctx): Promise<Records & { numberField: string; textField: string }> {
  const recs = await t.given('records', {
    count: SAMPLES.length,
    numbers: SAMPLE_NUMBERS,
    texts: SAMPLE_TEXTS,
  });
  // the params were confirmed (the values numbers and texts echo them); the fields must be named
  if (!recs.numberField || !recs.textField)
    throw new PreconditionFailedError(
      "provider state 'records' honoured `numbers` and `texts` but named no `numberField` or `textField`",
    );
  // what the state says it stored is what was asked (else the fixture is not the one asked for)
  const storedNumbers = recs.numbers ?? [];
  const storedTexts = recs.texts ?? [];
  const off = [
    ...SAMPLE_NUMBERS.flatMap((n, i) =>
      (n === null ? storedNumbers[i] === null : Number(storedNumbers[i]) === n)
        ? []
        : [`numbers[${i}] = ${JSON.stringify(n)} stored as ${JSON.stringify(storedNumbers[i])}`],
    ),
    ...SAMPLE_TEXTS.flatMap((x, i) =>
      storedTexts[i] === x ? [] : [`texts[${i}] = ${JSON.stringify(x)} stored as ${JSON.stringify(storedTexts[i])}`],
    ),
  ];
  if (off.length)
    throw new PreconditionFailedError(`provider state 'records' did not store the values asked for: ${off.join('; ')}`);
  return recs as Records & { numberField: string; textField: string };
}

/**
 * Two records at the extremes: a number of 12 digits with a fraction and 875 characters of
 * multi-byte text (1,000 UTF-16 code units, 1,875 bytes in UTF-8). An implementation whose fields
 * cannot hold them refuses the state (400: not-applicable with its reason), never fails.
 */
export const EXTREME_NUMBERS = [987654321012.5, 3];
export const EXTREME_TEXTS = ['Zoë東京😀 '.repeat(125), 'short'];

export async function extremeRecords(t: Ctx): Promise<Records & { numberField: string; textField: string }> {
  const recs = await t.given('records', { count: 2, numbers: EXTREME_NUMBERS, texts: EXTREME_TEXTS });
  if (!recs.numberField || !recs.textField)
    throw new PreconditionFailedError("provider state 'records' named no `numberField` or `textField`");
  return recs as Records & { numberField: string; textField: string };
}

/**
 * A stored number as the interface answers it: the JSON number, or a decimal written as a string
 * (the spec does not say how a decimal is written), never null for a value and never a value for null.
 */
export function expectNumber(got: unknown, want: number | null, what: string): void {
  if (want === null) {
    expect(got, `${what}: no value stored, so null`).toBeNull();
    return;
  }
  const ok = typeof got === 'number' || (typeof got === 'string' && got.trim() !== '');
  expect(ok, `${what}: ${want} stored, answered ${JSON.stringify(got)}`).toBe(true);
  expect(Number(got), `${what}: ${want} stored, answered ${JSON.stringify(got)}`).toBe(want);
}

/** A stored text as the interface answers it: the same string, code point for code point. */
export function expectText(got: unknown, want: string | null, what: string): void {
  expect(got, `${what}: ${JSON.stringify(want)} stored, answered ${JSON.stringify(got)}`).toStrictEqual(want);
}

/** The number and text columns of a record or row hold the stored values `want` (expectNumber, expectText). */
export function expectStored(
  got: Record<string, unknown>,
  recs: { numberField: string; textField: string },
  want: { number: number | null; text: string | null },
  what: string,
): void {
  expectNumber(got[recs.numberField], want.number, `${what}: ${recs.numberField}`);
  expectText(got[recs.textField], want.text, `${what}: ${recs.textField}`);
}

/**
 * The state's sortField value of each record, read by ID (step: REC-001 / REC-002 are judged by
 * their own tests), with its number and text: the truth the query tests compare against.
 */
export async function sampleRows(
  t: Ctx,
  recs: Records & { numberField: string; textField: string },
): Promise<Array<{ id: number; key: unknown; number: number | null; text: string | null }>> {
  // read at once; a failure ends the test on the first record's in creation order (allInOrder)
  const keys = await allInOrder(
    recs.ids.map((id) =>
      t.needs('REC-001', `read ${recs.domain} ${id} by ID`, async () => {
        const res = await get(t, `/api/${enc(recs.domain)}/${id}`, { columns: recs.sortField });
        expect(res.status, `GET /api/${recs.domain}/${id}`).toBe(200);
        const rec = (res.json as { Record?: Record<string, unknown> } | undefined)?.Record;
        expect(rec && typeof rec === 'object', `GET /api/${recs.domain}/${id}: a Record`).toBe(true);
        return rec![recs.sortField];
      }),
    ),
  );
  const out = recs.ids.map((id, i) => ({ id, key: keys[i], number: SAMPLE_NUMBERS[i]!, text: SAMPLE_TEXTS[i]! }));
  await t.needs('REC-002', `reads by ID of the ${recs.ids.length} records answer distinct sort values`, async () => {
    expect(new Set(out.map((r) => JSON.stringify(r.key))).size).toBe(out.length);
  });
  return out;
}
