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
    expect(keys).toEqual(['ClaimID', 'ClaimNumber', 'ClaimantName', 'LossDate', 'ReserveAmount', 'Status', 'LocationID', 'PolicyID', 'Custom2CodeID', 'Notes', 'EntryDate']);
  });

  it('timestamps render as ISO 8601 with fractional seconds and no zone', async () => {
    const rec = await h.state('a record with associations');
    expect((await h.get(`/api/Claim/${rec.id}?columns=EntryDate`)).json.Record.EntryDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  });

  it('DOM-002 a Custom. domain is read on the generic route', async () => {
    const rec = await h.state('a record with associations', { domain: 'Custom.Inspection' });
    const r = await h.get(`/api/Custom.Inspection/${rec.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ Domain: 'Custom.Inspection', Id: rec.id, Record: { InspectionID: rec.id, [rec.textField]: rec.textValue } });
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
    const live = h.deps.db.prepare('INSERT INTO ProposalLocation (LocationName, IsDeleted) VALUES (?, 0)').run('live').lastInsertRowid;
    const gone = h.deps.db.prepare('INSERT INTO ProposalLocation (LocationName, IsDeleted) VALUES (?, 1)').run('gone').lastInsertRowid;
    expect(def.schedule).toBe(true);
    expect((await h.get(`/api/ProposalLocation/${live}`)).status).toBe(200);
    expectProblem(await h.get(`/api/ProposalLocation/${gone}`), 404, 'RecordNotFound');
    expect((await h.get('/api/ProposalLocation/Query?columns=LocationName')).json.List).toEqual([{ LocationName: 'live' }]);
  });
});
