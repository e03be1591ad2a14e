// Provider states of the record areas: 'a record with associations', 'a record with a missing
// association', 'records'. Also the helpers the other state modules use.
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { timestamp } from '../deps.js';
import { type DomainDef, type FieldDef, CODE_LISTS, q } from '../dictionary.js';
import { findCode, insertRow } from '../db.js';
import { ApiError } from '../errors.js';
import { SelectBuilder } from '../columns/select-builder.js';
import { insertFile } from '../areas/files.js';
import type { StateContext, StateDef } from './registry.js';
import { own } from '../own.js';
import { type OperatorFields, operatorFixture } from './operator-filters.js';

/** A marker unique to this setup (letters and digits only), used in text values. */
export function marker(ctx: StateContext): string {
  const base = ctx.setupId.replace(/[^A-Za-z0-9]/g, '').slice(-16);
  return `${base || 'S'}x${randomBytes(4).toString('hex')}`;
}

export function domainParam(ctx: StateContext, raw: unknown, dflt: string): DomainDef {
  const name = raw === undefined || raw === null ? dflt : raw;
  if (typeof name !== 'string') throw new ApiError(400, 'MalformedRequest', "'domain' must be a domain name.");
  const def = ctx.deps.dict.get(name);
  if (!def) throw new ApiError(400, 'MalformedRequest', `Unknown domain '${name}'.`);
  return def;
}

/** Stored fields of a domain (not computed). */
export function storedFields(def: DomainDef): FieldDef[] {
  return def.fields.filter((f) => !f.computed);
}

/** Values every record of a domain needs to be well-formed (timestamps, File's non-null columns). */
function baseValues(deps: Deps, def: DomainDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of storedFields(def))
    if (f.type === 'timestamp' && f.name === 'EntryDate') out[f.name] = timestamp(deps.clock());
  return out;
}

/** Create a record with the given values (plus base values); tracked for teardown. Files get their
 * bytes row too. */
export function createRecord(ctx: StateContext, def: DomainDef, values: Record<string, unknown>): number {
  const { deps } = ctx;
  let id: number;
  if (def.name === 'File') {
    id = insertFile(deps, {
      fileName: String(values.FileName ?? `file-${marker(ctx)}.txt`),
      description: values.Description === undefined ? undefined : String(values.Description),
      contents: Buffer.from(String(values.FileName ?? 'x')),
    });
    const rest = Object.fromEntries(Object.entries(values).filter(([k]) => k !== 'FileName' && k !== 'Description'));
    if (Object.keys(rest).length) {
      const cols = Object.keys(rest);
      deps.db
        .prepare(`UPDATE "File" SET ${cols.map((c) => `${q(c)} = ?`).join(', ')} WHERE FileID = ?`)
        .run(...cols.map((c) => rest[c]), id);
    }
  } else {
    id = insertRow(deps.db, def, { ...baseValues(deps, def), ...values });
  }
  ctx.track(def.name, id);
  return id;
}

/**
 * Two records with one ID, in `def` and in `twin` (parents in different domains with equal IDs): the
 * ID is above every key of both tables, so it is free in both. Both tracked for teardown.
 */
export function createTwins(
  ctx: StateContext,
  def: DomainDef,
  twin: DomainDef,
  values: Record<string, unknown>,
  twinValues: Record<string, unknown>,
): number {
  if (ctx.options.singleIdSequence)
    throw new ApiError(
      501,
      'FixtureCannotExist',
      `Record IDs of every domain come from one sequence here: no ${twin.name} record can have the ID of a ${def.name} record.`,
    );
  if (def.name === twin.name || def.name === 'File' || twin.name === 'File')
    throw new ApiError(400, 'MalformedRequest', "'twinDomain' must be another domain than the parent's, not File.");
  const maxKey = (d: DomainDef) =>
    (ctx.deps.db.prepare(`SELECT coalesce(max(${q(d.key)}), 0) AS m FROM ${q(d.table)}`).get() as { m: number }).m;
  return ctx.deps.db.transaction(() => {
    const id = Math.max(maxKey(def), maxKey(twin)) + 1;
    createRecord(ctx, def, { ...values, [def.key]: id });
    createRecord(ctx, twin, { ...twinValues, [twin.key]: id });
    return id;
  })();
}

/** A sample value of a field's type. */
function sampleValue(f: FieldDef, mark: string, i = 0): unknown {
  switch (f.type) {
    case 'text':
      return `${f.name}-${mark}`;
    case 'number':
      return 1000 + i + 0.5;
    case 'integer':
      return 7 + i;
    case 'date':
      return '2024-03-01';
    case 'timestamp':
      return '2024-03-01T09:15:22.123';
    case 'boolean':
      return true;
    default:
      return null;
  }
}

/** The display string of a record (its domain's displayField, computed ones included). */
function displayOf(deps: Deps, def: DomainDef, id: number): string {
  if (!def.displayField) return String(id);
  const b = new SelectBuilder(deps, def);
  const r = b.resolve(def.displayField, 'select');
  if (r.kind !== 'sql') return String(id);
  const row = deps.db.prepare(`SELECT ${r.sql} AS v ${b.fromSql()} WHERE t.${q(def.key)} = ?`).get(id) as
    { v: unknown } | undefined;
  return String(row?.v ?? id);
}

/** Sample values for a target record (an association's referenced record). */
const LOCATION_SAMPLE = (mark: string) => ({
  Name: `Main Street Warehouse ${mark}`,
  Address1: '100 Main Street',
  City: 'Portland',
  StateCode: 'OR',
  ZipCode: '97201',
});

function createTarget(ctx: StateContext, target: DomainDef, mark: string): number {
  if (target.name === 'Location') return createRecord(ctx, target, LOCATION_SAMPLE(mark));
  const values: Record<string, unknown> = {};
  for (const f of storedFields(target)) if (f.type === 'text') values[f.name] = sampleValue(f, mark);
  return createRecord(ctx, target, values);
}

const aRecordWithAssociations: StateDef = {
  setup(params, ctx) {
    const { deps } = ctx;
    const def = domainParam(ctx, params.domain, 'Claim');
    const fields = storedFields(def);
    const assoc = fields.find((f) => f.type === 'association');
    const coded = fields.find((f) => f.type === 'coded');
    const texts = fields.filter((f) => f.type === 'text');
    if (!assoc || !coded || texts.length < 2) {
      throw new ApiError(
        400,
        'MalformedRequest',
        `Domain '${def.name}' has no association, coded field and two text fields; use Claim or Custom.Inspection.`,
      );
    }
    const mark = marker(ctx);
    const target = deps.dict.get(assoc.target!)!;
    const targetId = createTarget(ctx, target, mark);
    const codeList = own(CODE_LISTS, coded.target!)!;
    const [code, description] = codeList[codeList.length - 1]!;
    const codeId = findCode(deps.db, coded.target!, code)!;
    const textField = texts[0]!;
    const nullField = texts[texts.length - 1]!;
    const numberField = fields.find((f) => f.type === 'number');
    const textValue = `${def.name === 'Claim' ? 'CLM' : 'REC'}-${mark}`;
    const values: Record<string, unknown> = {
      [textField.name]: textValue,
      [assoc.name + 'ID']: targetId,
      [coded.name + 'ID']: codeId,
    };
    let numberName: string;
    let numberValue: number;
    if (numberField) {
      numberName = numberField.name;
      numberValue = 2500.5;
      values[numberName] = numberValue;
    } else {
      // No numeric field (e.g. Custom.Inspection): the association's stored reference is numeric.
      numberName = assoc.name + 'ID';
      numberValue = targetId;
    }
    const id = createRecord(ctx, def, values);
    const propField =
      target.name === 'Location'
        ? 'City'
        : (storedFields(target).find((f) => f.type === 'text' && f.name !== target.displayField)?.name ?? target.key);
    const propRow = deps.db
      .prepare(`SELECT ${q(propField)} AS v FROM ${q(target.table)} WHERE ${q(target.key)} = ?`)
      .get(targetId) as { v: unknown };
    return {
      domain: def.name,
      id,
      keyField: def.key,
      textField: textField.name,
      textValue,
      numberField: numberName,
      numberValue,
      nullField: nullField.name,
      associationField: assoc.name,
      associationKeyField: assoc.name + 'ID',
      associatedDomain: target.name,
      associatedId: targetId,
      associatedDisplay: displayOf(deps, target, targetId),
      associatedProperty: propField,
      associatedPropertyValue: propRow.v,
      codedField: coded.name,
      codedCode: code,
      codedDescription: description,
    };
  },
};

const aRecordWithAMissingAssociation: StateDef = {
  setup(params, ctx) {
    const { deps } = ctx;
    const def = domainParam(ctx, params.domain, 'Claim');
    const assoc = storedFields(def).find((f) => f.type === 'association');
    if (!assoc) throw new ApiError(400, 'MalformedRequest', `Domain '${def.name}' has no association field.`);
    const mark = marker(ctx);
    const target = deps.dict.get(assoc.target!)!;
    // Create the referenced record, point at it, delete it: the reference dangles (IDs are never reused).
    const targetId = insertRow(deps.db, target, target.name === 'Location' ? LOCATION_SAMPLE(mark) : {});
    const text = storedFields(def).find((f) => f.type === 'text');
    const id = createRecord(ctx, def, {
      ...(text ? { [text.name]: `MISSING-${mark}` } : {}),
      [assoc.name + 'ID']: targetId,
    });
    deps.db.prepare(`DELETE FROM ${q(target.table)} WHERE ${q(target.key)} = ?`).run(targetId);
    return { domain: def.name, id, associationField: assoc.name, associationKeyField: assoc.name + 'ID' };
  },
};

/** File columns that are never null (the File record schema types them as non-null). */
const NON_NULL_FILE_FIELDS = new Set([
  'FileName',
  'Description',
  'FileSize',
  'EntryDate',
  'EntryUserID',
  'SourceType',
  'UnlinkedAccessMode',
]);

/** Per-domain choice of the null-pattern fields where the generic choice would be odd. */
const NULL_PATTERN_FIELDS: Record<string, { sometimes: string; allNull: string }> = {
  File: { sometimes: 'DocumentStatusID', allNull: 'DownloadedDate' },
};

const records: StateDef = {
  setup(params, ctx) {
    const def = domainParam(ctx, params.domain, 'Claim');
    // An endpoint of protocol 1.0.0 made records of Claim only (the param may be refused: x-may-refuse).
    if (ctx.options.mode === '1.0.0' && def.name !== 'Claim')
      throw new ApiError(400, 'MalformedRequest', `This endpoint (protocol 1.0.0) makes records of Claim only.`);
    const count = params.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 150) {
      throw new ApiError(400, 'MalformedRequest', "'count' must be an integer from 1 to 150.");
    }
    const sortRanks = permutationParam(params.sortRanks, count);
    const sparseAt = params.sparseAt;
    if (
      sparseAt !== undefined &&
      (typeof sparseAt !== 'number' || !Number.isInteger(sparseAt) || sparseAt < 0 || sparseAt >= count)
    )
      throw new ApiError(400, 'MalformedRequest', "'sparseAt' must be a position from 0 to count-1.");
    const fields = storedFields(def).filter((f) => f.type !== 'association' && f.type !== 'coded' && !f.required);
    const sortField = storedFields(def).find((f) => f.type === 'text');
    if (!sortField)
      throw new ApiError(400, 'MalformedRequest', `Domain '${def.name}' has no text field to mark the records with.`);
    const candidates = fields.filter(
      (f) =>
        f !== sortField &&
        !(def.name === 'File' && NON_NULL_FILE_FIELDS.has(f.name)) &&
        !(f.type === 'timestamp' && f.name === 'EntryDate'),
    );
    const texts = candidates.filter((f) => f.type === 'text');
    const ordered = [...texts, ...candidates.filter((f) => f.type !== 'text')];
    // Reference columns of associations and coded fields can stay null too.
    const refColumns = storedFields(def)
      .filter((f) => f.type === 'association' || f.type === 'coded')
      .map((f) => ({ name: f.name + 'ID' }));
    if (ordered.length < 1 || ordered.length + refColumns.length < 2) {
      throw new ApiError(400, 'MalformedRequest', `Domain '${def.name}' has too few optional fields for this state.`);
    }
    const override = own(NULL_PATTERN_FIELDS, def.name);
    const sometimes = override ? ordered.find((f) => f.name === override.sometimes)! : ordered[0]!;
    const allNull: { name: string } = override
      ? { name: override.allNull }
      : texts.length >= 2
        ? texts[texts.length - 1]!
        : (ordered[1] ?? refColumns[0]!);
    // A third spare text field carries the groups of a two-column sort (Claim: Status).
    // Not on File, whose spare text (ExternalDirectURL) would make the files external.
    const spare =
      def.name === 'File' ? undefined : texts.find((f) => f.name !== sometimes.name && f.name !== allNull.name);
    // The stored values the suite asks for (protocol 1.2.0): texts in the spare text field (which
    // then carries no groups), numbers in a numeric field other than sometimesNullField.
    const texts12 = valuesParam(params.texts, count, 'texts', (v) => typeof v === 'string');
    const numbers12 = valuesParam(params.numbers, count, 'numbers', (v) => typeof v === 'number' && Number.isFinite(v));
    const textField = texts12 ? spare : undefined;
    if (texts12 && !textField)
      throw new ApiError(400, 'MalformedRequest', `Domain '${def.name}' has no spare text field for 'texts'.`);
    const numberField = numbers12
      ? candidates.find((f) => (f.type === 'number' || f.type === 'integer') && f.name !== sometimes.name)
      : undefined;
    if (numbers12 && !numberField)
      throw new ApiError(400, 'MalformedRequest', `Domain '${def.name}' has no spare numeric field for 'numbers'.`);
    if (numbers12 && numberField?.type === 'integer' && numbers12.some((v) => v !== null && !Number.isInteger(v)))
      throw new ApiError(
        400,
        'MalformedRequest',
        `'numbers' must be integers here (${numberField.name} is an integer field).`,
      );
    // The operator classes (protocol 1.3.0): their values in the spare text field (no groups then),
    // a spare numeric field, a stored timestamp and a stored boolean. Not with numbers or texts,
    // which would ask the same fields for other values; not on File, whose spare fields shape it.
    const operators = params.operatorFilters === true;
    if (operators && (texts12 || numbers12))
      throw new ApiError(
        400,
        'MalformedRequest',
        "'operatorFilters' cannot be asked together with 'numbers' or 'texts'.",
      );
    const opFields: OperatorFields =
      operators && def.name !== 'File'
        ? {
            number: candidates.find((f) => (f.type === 'number' || f.type === 'integer') && f.name !== sometimes.name),
            timestamp: storedFields(def).find((f) => f.type === 'timestamp'),
            text: spare,
            boolean: storedFields(def).find((f) => f.type === 'boolean'),
          }
        : {};
    const group = texts12 || opFields.text ? undefined : spare;
    const mark = marker(ctx);
    const opFixture = operatorFixture(opFields, count, `${sortField.name}:startswith:${mark}-`);
    // Adversarial order: the sort key of the i-th record is (i * 97 + 31) mod 151 (distinct for
    // i < 151), so sorted order is neither creation order nor its reverse (from 3 records on), and a
    // page cut in creation order and then sorted differs from the page of the sorted set.
    // With sortRanks (protocol 1.1.0) the suite chooses the order: the rank is the key. An endpoint
    // of protocol 1.0.0 numbered its records in creation order.
    const sortKeys = sortRanks
      ? sortRanks
      : ctx.options.mode === '1.0.0'
        ? Array.from({ length: count }, (_, i) => i)
        : Array.from({ length: count }, (_, i) => (i * 97 + 31) % 151);
    const rankOf = ranks(sortKeys);
    // The one value of sometimesNullField: where the suite asks (sparseAt), else on a record that is
    // neither first nor last, in creation order and in sort order alike (from 4 records on; 3
    // records: the middle one created). An endpoint of protocol 1.0.0 put it on the first record.
    const inner = sortKeys.findIndex((_, i) => i > 0 && i < count - 1 && rankOf[i]! > 0 && rankOf[i]! < count - 1);
    const valued =
      typeof sparseAt === 'number'
        ? sparseAt
        : ctx.options.mode === '1.0.0'
          ? 0
          : inner >= 0
            ? inner
            : count >= 3
              ? 1
              : 0;
    const ids: number[] = [];
    const sortValues: unknown[] = [];
    const extra =
      def.name === 'File'
        ? (i: number) => ({ FileName: `${mark}-${String(sortKeys[i]).padStart(4, '0')}.txt` })
        : () => ({});
    ctx.deps.db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const values: Record<string, unknown> = {
          [sortField.name]: `${mark}-${String(sortKeys[i]).padStart(4, '0')}`,
          ...extra(i),
        };
        if (group) values[group.name] = `${mark}-g${rankOf[i]! % 3}`;
        if (i === valued) values[sometimes.name] = sampleValue(sometimes, mark);
        if (textField) values[textField.name] = texts12![i];
        if (numberField) values[numberField.name] = numbers12![i];
        if (operators) Object.assign(values, opFixture.valuesAt(i));
        sortValues.push(values[sortField.name]);
        ids.push(createRecord(ctx, def, values));
      }
    })();
    // The LINQ filter's records: odd positions short of the last (state contract), named by their
    // sortField values, which are unique to this setup.
    const opFilters = operators ? opFixture.filters(ids) : {};
    const linqSubset = sortValues.filter((_, i) => i % 2 === 1 && i < count - 1).map(String);
    return {
      domain: def.name,
      ids,
      filter: `${sortField.name}:startswith:${mark}-`,
      ...(linqSubset.length ? { linqFilter: linqFilterFor(sortField.name, linqSubset) } : {}),
      sortField: sortField.name,
      ...(sortRanks ? { sortRanks } : {}),
      ...(typeof sparseAt === 'number' ? { sparseAt } : {}),
      ...(group ? { groupField: group.name } : {}),
      allNullField: allNull.name,
      sometimesNullField: sometimes.name,
      ...(numberField ? { numberField: numberField.name, numbers: storedValues(ctx, def, numberField.name, ids) } : {}),
      ...(textField
        ? {
            textField: textField.name,
            texts: storedValues(ctx, def, textField.name, ids),
            textFilters: texts12!.map((v) => textFilterFor(textField.name, v, sortField.name, mark)),
          }
        : {}),
      ...(Object.keys(opFilters).length ? { operatorFilters: opFilters } : {}),
    };
  },
};

/** The param `texts` or `numbers` (protocol 1.2.0): one value or null per record, or undefined. */
function valuesParam(
  raw: unknown,
  count: number,
  name: string,
  ok: (v: unknown) => boolean,
): Array<string | number | null> | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length !== count || !raw.every((v) => v === null || ok(v)))
    throw new ApiError(400, 'MalformedRequest', `'${name}' must hold one value or null per record (${count}).`);
  return raw as Array<string | number | null>;
}

/** The values of `field` of the records `ids`, as stored, in the order of `ids`. */
function storedValues(ctx: StateContext, def: DomainDef, field: string, ids: number[]): unknown[] {
  const rows = ctx.deps.db
    .prepare(
      `SELECT ${q(def.key)} AS k, ${q(field)} AS v FROM ${q(def.table)} WHERE ${q(def.key)} IN (${ids.map(() => '?').join(',')})`,
    )
    .all(...ids) as Array<{ k: number; v: unknown }>;
  const byKey = new Map(rows.map((r) => [r.k, r.v]));
  return ids.map((id) => byKey.get(id) ?? null);
}

/**
 * The filter (the reference's grammar, architecture 2.1) that selects this setup's records whose
 * `field` equals `value`: null where the grammar cannot say it (a condition is trimmed, `&&` joins).
 */
function textFilterFor(field: string, value: string | number | null, sortField: string, mark: string): string | null {
  if (typeof value !== 'string' || value.includes('&&') || value !== value.trimEnd()) return null;
  return `${field}:eq:${value} && ${sortField}:startswith:${mark}-`;
}

/**
 * A LINQ filter (the reference's subset, architecture 2.2) selecting the records whose `field` is one
 * of `values`: `F == "a" || F == "b" ...`. At most 74 values (count 150), under the parser's limit
 * of 100 conditions.
 */
function linqFilterFor(field: string, values: string[]): string {
  return values.map((v) => `${field} == ${JSON.stringify(v)}`).join(' || ');
}

/** The states of this file, registered by provider-states/index.ts. */
export const RECORD_STATES: Record<string, StateDef> = {
  'a record with associations': aRecordWithAssociations,
  'a record with a missing association': aRecordWithAMissingAssociation,
  records: records,
};

/** The param sortRanks: a permutation of 0 .. count-1, or undefined when not given. */
function permutationParam(raw: unknown, count: number): number[] | undefined {
  if (raw === undefined) return undefined;
  const ok =
    Array.isArray(raw) &&
    raw.length === count &&
    raw.every((r) => Number.isInteger(r)) &&
    [...raw].sort((a, b) => (a as number) - (b as number)).every((r, i) => r === i);
  if (!ok) throw new ApiError(400, 'MalformedRequest', "'sortRanks' must be a permutation of 0 .. count-1.");
  return raw as number[];
}

/** The rank (0 = smallest) of each of the distinct numbers `keys`. */
function ranks(keys: number[]): number[] {
  const sorted = [...keys].sort((a, b) => a - b);
  return keys.map((k) => sorted.indexOf(k));
}
