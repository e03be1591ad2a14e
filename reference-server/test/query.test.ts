// GET /api/{domain}/Query: paging, sort, filter, LINQ, empty-column suppression, total count.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enc, expectDocumented, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

async function records(count: number, domain = 'Claim') {
  const s = await h.state('records', { count, domain });
  const q = (extra: string) => h.get(`/api/${domain}/Query?filter=${enc(s.filter)}${extra}`);
  return { s, q };
}
const ids = (r: { json: any }, key = 'ClaimID') => r.json.List.map((x: any) => x[key]);

/** The IDs of a 'records' state in increasing sortField order (its order is unlike creation order). */
async function sortedIds(s: Record<string, any>): Promise<number[]> {
  const r = await h.get(`/api/Claim/Query?filter=${enc(s.filter)}&columns=ClaimID,${s.sortField}`);
  const rows = r.json.List as Array<Record<string, any>>;
  return [...rows].sort((a, b) => (a[s.sortField] < b[s.sortField] ? -1 : 1)).map((x) => x.ClaimID);
}

describe('envelope and defaults', () => {
  it('QRY-001 GEN-002 answers {List: [...]} with the requested columns', async () => {
    const { s, q } = await records(3);
    const r = await q(`&columns=ClaimID,${s.sortField}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['List']);
    expect(r.json.List).toHaveLength(3);
    for (const row of r.json.List) expect(Object.keys(row)).toEqual(['ClaimID', s.sortField]);
    expectDocumented(r, 'get', '/api/{domain}/Query');
  });

  it('QRY-002 without columns every column is returned', async () => {
    const { q } = await records(2);
    const r = await q('');
    expect(Object.keys(r.json.List[0])).toContain('ClaimNumber');
    expect(Object.keys(r.json.List[0])).toContain('LocationID');
  });

  it('QRY-003 take defaults to 30', async () => {
    const { q } = await records(35);
    expect((await q('&columns=ClaimID')).json.List).toHaveLength(30);
  });

  it('QRY-004 QRY-022 take above 100 is clamped to 100', async () => {
    const { q } = await records(120);
    expect((await q('&columns=ClaimID&take=101')).json.List).toHaveLength(100);
    expect((await q('&columns=ClaimID&take=100000')).json.List).toHaveLength(100);
  });

  it('QRY-005 take=n returns n records', async () => {
    const { q } = await records(10);
    expect((await q('&columns=ClaimID&take=7')).json.List).toHaveLength(7);
    expect((await q('&columns=ClaimID&take=1')).json.List).toHaveLength(1);
  });

  it('QRY-022 take below 1 or not an integer is 400', async () => {
    const { q } = await records(1);
    expectProblem(await q('&take=0'), 400, 'MalformedRequest');
    expectProblem(await q('&take=-5'), 400, 'MalformedRequest');
    expectProblem(await q('&take=ten'), 400, 'MalformedRequest');
  });

  it('QRY-006 QRY-007 skip pages join without gap or overlap; default start is the first record', async () => {
    const { s, q } = await records(25);
    const first = ids(await q('&columns=ClaimID&take=10'));
    const second = ids(await q('&columns=ClaimID&take=10&skip=10'));
    const third = ids(await q('&columns=ClaimID&take=10&skip=20'));
    expect([...first, ...second, ...third]).toEqual(s.ids);
    expect(ids(await q('&columns=ClaimID&take=1&skip=0'))).toEqual([s.ids[0]]);
    expectProblem(await q('&skip=-1'), 400, 'MalformedRequest');
  });

  it('QRY-008 sort <column> desc and <column> asc', async () => {
    const { s, q } = await records(5);
    const sorted = await sortedIds(s);
    expect(sorted).not.toEqual(s.ids);
    expect(ids(await q(`&columns=ClaimID&sort=${enc(s.sortField + ' desc')}`))).toEqual([...sorted].reverse());
    expect(ids(await q(`&columns=ClaimID&sort=${enc(s.sortField)}`))).toEqual(sorted);
    expect(ids(await q(`&columns=ClaimID&sort=${enc(s.sortField + ' asc')}`))).toEqual(sorted);
    expect(ids(await q(`&columns=ClaimID&sort=${enc('ClaimID DESC')}`))).toEqual([...s.ids].reverse());
  });

  it('QRY-008 sort on an unknown column is 400 UnknownColumn; a bad direction is 400', async () => {
    const { q } = await records(1);
    expectProblem(await q(`&sort=${enc('Nope desc')}`), 400, 'UnknownColumn');
    expectProblem(await q(`&sort=${enc('ClaimID sideways')}`), 400, 'MalformedRequest');
  });

  it('QRY-008 sort by a dotted association property', async () => {
    const a = await h.state('a record with associations');
    const r = await h.get(
      `/api/Claim/Query?columns=ClaimID&sort=${enc('Location.Name desc')}&filter=${enc(`ClaimID:eq:${a.id}`)}`,
    );
    expect(ids(r)).toEqual([a.id]);
  });
});

describe('empty columns and total count', () => {
  it('QRY-011 QRY-012 excludeEmptyColumns drops all-null columns and keeps partly-null ones', async () => {
    const { s, q } = await records(4);
    const r = await q(`&columns=ClaimID,${s.allNullField},${s.sometimesNullField}&excludeEmptyColumns=true`);
    for (const row of r.json.List) {
      expect(row).not.toHaveProperty(s.allNullField);
      expect(row).toHaveProperty(s.sometimesNullField);
    }
    // the one value sits on a middle record
    const filled = r.json.List.map((row: any) => row[s.sometimesNullField] !== null);
    expect(filled).toEqual([false, false, true, false]);
  });

  it('QRY-013 suppression is off by default', async () => {
    const { s, q } = await records(2);
    const r = await q(`&columns=ClaimID,${s.allNullField}`);
    for (const row of r.json.List) expect(row[s.allNullField]).toBeNull();
  });

  it('QRY-014 QRY-019 GEN-002 includeTotalCount adds TotalCount of all matches beside List', async () => {
    const { q } = await records(12);
    const r = await q('&columns=ClaimID&take=5&includeTotalCount=true');
    expect(r.json.List).toHaveLength(5);
    expect(r.json.TotalCount).toBe(12);
    expectDocumented(r, 'get', '/api/{domain}/Query');
  });

  it('QRY-015 no TotalCount by default', async () => {
    const { q } = await records(2);
    expect((await q('&columns=ClaimID')).json).not.toHaveProperty('TotalCount');
    expect((await q('&columns=ClaimID&includeTotalCount=0')).json).not.toHaveProperty('TotalCount');
  });

  it('QRY-018 booleans accept true/false, True/False, Yes/No, Y/N, 1/0 and nothing else', async () => {
    const { q } = await records(1);
    for (const v of ['true', 'True', 'Yes', 'Y', '1'])
      expect((await q(`&includeTotalCount=${v}`)).json.TotalCount).toBe(1);
    for (const v of ['false', 'False', 'No', 'N', '0'])
      expect((await q(`&includeTotalCount=${v}`)).json.TotalCount).toBeUndefined();
    expectProblem(await q('&includeTotalCount=maybe'), 400, 'MalformedRequest');
    expectProblem(await q('&excludeEmptyColumns=2'), 400, 'MalformedRequest');
  });
});

describe('QRY-020 filter grammar', () => {
  it("'records' returns a filter that selects exactly its records", async () => {
    await records(3);
    const { s, q } = await records(4);
    expect(ids(await q('&columns=ClaimID'))).toEqual(s.ids);
  });

  it('operators eq ne lt le gt ge contains startswith isnull notnull', async () => {
    const { s } = await records(5);
    const base = (f: string) => h.get(`/api/Claim/Query?columns=ClaimID&filter=${enc(s.filter + '&&' + f)}`);
    const [a, b, c, d, e] = s.ids;
    expect(ids(await base(`ClaimID:eq:${c}`))).toEqual([c]);
    expect(ids(await base(`ClaimID:ne:${c}`))).toEqual([a, b, d, e]);
    expect(ids(await base(`ClaimID:lt:${c}`))).toEqual([a, b]);
    expect(ids(await base(`ClaimID:le:${c}`))).toEqual([a, b, c]);
    expect(ids(await base(`ClaimID:gt:${c}`))).toEqual([d, e]);
    expect(ids(await base(`ClaimID:ge:${c}`))).toEqual([c, d, e]);
    expect(ids(await base(`${s.sortField}:contains:-0020`))).toEqual([d]);
    expect(ids(await base(`${s.sometimesNullField}:notnull:`))).toEqual([c]);
    expect(ids(await base(`${s.sometimesNullField}:isnull:`))).toEqual([a, b, d, e]);
  });

  it('values are bound, not spliced', async () => {
    const { s } = await records(2);
    const r = await h.get(`/api/Claim/Query?columns=ClaimID&filter=${enc(`${s.sortField}:eq:x' OR '1'='1`)}`);
    expect(r.status).toBe(200);
    expect(r.json.List).toEqual([]);
    const like = await h.get(`/api/Claim/Query?columns=ClaimID&filter=${enc(`${s.sortField}:contains:%`)}`);
    expect(like.json.List).toEqual([]);
  });

  it('dotted fields reach associations and code lists', async () => {
    const a = await h.state('a record with associations');
    const f = `${a.associationField}.${a.associatedProperty}:eq:${a.associatedPropertyValue}&&${a.codedField}.Code:eq:${a.codedCode}`;
    expect(ids(await h.get(`/api/Claim/Query?columns=ClaimID&filter=${enc(f)}`))).toEqual([a.id]);
  });

  it('an unknown field, op or malformed condition is 400 InvalidFilter', async () => {
    for (const f of [
      'Nope:eq:1',
      'ClaimID:like:1',
      'ClaimID',
      'ClaimID:eq',
      'ClaimID:eq:1&&',
      'ClaimID:gt:abc',
      'ClaimID:isnull:5',
      'Location:eq:1',
      'Location.Nope:eq:1',
    ]) {
      expectProblem(await h.get(`/api/Claim/Query?filter=${enc(f)}`), 400, 'InvalidFilter');
    }
  });
});

describe('QRY-021 LINQ subset', () => {
  it("'records' returns a LINQ filter that alone selects its odd positions short of the last", async () => {
    await records(3);
    for (const count of [3, 8, 9, 150]) {
      const { s } = await records(count);
      const r = await h.get(`/api/Claim/Query?columns=ClaimID&take=100&linqFilter=${enc(s.linqFilter)}`);
      expect(r.status, r.text).toBe(200);
      const want = s.ids.filter((_: number, i: number) => i % 2 === 1 && i < count - 1).slice(0, 100);
      expect(
        [...ids(r)].sort((a, b) => a - b),
        `count ${count}`,
      ).toEqual(want);
    }
    expect((await records(2)).s.linqFilter, 'no record fits with two').toBeUndefined();
    const { s: f } = await records(7, 'File');
    const r = await h.get(`/api/File/Query?columns=FileID&sort=FileID&linqFilter=${enc(f.linqFilter)}`);
    expect(ids(r, 'FileID'), 'File').toEqual([f.ids[1], f.ids[3], f.ids[5]]);
  });

  it('comparisons, Contains, StartsWith, &&, || and parentheses', async () => {
    const { s } = await records(5);
    const mark = s.filter.split(':').slice(2).join(':'); // the marker prefix, ending in '-'
    const l = (expr: string) =>
      h.get(`/api/Claim/Query?columns=ClaimID&linqFilter=${enc(`${s.sortField}.StartsWith("${mark}") && (${expr})`)}`);
    const [a, b, c, d, e] = s.ids;
    expect(ids(await l(`ClaimID == ${c}`))).toEqual([c]);
    expect(ids(await l(`ClaimID != ${c}`))).toEqual([a, b, d, e]);
    expect(ids(await l(`ClaimID < ${b} || ClaimID >= ${e}`))).toEqual([a, e]);
    expect(ids(await l(`ClaimID <= ${b} && ClaimID > ${a}`))).toEqual([b]);
    expect(ids(await l(`${s.sortField}.Contains("-0117")`))).toEqual([e]);
    expect(ids(await l(`${s.sometimesNullField} != null`))).toEqual([c]);
    expect(ids(await l(`${s.sometimesNullField} == null && (ClaimID == ${b} || ClaimID == ${c})`))).toEqual([b]);
    expect(ids(await l(`${s.sortField} == "${mark}0128"`))).toEqual([b]);
  });

  it('anything else is 400 InvalidFilter', async () => {
    for (const f of [
      'ClaimID = 5',
      'ClaimID == ',
      'x => x.ClaimID == 1',
      '!(ClaimID == 1)',
      'ClaimID.EndsWith("x")',
      'ClaimNumber.Contains(5)',
      '(ClaimID == 1',
      'ClaimID == 1)',
      'Nope == 1',
      'ClaimID > null',
      '"a" == ClaimNumber',
      'ClaimNumber == "unterminated',
      'ClaimID == 1; DROP TABLE Claim',
    ]) {
      expectProblem(await h.get(`/api/Claim/Query?linqFilter=${enc(f)}`), 400, 'InvalidFilter');
    }
    expect(h.count('Claim')).toBe(0);
  });

  it('filter and linqFilter combine with AND', async () => {
    const { s } = await records(3);
    const r = await h.get(
      `/api/Claim/Query?columns=ClaimID&filter=${enc(s.filter)}&linqFilter=${enc(`ClaimID == ${s.ids[1]}`)}`,
    );
    expect(ids(r)).toEqual([s.ids[1]]);
  });
});

describe('records on other domains', () => {
  it("'records' works on Custom.Inspection and File", async () => {
    const ins = await records(3, 'Custom.Inspection');
    expect(ids(await ins.q('&columns=InspectionID'), 'InspectionID')).toEqual(ins.s.ids);
    const files = await records(3, 'File');
    const r = await files.q(`&columns=FileID,${files.s.allNullField},${files.s.sometimesNullField}`);
    expect(ids(r, 'FileID')).toEqual(files.s.ids);
    expectDocumented(r, 'get', '/api/File/Query');
  });
});
