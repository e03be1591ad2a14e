// The column language (spec 4.1) on records, queries, files and links.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enc, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
let rec: Record<string, any>;
beforeEach(async () => {
  h = harness();
  rec = await h.state('a record with associations');
});
afterEach(() => h.close());

const one = (id: number, cols: string, extra = '') => h.get(`/api/Claim/${id}?columns=${enc(cols)}${extra}`);
const query = (cols: string, extra = '') =>
  h.get(`/api/Claim/Query?columns=${enc(cols)}&filter=${enc(`ClaimID:eq:${rec.id}`)}${extra}`);

describe('column lists', () => {
  it('COL-001 the record holds exactly the requested columns', async () => {
    const r = await one(rec.id, `${rec.textField}, ${rec.numberField}`);
    expect(r.json.Record).toEqual({ [rec.textField]: rec.textValue, [rec.numberField]: rec.numberValue });
  });

  it('COL-001 on queries too', async () => {
    const r = await query(`ClaimID,${rec.textField}`);
    expect(r.json.List).toEqual([{ ClaimID: rec.id, [rec.textField]: rec.textValue }]);
  });

  it('COL-003 <field> as <Alias> renames the key', async () => {
    const r = await one(rec.id, `${rec.textField} as Number, ClaimID AS Key`);
    expect(r.json.Record).toEqual({ Number: rec.textValue, Key: rec.id });
    const q = await query(`${rec.textField} as Number`);
    expect(q.json.List).toEqual([{ Number: rec.textValue }]);
  });

  it('COL-012 an unknown column is 400 UnknownColumn', async () => {
    expectProblem(await one(rec.id, 'NoSuchColumn'), 400, 'UnknownColumn');
    expectProblem(await query('ClaimID,NoSuchColumn'), 400, 'UnknownColumn');
    expectProblem(await one(rec.id, 'Location.NoSuchField'), 400, 'UnknownColumn');
    expectProblem(await one(rec.id, 'Custom2Code.Nope'), 400, 'UnknownColumn');
    expectProblem(await one(rec.id, 'claimnumber'), 400, 'UnknownColumn'); // case-sensitive
    expectProblem(await one(rec.id, 'ClaimID; DROP TABLE Claim'), 400, 'UnknownColumn');
    expect(h.count('Claim')).toBe(1);
  });
});

describe('associations and coded fields', () => {
  it('COL-004 a dotted name reads a property of the referenced record', async () => {
    const r = await one(rec.id, `${rec.associationField}.${rec.associatedProperty}, ${rec.associationField}.Name`);
    expect(r.json.Record).toEqual({
      [`${rec.associationField}.${rec.associatedProperty}`]: rec.associatedPropertyValue,
      [`${rec.associationField}.Name`]: rec.associatedDisplay,
    });
  });

  it('COL-005 .Code and .Description read the stored code', async () => {
    const r = await one(rec.id, `${rec.codedField}.Code,${rec.codedField}.Description`);
    expect(r.json.Record).toEqual({
      [`${rec.codedField}.Code`]: rec.codedCode,
      [`${rec.codedField}.Description`]: rec.codedDescription,
    });
    const q = await query(`${rec.codedField}.Description as Category`);
    expect(q.json.List).toEqual([{ Category: rec.codedDescription }]);
  });

  it('COL-006 a bare association is null while its stored reference column holds the value', async () => {
    const r = await one(rec.id, `${rec.associationField},${rec.associationKeyField}`);
    expect(r.json.Record).toEqual({ [rec.associationField]: null, [rec.associationKeyField]: rec.associatedId });
  });

  it('COL-007 a bare coded field is null even though a code is stored', async () => {
    const r = await one(rec.id, `${rec.codedField}`, '&resolveAssociationNames=true');
    expect(r.json.Record).toEqual({ [rec.codedField]: null });
  });

  it('COL-008 resolveAssociationNames=true returns the display string', async () => {
    const r = await one(rec.id, `${rec.associationField}`, '&resolveAssociationNames=true');
    expect(r.json.Record[rec.associationField]).toBe(rec.associatedDisplay);
    const q = await query(`${rec.associationField} as Loc`, '&resolveAssociationNames=Y');
    expect(q.json.List).toEqual([{ Loc: rec.associatedDisplay }]);
  });

  it('COL-008 on a custom domain too', async () => {
    const ins = await h.state('a record with associations', { domain: 'Custom.Inspection' });
    const r = await h.get(
      `/api/Custom.Inspection/${ins.id}?columns=${ins.associationField},${ins.codedField}.Code&resolveAssociationNames=True`,
    );
    expect(r.json.Record).toEqual({
      [ins.associationField]: ins.associatedDisplay,
      [`${ins.codedField}.Code`]: ins.codedCode,
    });
  });

  it('COL-009 a referenced record that is gone resolves to null, not an error', async () => {
    const m = await h.state('a record with a missing association');
    const r = await h.get(
      `/api/Claim/${m.id}?columns=${m.associationField},${m.associationKeyField},${m.associationField}.Name&resolveAssociationNames=true`,
    );
    expect(r.status).toBe(200);
    expect(r.json.Record[m.associationField]).toBeNull();
    expect(r.json.Record[`${m.associationField}.Name`]).toBeNull();
    expect(r.json.Record[m.associationKeyField]).toEqual(expect.any(Number));
  });

  it('COL-010 resolveAssociationNames defaults to false; false returns null', async () => {
    expect((await one(rec.id, rec.associationField)).json.Record[rec.associationField]).toBeNull();
    expect(
      (await one(rec.id, rec.associationField, '&resolveAssociationNames=false')).json.Record[rec.associationField],
    ).toBeNull();
    expect(
      (await one(rec.id, rec.associationField, '&resolveAssociationNames=No')).json.Record[rec.associationField],
    ).toBeNull();
  });
});

describe('COL-011 the same language on files and links', () => {
  it('on file reads, file queries, attached files and link queries', async () => {
    const f = await h.state('a file', { kind: 'internal', linked: true, fileName: 'a.pdf', contentsBase64: 'YQ==' });
    expect((await h.get(`/api/File/${f.fileId}?columns=${enc('FileName as Name, MimeType')}`)).json.Record).toEqual({
      Name: 'a.pdf',
      MimeType: '.pdf',
    });
    expect((await h.get(`/api/File/Query?columns=${enc('FileID as Id')}`)).json.List).toEqual([{ Id: f.fileId }]);
    expect((await h.get(`/api/Claim/${f.parentId}/Files?columns=${enc('FileID as Id')}`)).json.List).toEqual([
      { Id: f.fileId },
    ]);
    expect((await h.get(`/api/Link/Query?parentDomain=Claim&columns=${enc('ChildID as FileId')}`)).json.List).toEqual([
      { FileId: f.fileId },
    ]);
    expectProblem(await h.get(`/api/Link/Query?parentDomain=Claim&columns=Nope`), 400, 'UnknownColumn');
    expectProblem(await h.get(`/api/File/${f.fileId}?columns=Nope`), 400, 'UnknownColumn');
  });
});
