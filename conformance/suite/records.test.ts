// REC-*: generic record access by ID (spec 1, 4.2, 7).
import { expect } from 'vitest';
import { conformance } from '../src/dsl.js';
import { enc, get } from './support/request.js';
import { expectProblem } from './support/problem.js';

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
      const body = res.json as any;
      expect(body).toBeTypeOf('object');
      expect(body.Record).toBeTypeOf('object');
      expect(body.Record).not.toBeNull();
      expect(Array.isArray(body.Record)).toBe(false);
      expect(body.Domain).toBe(r.domain);
      expect(Number.isInteger(body.Id)).toBe(true);
      expect(body.Id).toBe(r.id);
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
    const rec = (res.json as any).Record;
    expect(rec[r.keyField]).toBe(r.id);
    expect(rec[r.textField]).toEqual(r.textValue);
    expect(Number(rec[r.numberField])).toBe(Number(r.numberValue));

    // several records of one domain: each ID reads its own record
    const recs = await t.given('records', { count: 3 });
    const values: unknown[] = [];
    for (const id of recs.ids as number[]) {
      const one = await get(t, `/api/${enc(recs.domain)}/${id}`, { columns: recs.sortField });
      expect(one.status).toBe(200);
      expect((one.json as any).Id).toBe(id);
      values.push((one.json as any).Record[recs.sortField]);
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
    const listed = ((q.json as any).List as any[]).map((x) => JSON.stringify(x[recs.sortField])).sort();
    expect(listed).toEqual(values.map((v) => JSON.stringify(v)).sort());
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
