// REC-*: generic record access by ID (spec 1, 4.2, 7).
import { expect } from 'vitest';
import type { components } from '../../spec/generated/openapi.js';
import { judgeSingleRead } from '../src/judge/rec.js';
import { conformance } from '../src/suite-api/dsl.js';
import { expectFinding } from '../src/suite-api/findings.js';
import { isRefusal } from '../src/suite-api/meaning.js';
import { allInOrder, enc, get, listOf, needsReadById, readRecord } from './support/request.js';
import {
  EXTREME_NUMBERS,
  EXTREME_TEXTS,
  SAMPLE_NUMBERS,
  SAMPLE_TEXTS,
  expectNumber,
  expectStored,
  extremeRecords,
  sampleClasses,
  sampleRecords,
} from './support/data-classes.js';
import { expectProblem } from './support/problem.js';
import { expectStateRows } from './support/records-query.js';

type RecordEnvelope = components['schemas']['RecordEnvelope'];

const MISSING_ID = 987654321;

conformance(
  {
    id: 'records.get-by-id-envelope',
    title: 'GET /api/{domain}/{id} answers Record, Domain and Id',
    requirements: ['REC-001'],
  },
  async (t) => {
    const r = await t.given('a record with associations');
    for (const q of [{ columns: `${r.textField},${r.numberField}` }, {}]) {
      const res = await get(t, `/api/${enc(r.domain)}/${r.id}`, q);
      expect(res.status).toBe(200);
      const read = { operationId: 'getRecord', pathParams: { domain: r.domain, id: r.id }, status: 200 };
      expectFinding(judgeSingleRead({ ...read, body: res.json }), 'REC-001', `GET /api/${r.domain}/${r.id}`);
    }
  },
);

conformance(
  {
    id: 'records.get-by-id-returns-stored-values',
    title: 'the record read by ID is that record, with its stored values',
    requirements: ['REC-002'],
  },
  async (t) => {
    const r = await t.given('a record with associations');
    const res = await get(t, `/api/${enc(r.domain)}/${r.id}`, {
      columns: `${r.keyField},${r.textField},${r.numberField}`,
    });
    expect(res.status).toBe(200);
    const rec = (res.json as RecordEnvelope).Record;
    expect(rec[r.keyField]).toBe(r.id);
    expect(rec[r.textField]).toEqual(r.textValue);
    expect(Number(rec[r.numberField])).toBe(Number(r.numberValue));

    // several records of one domain: each ID reads its own record
    const recs = await t.given('records', { count: 3 });
    const values: unknown[] = [];
    for (const id of recs.ids) {
      const one = await get(t, `/api/${enc(recs.domain)}/${id}`, { columns: recs.sortField });
      expect(one.status).toBe(200);
      const env = one.json as RecordEnvelope;
      // the envelope's Id is REC-001's rule (judged by its test): a step here
      await t.needs('REC-001', `GET /api/${recs.domain}/${id} answers its Id`, async () => {
        expect(env.Id).toBe(id);
      });
      values.push(env.Record[recs.sortField]);
    }
    for (const v of values) expect(v).not.toBeNull();
    expect(new Set(values.map((v) => JSON.stringify(v))).size, 'distinct records have distinct sort values').toBe(3);
    // the same values are what the query reports for these records
    const q = await get(t, `/api/${enc(recs.domain)}/Query`, {
      [t.bindings.query.filter]: recs.filter,
      columns: recs.sortField,
      take: 10,
    });
    expect(q.status).toBe(200);
    const rows = await listOf(t, `/api/${enc(recs.domain)}/Query`, q);
    await expectStateRows(t, recs, rows);
    const listed = rows.map((x) => JSON.stringify(x[recs.sortField])).sort();
    expect(listed).toEqual(values.map((v) => JSON.stringify(v)).sort());
  },
);

conformance(
  {
    id: 'records.get-by-id-same-id-in-two-domains',
    title:
      'records of two domains with the same ID: the read of one by domain and ID answers that record, not the other',
    requirements: ['REC-002'],
  },
  async (t) => {
    // protocol 1.1.0 (twinDomain): a record of another domain with the parent's ID; an
    // implementation whose IDs cannot coincide answers 501 FixtureCannotExist (not-applicable)
    const p = await t.given('a link parent', { twinDomain: 'Incident' });
    const plain = await t.given('a link parent', { domain: p.domain });
    const twinDomain = p.twinDomain ?? t.notApplicable("provider state 'a link parent' gave no twinDomain");
    const field = p.textMatchField;
    // the record is read without columns (the other domain need not have this field): that such a
    // read holds the stored text field is COL-002's rule (spec 4.1 rule 1), shown on a record of its own
    // (the key only: which record a read by ID answers is this test's own rule, REC-002)
    await t.needs('COL-002', `without columns, a ${plain.domain} record holds ${plain.textMatchField}`, async () => {
      const res = await get(t, `/api/${enc(plain.domain)}/${plain.id}`);
      expect(res.status, `GET /api/${plain.domain}/${plain.id}`).toBe(200);
      expect(Object.keys((res.json as RecordEnvelope).Record ?? {})).toContain(plain.textMatchField);
    });
    // the other domain's record first, then this one: spec 4.2, GET /api/{domain}/{id} reads the
    // record `id` ("primary key of the record") of `domain` ("a domain name from the domain list"),
    // and spec 1 rule 2: "Records are read singly by numeric ID" (REC-002: that record, its values)
    const other = await get(t, `/api/${enc(twinDomain)}/${p.id}`);
    expect(other.status, `GET /api/${twinDomain}/${p.id}: the record of ${twinDomain} with that ID`).toBe(200);
    const res = await get(t, `/api/${enc(p.domain)}/${p.id}`);
    expect(res.status, `GET /api/${p.domain}/${p.id}`).toBe(200);
    expect(
      (res.json as RecordEnvelope).Record[field],
      `GET /api/${p.domain}/${p.id} after GET /api/${twinDomain}/${p.id}: the ${p.domain} record's ${field}`,
    ).toBe(p.textMatchKey);
  },
);

conformance(
  {
    id: 'records.missing-record-is-a-failure',
    title:
      'reading a record ID that does not exist (never issued, or deleted) fails: it is not a success carrying data',
    requirements: ['REC-004'],
    classes: [
      'REC-004:never-issued',
      'REC-004:deleted',
      'REC-004:integer-id.never-issued',
      'REC-004:integer-id.deleted',
    ],
  },
  async (t) => {
    // A record that existed: the referenced record of 'a record with a missing association' was deleted.
    const m = await t.given('a record with a missing association');
    const assoc = await t.given('a record with associations', { domain: m.domain });
    // The deleted ID is read from that record: a read by ID that answers another record (REC-002)
    // would hand over another record's association, one that exists, and this test would fail on it.
    await needsReadById(t, m.domain, assoc.keyField, m.id);
    const ref = await get(t, `/api/${enc(m.domain)}/${m.id}`, { columns: m.associationKeyField });
    expect(ref.status, `GET /api/${m.domain}/${m.id}`).toBe(200);
    const deletedId = (ref.json as RecordEnvelope).Record[m.associationKeyField];
    expect(Number.isInteger(deletedId), `${m.associationKeyField} holds the deleted record's ID`).toBe(true);
    const f = await t.given('a file', {
      kind: 'internal',
      linked: false,
      fileName: 'exists.txt',
      contentsBase64: Buffer.from('exists').toString('base64'),
    });
    const reads = [
      `/api/${enc(assoc.associatedDomain)}/${String(deletedId)}`,
      `/api/${enc(m.domain)}/${MISSING_ID}`,
      `/api/File/${MISSING_ID}`,
    ];
    for (const path of reads) {
      const res = await get(t, path);
      expect(isRefusal(res), `${path} must fail (answer: ${res.status} ${res.text.slice(0, 200)})`).toBe(true);
    }
    // controls: existing records of the same domains are served
    for (const path of [
      `/api/${enc(assoc.associatedDomain)}/${assoc.associatedId}`,
      `/api/${enc(m.domain)}/${m.id}`,
      `/api/File/${f.fileId}`,
    ]) {
      expect(isRefusal(await get(t, path)), `${path} is served`).toBe(false);
    }
  },
);

conformance(
  {
    id: 'records.reference-missing-record-404',
    title: 'the reference answers a missing record with 404 RecordNotFound',
    requirements: ['REC-003', 'GEN-003'],
    profile: 'implementation-defined',
  },
  async (t) => {
    const r = await t.given('a record with associations');
    expectProblem(await get(t, `/api/${enc(r.domain)}/${MISSING_ID}`), 404, 'RecordNotFound', 'getRecord');
    expectProblem(
      await get(t, `/api/${enc(r.domain)}/${MISSING_ID}/Files`),
      404,
      'RecordNotFound',
      'listAttachedFiles',
    );
    expectProblem(await get(t, `/api/File/${MISSING_ID}`), 404, 'RecordNotFound', 'getFile');
    // control: the existing record is found
    expect((await get(t, `/api/${enc(r.domain)}/${r.id}`)).status).toBe(200);
  },
);

conformance(
  {
    id: 'records.stored-values-of-every-class',
    title:
      'a record read by ID answers the stored value of every data class: 0 stays 0, fractions and signs stay, text is kept character for character',
    requirements: ['REC-002'],
    classes: sampleClasses(['REC-002']),
  },
  async (t) => {
    const recs = await sampleRecords(t);
    const columns = `${recs.numberField},${recs.textField}`;
    const read = await allInOrder(recs.ids.map((id) => readRecord(t, recs.domain, id, { columns })));
    for (const [i, id] of recs.ids.entries())
      expectStored(read[i]!, recs, { number: SAMPLE_NUMBERS[i]!, text: SAMPLE_TEXTS[i]! }, `${recs.domain} ${id}`);
    // a read after another read of the same record answers the same (no cross-talk between records)
    const again = await readRecord(t, recs.domain, recs.ids[1]!, { columns });
    expectNumber(again[recs.numberField], SAMPLE_NUMBERS[1]!, `${recs.domain} ${recs.ids[1]} read again`);
  },
);

conformance(
  {
    id: 'records.extreme-values-round-trip',
    title: 'a large number with a fraction and a long multi-byte text read back by ID as stored',
    requirements: ['REC-002'],
    classes: ['REC-002:number.large', 'REC-002:text.very-long'],
  },
  async (t) => {
    const recs = await extremeRecords(t);
    for (const [i, id] of recs.ids.entries()) {
      const rec = await readRecord(t, recs.domain, id, { columns: `${recs.numberField},${recs.textField}` });
      expectStored(rec, recs, { number: EXTREME_NUMBERS[i]!, text: EXTREME_TEXTS[i]! }, `${recs.domain} ${id}`);
    }
  },
);
