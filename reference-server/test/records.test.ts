// GET /api/{domain}/{id} (spec 4.2).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectDocumented, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('GET /api/{domain}/{id}', () => {
  it('REC-001 GEN-002 answers Record, Domain and Id', async () => {
    const rec = await h.state('a record with associations');
    const r = await h.get(`/api/Claim/${rec.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ Record: expect.any(Object), Domain: 'Claim', Id: rec.id });
    expectDocumented(r, 'get', '/api/{domain}/{id}');
  });

  it('REC-002 the record holds the stored values', async () => {
    const rec = await h.state('a record with associations');
    const r = await h.get(`/api/Claim/${rec.id}`);
    expect(r.json.Record).toMatchObject({
      [rec.keyField]: rec.id,
      [rec.textField]: rec.textValue,
      [rec.numberField]: rec.numberValue,
      [rec.nullField]: null,
      [rec.associationKeyField]: rec.associatedId,
    });
  });

  it('COL-013 COL-002 without columns: every natively stored column, reference columns included', async () => {
    const rec = await h.state('a record with associations');
    const keys = Object.keys((await h.get(`/api/Claim/${rec.id}`)).json.Record);
    expect(keys).toEqual([
      'ClaimID',
      'ClaimNumber',
      'ClaimantName',
      'LossDate',
      'ReserveAmount',
      'Status',
      'LocationID',
      'PolicyID',
      'Custom2CodeID',
      'Notes',
      'EntryDate',
      'IsLitigated',
    ]);
  });

  it('timestamps render as ISO 8601 with fractional seconds and no zone', async () => {
    const rec = await h.state('a record with associations');
    expect((await h.get(`/api/Claim/${rec.id}?columns=EntryDate`)).json.Record.EntryDate).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/,
    );
  });

  it('DOM-002 a Custom. domain is read on the generic route', async () => {
    const rec = await h.state('a record with associations', { domain: 'Custom.Inspection' });
    const r = await h.get(`/api/Custom.Inspection/${rec.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      Domain: 'Custom.Inspection',
      Id: rec.id,
      Record: { InspectionID: rec.id, [rec.textField]: rec.textValue },
    });
  });

  it('DOM-001 DOM-010 a wrongly cased domain is 404 UnknownDomain', async () => {
    const rec = await h.state('a record with associations');
    expectProblem(await h.get(`/api/claim/${rec.id}`), 404, 'UnknownDomain');
    expectProblem(await h.get(`/api/CLAIM/${rec.id}`), 404, 'UnknownDomain');
    expectProblem(await h.get(`/api/custom.inspection/1`), 404, 'UnknownDomain');
    expectProblem(await h.get(`/api/NoSuchThing/1`), 404, 'UnknownDomain');
  });

  it('REC-003 a missing record is 404 RecordNotFound', async () => {
    expectProblem(await h.get('/api/Claim/999999'), 404, 'RecordNotFound');
    expectProblem(await h.get('/api/Claim/0'), 404, 'RecordNotFound');
  });

  it('GEN-004 a non-integer id is 400 MalformedRequest', async () => {
    for (const id of ['abc', '1.5', '1e3', '%20'])
      expectProblem(await h.get(`/api/Claim/${id}`), 400, 'MalformedRequest');
  });

  it('GEN-004 an unaccepted boolean is 400', async () => {
    const rec = await h.state('a record with associations');
    expectProblem(await h.get(`/api/Claim/${rec.id}?resolveAssociationNames=maybe`), 400, 'MalformedRequest');
  });

  it('schedule and read-only domains are readable records (PolicyChange, DataEntryEvent)', async () => {
    expect((await h.get('/api/PolicyChange/Query')).status).toBe(200);
    expect((await h.get('/api/DataEntryEvent/Query')).status).toBe(200);
  });
});

describe('soft-deleted schedule records', () => {
  it('SCHED-019 a record with IsDeleted = 1 is not served by the generic routes', async () => {
    const def = h.deps.dict.get('ProposalLocation')!;
    const live = h.deps.db
      .prepare('INSERT INTO ProposalLocation (LocationName, IsDeleted) VALUES (?, 0)')
      .run('live').lastInsertRowid;
    const gone = h.deps.db
      .prepare('INSERT INTO ProposalLocation (LocationName, IsDeleted) VALUES (?, 1)')
      .run('gone').lastInsertRowid;
    expect(def.schedule).toBe(true);
    expect((await h.get(`/api/ProposalLocation/${live}`)).status).toBe(200);
    expectProblem(await h.get(`/api/ProposalLocation/${gone}`), 404, 'RecordNotFound');
    expect((await h.get('/api/ProposalLocation/Query?columns=LocationName')).json.List).toEqual([
      { LocationName: 'live' },
    ]);
  });
});

describe('compiled record reads (one per domain and column list, reused)', () => {
  it('a reused read answers the current values', async () => {
    const rec = await h.state('a record with associations');
    const path = `/api/Claim/${rec.id}?columns=ClaimNumber,Location.Name`;
    const first = (await h.get(path)).json.Record;
    h.deps.db.prepare(`UPDATE "Claim" SET "ClaimNumber" = 'CHANGED' WHERE "ClaimID" = ?`).run(rec.id);
    expect((await h.get(path)).json.Record).toEqual({ ...first, ClaimNumber: 'CHANGED' });
  });

  it('checks in the same order: column syntax and booleans (400), then the record (404), then the columns (400)', async () => {
    const rec = await h.state('a record with associations');
    for (let round = 0; round < 2; round++) {
      expectProblem(await h.get('/api/Claim/999999?columns=a b c'), 400, 'UnknownColumn');
      expectProblem(
        await h.get('/api/Claim/999999?columns=ClaimNumber&resolveAssociationNames=maybe'),
        400,
        'MalformedRequest',
      );
      expectProblem(await h.get('/api/Claim/999999?columns=NoSuchColumn'), 404, 'RecordNotFound');
      expectProblem(await h.get(`/api/Claim/${rec.id}?columns=NoSuchColumn`), 400, 'UnknownColumn');
      expectProblem(await h.get('/api/Claim/999999?columns=ClaimNumber'), 404, 'RecordNotFound');
      expect((await h.get(`/api/Claim/${rec.id}?columns=ClaimNumber`)).status).toBe(200);
    }
  });

  it('a record soft-deleted after its read was compiled is 404', async () => {
    const id = h.deps.db
      .prepare('INSERT INTO ProposalLocation (LocationName, IsDeleted) VALUES (?, 0)')
      .run('soon gone').lastInsertRowid;
    expect((await h.get(`/api/ProposalLocation/${id}?columns=LocationName`)).json.Record).toEqual({
      LocationName: 'soon gone',
    });
    h.deps.db.prepare('UPDATE ProposalLocation SET IsDeleted = 1 WHERE ProposalLocationID = ?').run(id);
    expectProblem(await h.get(`/api/ProposalLocation/${id}?columns=LocationName`), 404, 'RecordNotFound');
  });

  it('DownloadURL follows the setting and the user at each request, not when the read was compiled', async () => {
    const f = await h.state('a file', { kind: 'internal', linked: true, fileName: 'a.txt', contentsBase64: 'eA==' });
    const path = `/api/File/${f.fileId}?columns=FileID,DownloadURL`;
    expect((await h.get(path)).json.Record.DownloadURL).toMatch(/^Download\.aspx\?/);
    const restricted = h.userToken({ File: ['View', 'RestrictDownload'] });
    expect((await h.get(path, restricted)).json.Record.DownloadURL).toBe('');
    await h.state('a setting', { name: 'Service.EnableEnhancedSessionIDSecurity', value: false });
    const off = await h.get(path);
    expect(off.status).toBe(500);
    expect(off.json).toBe('Object reference not set to an instance of an object.');
    expectProblem(await h.get('/api/File/999999?columns=FileID,DownloadURL'), 404, 'RecordNotFound');
    await h.state('a setting', { name: 'Service.EnableEnhancedSessionIDSecurity', value: true });
    expect((await h.get(path)).json.Record.DownloadURL).toMatch(/^Download\.aspx\?/);
  });
});
