// Schedules of a proposal: UpsertMulti, DELETE, Reinstate (spec 2.5, 3, 4.5, 6, 7).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type H } from './support/proposal-harness.js';
import { expectDocumented, expectProblem } from './app-core.harness.js';

const P = (id: number | string) => `/api/Quotes/Proposals/${id}`;
/** An UpsertMulti call; arrays the test leaves out are sent empty (the reference requires all three). */
const upsert = (h: H, id: number | string, body: unknown, q = '', domain = 'ProposalLocation', token?: string) =>
  h.call('POST', `${P(id)}/Schedules/${domain}/UpsertMulti${q}`, { body: withArrays(body), token });
const withArrays = (body: unknown) =>
  typeof body === 'object' && body !== null && !Array.isArray(body)
    ? { Inserts: [], Updates: [], Deletes: [], ...body }
    : body;
const del = (h: H, id: number | string, sid: number | string, domain = 'ProposalLocation', token?: string) =>
  h.call('DELETE', `${P(id)}/Schedules/${domain}/${sid}`, { token });
const reinstate = (h: H, id: number | string, sid: number | string, domain = 'ProposalLocation') =>
  h.call('POST', `${P(id)}/Schedules/${domain}/${sid}/Reinstate`);

function locations(h: H, proposalId: number, includeDeleted = false) {
  return h.deps.db
    .prepare(
      `SELECT * FROM "ProposalLocation" WHERE ProposalID = ? ${includeDeleted ? '' : 'AND IsDeleted = 0'} ORDER BY ProposalLocationID`,
    )
    .all(proposalId) as Array<Record<string, any>>;
}
function row(h: H, table: string, key: string, id: number) {
  return h.deps.db.prepare(`SELECT * FROM "${table}" WHERE "${key}" = ?`).get(id) as Record<string, any> | undefined;
}
/** Every table's full contents, for byte-for-byte comparisons. */
function dump(h: H): string {
  const tables = h.deps.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{
    name: string;
  }>;
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t.name] = h.deps.db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all();
  return JSON.stringify(out);
}
function expectResultShape(r: any, order: number | null) {
  expect(Object.keys(r).sort()).toEqual(['IsSuccessful', 'Message', 'OrderNumber', 'RecordID', 'Warnings']);
  expect(typeof r.IsSuccessful).toBe('boolean');
  expect(Number.isInteger(r.RecordID)).toBe(true);
  expect(r.OrderNumber).toBe(order);
  expect(typeof r.Message).toBe('string');
  expect(r.Message.length).toBeGreaterThan(0);
  expect(r.Warnings).toBeNull();
}

let h: H;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.created.close());

describe('UpsertMulti', () => {
  it('SCHED-001 SCHED-003 SCHED-005 SCHED-007 SCHED-008 SCHED-009: inserts, updates and deletes in one call', async () => {
    const p = await h.proposal({ locations: 3 });
    const [a, b, c] = p.locationIds as number[];
    const res = await upsert(h, p.proposalId, {
      Inserts: [
        { Fields: { LocationName: 'New HQ', Address1: '1 Way', City: 'Austin', StateCode: 'TX', ZipCode: '78701' } },
        { Fields: { LocationName: 'Depot' } },
      ],
      Updates: [{ ID: a, Fields: { City: 'Madison' } }],
      Deletes: [{ ID: b }, { ID: c }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.json).sort()).toEqual(['Deletes', 'Inserts', 'Updates']);
    expect(res.json.Inserts).toHaveLength(2);
    expect(res.json.Updates).toHaveLength(1);
    expect(res.json.Deletes).toHaveLength(2);
    res.json.Inserts.forEach((r: any, i: number) => expectResultShape(r, i));
    res.json.Updates.forEach((r: any, i: number) => expectResultShape(r, i));
    res.json.Deletes.forEach((r: any, i: number) => expectResultShape(r, i));
    const [i0, i1] = res.json.Inserts;
    expect(i0.IsSuccessful).toBe(true);
    expect(i0.RecordID).toBeGreaterThan(0);
    expect(i0.Message).toBe(`Inserted schedule with id ${i0.RecordID} successfully.`);
    expect(i1.IsSuccessful).toBe(true);
    expect(res.json.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: a });
    expect(res.json.Updates[0].Message).toMatch(/updated/i);
    expect(res.json.Deletes.map((r: any) => r.RecordID)).toEqual([b, c]);
    const stored = row(h, 'ProposalLocation', 'ProposalLocationID', i0.RecordID)!;
    expect(stored).toMatchObject({
      ProposalID: p.proposalId,
      LocationName: 'New HQ',
      Address1: '1 Way',
      City: 'Austin',
      StateCode: 'TX',
      ZipCode: '78701',
      IsDeleted: 0,
    });
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', a)!.City).toBe('Madison');
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', b)).toBeUndefined();
    // SCHED-007: readable through the generic record route too
    const got = await h.call('GET', `/api/ProposalLocation/${i0.RecordID}`);
    expect(got.status).toBe(200);
    expect(got.json.Record).toMatchObject({ LocationName: 'New HQ', City: 'Austin', ZipCode: '78701' });
  });

  it('SCHED-008: any array may be empty', async () => {
    const p = await h.proposal();
    const empty = await upsert(h, p.proposalId, { Inserts: [], Updates: [], Deletes: [] });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ Inserts: [], Updates: [], Deletes: [] });
    const only = await upsert(h, p.proposalId, {
      Inserts: [{ Fields: { LocationName: 'X' } }],
      Updates: [],
      Deletes: [],
    });
    expect(only.status).toBe(200);
    expect(only.json.Updates).toEqual([]);
    expect(only.json.Deletes).toEqual([]);
    expect(only.json.Inserts[0].IsSuccessful).toBe(true);
  });

  it('a body that is not valid UTF-8, or a string with a lone surrogate, is 400 and stores nothing; a surrogate pair is stored as sent', async () => {
    const p = await h.proposal();
    const url = `${P(p.proposalId)}/Schedules/ProposalLocation/UpsertMulti`;
    const frame = (name: string) => `{"Inserts":[{"Fields":{"LocationName":"${name}"}}],"Updates":[],"Deletes":[]}`;
    for (const name of ['\\ud800', 'x\\udc00', '\\ud800\\ud800']) {
      const r = await h.call('POST', url, { raw: frame(name) });
      expectProblem(r, 400, 'MalformedRequest');
      expect(r.json.detail).toContain('lone surrogate');
    }
    const bytes = new Uint8Array([
      ...Buffer.from(frame('A')).subarray(0, 40),
      0xff,
      0xfe,
      ...Buffer.from(frame('A')).subarray(40),
    ]);
    const bad = await h.created.app.request(url, {
      method: 'POST',
      headers: { Token: h.userToken({ '*': ['View', 'Edit'] }), 'Content-Type': 'application/json' },
      body: bytes,
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toContain('UTF-8');
    expect(locations(h, p.proposalId)).toHaveLength(0);
    const ok = await h.call('POST', url, { raw: frame('\\ud83d\\ude00 HQ') });
    expect(ok.status, ok.text).toBe(200);
    expect(locations(h, p.proposalId).map((l) => l.LocationName)).toEqual(['😀 HQ']);
  });

  it('a missing array or item Fields is 400 MalformedRequest and changes nothing (implementation-defined: the arrays are required)', async () => {
    const p = await h.proposal({ locations: 1 });
    const id = p.locationIds[0];
    const ins = [{ Fields: { LocationName: 'Never' } }];
    const bodies: Array<[string, unknown]> = [
      ['no Deletes', { Inserts: ins, Updates: [] }],
      ['no Updates', { Inserts: ins, Deletes: [] }],
      ['no Inserts', { Updates: [], Deletes: [{ ID: id }] }],
      ['a misspelt array', { Insert: ins, Updates: [], Deletes: [] }],
      ['a null array', { Inserts: null, Updates: [], Deletes: [] }],
      ['an empty object', {}],
      ['an insert without Fields', { Inserts: [{ fields: { LocationName: 'Never' } }], Updates: [], Deletes: [] }],
      ['an update without Fields', { Inserts: [], Updates: [{ ID: id }], Deletes: [{ ID: id }] }],
    ];
    const before = locations(h, p.proposalId, true);
    for (const [what, body] of bodies) {
      for (const q of ['', '?isAtomic=true']) {
        const r = await h.call('POST', `${P(p.proposalId)}/Schedules/ProposalLocation/UpsertMulti${q}`, { body });
        expectProblem(r, 400, 'MalformedRequest');
        expectDocumented(r, 'post', '/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti');
        expect(r.json.detail, what).toMatch(/Inserts|Updates|Deletes|Fields/);
      }
    }
    expect(locations(h, p.proposalId, true)).toEqual(before);
  });

  it('SCHED-016 SCHED-023 SCHED-002: an insert without LocationName fails with RecordID 0', async () => {
    const p = await h.proposal();
    for (const Fields of [{ City: 'Nowhere' }, { LocationName: '' }, { LocationName: '   ' }, { LocationName: null }]) {
      const res = await upsert(h, p.proposalId, { Inserts: [{ Fields }] });
      expect(res.status).toBe(200);
      const r = res.json.Inserts[0];
      expectResultShape(r, 0);
      expect(r.IsSuccessful).toBe(false);
      expect(r.RecordID).toBe(0);
      expect(r.Message).toContain('LocationName is required.');
    }
    expect(locations(h, p.proposalId)).toHaveLength(0);
  });

  it('SCHED-017 SCHED-023: updating LocationName to empty fails with the record ID and keeps the name', async () => {
    const p = await h.proposal({ locations: 1 });
    const id = p.locationIds[0];
    const before = row(h, 'ProposalLocation', 'ProposalLocationID', id)!;
    const res = await upsert(h, p.proposalId, { Updates: [{ ID: id, Fields: { LocationName: '', City: 'Changed' } }] });
    expect(res.status).toBe(200);
    const r = res.json.Updates[0];
    expectResultShape(r, 0);
    expect(r).toMatchObject({ IsSuccessful: false, RecordID: id });
    expect(r.Message).toContain('LocationName is required.');
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', id)).toEqual(before);
  });

  it('ProposalVehicle requires VIN; field names and value types are checked against the dictionary', async () => {
    const p = await h.proposal();
    const res = await upsert(
      h,
      p.proposalId,
      {
        Inserts: [
          { Fields: { Make: 'Ford' } },
          { Fields: { VIN: '1FAFP404X1F100001', Make: 'Ford', Year: 2020 } },
          { Fields: { VIN: 'V2', Colour: 'red' } },
          { Fields: { VIN: 'V3', Year: 'twenty' } },
          { Fields: { VIN: 'V4', ProposalID: 1 } },
        ],
      },
      '',
      'ProposalVehicle',
    );
    expect(res.status).toBe(200);
    const [a, b, c, d, e] = res.json.Inserts;
    expect(a).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    expect(a.Message).toContain('VIN is required.');
    expect(b).toMatchObject({ IsSuccessful: true });
    expect(c).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    expect(c.Message).toMatch(/Unknown field 'Colour'/);
    expect(d).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    expect(d.Message).toMatch(/Year.*number/);
    expect(e).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    expect(row(h, 'ProposalVehicle', 'ProposalVehicleID', b.RecordID)).toMatchObject({
      VIN: '1FAFP404X1F100001',
      Year: 2020,
    });
    // a location field is unknown on a vehicle
    const wrong = await upsert(
      h,
      p.proposalId,
      { Inserts: [{ Fields: { LocationName: 'x' } }] },
      '',
      'ProposalVehicle',
    );
    expect(wrong.json.Inserts[0].IsSuccessful).toBe(false);
  });

  it('SCHED-010: an update or delete naming a record of another proposal fails and leaves it unchanged', async () => {
    const mine = await h.proposal({ locations: 1 });
    const other = await h.proposal({ locations: 1 });
    const foreign = other.locationIds[0];
    const before = row(h, 'ProposalLocation', 'ProposalLocationID', foreign);
    const res = await upsert(h, mine.proposalId, {
      Updates: [{ ID: foreign, Fields: { LocationName: 'Hijacked' } }],
      Deletes: [{ ID: foreign }, { ID: 987654 }],
    });
    expect(res.status).toBe(200);
    expect(res.json.Updates[0]).toMatchObject({ IsSuccessful: false, RecordID: foreign, OrderNumber: 0 });
    expect(res.json.Deletes[0]).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: 0 });
    expect(res.json.Deletes[1]).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: 1 });
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', foreign)).toEqual(before);
    // a vehicle ID is not a location of the same proposal either
    const v = await upsert(h, mine.proposalId, { Inserts: [{ Fields: { VIN: 'X1' } }] }, '', 'ProposalVehicle');
    const vid = v.json.Inserts[0].RecordID;
    const cross = await upsert(h, mine.proposalId, { Deletes: [{ ID: vid }] });
    if (vid !== mine.locationIds[0]) expect(cross.json.Deletes[0].IsSuccessful).toBe(false);
    expect(row(h, 'ProposalVehicle', 'ProposalVehicleID', vid)).toBeDefined();
  });

  it('SCHED-011 SCHED-012 SCHED-013 SCHED-003: non-atomic (default) commits the good items and lists every item', async () => {
    const p = await h.proposal({ locations: 2 });
    const [a, b] = p.locationIds;
    for (const q of ['', '?isAtomic=false', '?isAtomic=No', '?isAtomic=0']) {
      const res = await upsert(
        h,
        p.proposalId,
        {
          Inserts: [
            { Fields: { LocationName: `ok ${q}` } },
            { Fields: { City: 'missing name' } },
            { Fields: { LocationName: `ok2 ${q}` } },
          ],
          Updates: [
            { ID: a, Fields: { LocationName: '' } },
            { ID: b, Fields: { City: `City ${q}` } },
          ],
        },
        q,
      );
      expect(res.status).toBe(200);
      expect(res.json.Inserts.map((r: any) => [r.OrderNumber, r.IsSuccessful])).toEqual([
        [0, true],
        [1, false],
        [2, true],
      ]);
      expect(res.json.Updates.map((r: any) => [r.OrderNumber, r.IsSuccessful, r.RecordID])).toEqual([
        [0, false, a],
        [1, true, b],
      ]);
      const names = locations(h, p.proposalId).map((l) => l.LocationName);
      expect(names).toContain(`ok ${q}`);
      expect(names).toContain(`ok2 ${q}`);
      expect(row(h, 'ProposalLocation', 'ProposalLocationID', b)!.City).toBe(`City ${q}`);
    }
  });

  it('SCHED-014 SCHED-015: an atomic batch with one failure leaves the database byte-for-byte the same and lists only the failure', async () => {
    const p = await h.proposal({ type: 'Endorsement', locations: 2 });
    const q = await h.proposal({ type: 'Quote', locations: 1 });
    const [a, b] = p.locationIds;
    const before = dump(h);
    const res = await upsert(
      h,
      p.proposalId,
      {
        Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { LocationName: 'B' } }],
        Updates: [
          { ID: a, Fields: { City: 'Changed' } },
          { ID: b, Fields: { LocationName: '' } },
        ],
        Deletes: [{ ID: a }],
      },
      '?isAtomic=true',
    );
    expect(res.status).toBe(200);
    expect(res.json.Inserts).toEqual([]);
    expect(res.json.Deletes).toEqual([]);
    expect(res.json.Updates).toHaveLength(1);
    expectResultShape(res.json.Updates[0], 1);
    expect(res.json.Updates[0]).toMatchObject({ IsSuccessful: false, RecordID: b });
    expect(res.json.Updates[0].Message).toContain('LocationName is required.');
    expect(dump(h)).toBe(before);
    // a permanent delete (Data Entry Event) in a failing atomic batch leaves nothing behind either
    const res2 = await upsert(
      h,
      q.proposalId,
      { Deletes: [{ ID: q.locationIds[0] }], Inserts: [{ Fields: {} }] },
      '?isAtomic=True',
    );
    expect(res2.status).toBe(200);
    expect(res2.json.Deletes).toEqual([]);
    expect(res2.json.Inserts).toHaveLength(1);
    expect(dump(h)).toBe(before);
  });

  it('SCHED-027: an atomic batch without failure is applied and lists every item', async () => {
    const p = await h.proposal({ locations: 1 });
    const res = await upsert(
      h,
      p.proposalId,
      {
        Inserts: [{ Fields: { LocationName: 'One' } }, { Fields: { LocationName: 'Two' } }],
        Updates: [{ ID: p.locationIds[0], Fields: { ZipCode: '99999' } }],
        Deletes: [],
      },
      '?isAtomic=Y',
    );
    expect(res.status).toBe(200);
    expect(res.json.Inserts.map((r: any) => r.IsSuccessful)).toEqual([true, true]);
    expect(res.json.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: p.locationIds[0], OrderNumber: 0 });
    expect(
      locations(h, p.proposalId)
        .map((l) => l.LocationName)
        .sort(),
    ).toEqual(['Location 1 t1', 'One', 'Two'].sort());
  });

  it('an update in an atomic batch can address a record inserted earlier in the batch', async () => {
    const p = await h.proposal();
    const first = await upsert(h, p.proposalId, { Inserts: [{ Fields: { LocationName: 'Base' } }] });
    const id = first.json.Inserts[0].RecordID;
    const res = await upsert(
      h,
      p.proposalId,
      { Updates: [{ ID: id, Fields: { City: 'C' } }], Deletes: [{ ID: id }] },
      '?isAtomic=1',
    );
    expect(res.json.Updates[0].IsSuccessful).toBe(true);
    expect(res.json.Deletes[0].IsSuccessful).toBe(true);
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', id)).toBeUndefined();
  });

  it('GEN-004: isAtomic accepts the documented boolean forms and refuses others with 400', async () => {
    const p = await h.proposal();
    for (const v of ['true', 'false', 'True', 'False', 'Yes', 'No', 'Y', 'N', '1', '0']) {
      const r = await upsert(h, p.proposalId, { Inserts: [] }, `?isAtomic=${v}`);
      expect(r.status, v).toBe(200);
    }
    for (const v of ['maybe', '2', '']) {
      const r = await upsert(h, p.proposalId, { Inserts: [] }, `?isAtomic=${v}`);
      expect(r.status, v).toBe(400);
      expect(r.json.code).toBe('MalformedRequest');
    }
  });

  it('GEN-004: malformed bodies are refused with 400 MalformedRequest and change nothing', async () => {
    const p = await h.proposal({ locations: 1 });
    const before = dump(h);
    const bad: Array<{ raw?: string; body?: unknown }> = [
      { raw: '{not json' },
      { raw: '' },
      { body: [] },
      { body: 'text' },
      { body: { Inserts: {} } },
      { body: { Inserts: [1] } },
      { body: { Inserts: [{ Fields: 'x' }] } },
      { body: { Updates: [{ ID: 'abc', Fields: {} }] } },
      { body: { Updates: [{ Fields: {} }] } },
      { body: { Deletes: [{ ID: 1.5 }] } },
      { body: { Inserts: [{ Fields: { LocationName: 'ok' } }], Deletes: 'all' } },
    ];
    for (const b of bad) {
      const r = await h.call('POST', `${P(p.proposalId)}/Schedules/ProposalLocation/UpsertMulti`, b);
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.json).toMatchObject({ status: 400, code: 'MalformedRequest' });
    }
    expect(dump(h)).toBe(before);
  });

  it('LIM-002: more than 100 items over the three arrays is refused with 413 PayloadTooLarge, nothing changed', async () => {
    const p = await h.proposal({ locations: 1 });
    const before = dump(h);
    const items = (k: number) => Array.from({ length: k }, (_, i) => ({ Fields: { LocationName: `L${i}` } }));
    const tooMany = await upsert(h, p.proposalId, {
      Inserts: items(60),
      Updates: [],
      Deletes: Array.from({ length: 41 }, () => ({ ID: p.locationIds[0] })),
    });
    expect(tooMany.status).toBe(413);
    expect(tooMany.json).toMatchObject({ status: 413, code: 'PayloadTooLarge' });
    expect(dump(h)).toBe(before);
    const exactly = await upsert(h, p.proposalId, { Inserts: items(100) });
    expect(exactly.status).toBe(200);
    expect(exactly.json.Inserts).toHaveLength(100);
  });

  it('SCHED-006 SCHED-028: a domain that is not a schedule domain is 404 InvalidScheduleDomain and changes nothing', async () => {
    const p = await h.proposal({ locations: 1 });
    const before = dump(h);
    for (const d of ['Claim', 'Proposal', 'proposallocation', 'Nope', 'PolicyChange']) {
      const r = await upsert(h, p.proposalId, { Inserts: [{ Fields: { LocationName: 'x' } }] }, '', d);
      expect(r.status, d).toBe(404);
      expect(r.json).toMatchObject({ status: 404, code: 'InvalidScheduleDomain' });
      const dd = await del(h, p.proposalId, p.locationIds[0], d);
      expect(dd.status, d).toBe(404);
      expect(dd.json.code).toBe('InvalidScheduleDomain');
      const rr = await reinstate(h, p.proposalId, p.locationIds[0], d);
      expect(rr.status, d).toBe(404);
      expect(rr.json.code).toBe('InvalidScheduleDomain');
    }
    expect(dump(h)).toBe(before);
  });
});

describe('single DELETE and Reinstate', () => {
  it('SCHED-019 SCHED-020 SCHED-004 PROP-001 EVT-002: an Endorsement schedule is soft-deleted with a policy change entry', async () => {
    const p = await h.proposal({ type: 'Endorsement', locations: 2 });
    const id = p.locationIds[0];
    const res = await del(h, p.proposalId, id);
    expect(res.status).toBe(200);
    expectResultShape(res.json, null);
    expect(res.json).toMatchObject({ IsSuccessful: true, RecordID: id });
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', id)).toMatchObject({
      IsDeleted: 1,
      LocationName: 'Location 1 t1',
    });
    const changes = h.deps.db.prepare(`SELECT * FROM "PolicyChange" WHERE ProposalID = ?`).all(p.proposalId) as any[];
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ ScheduleDomain: 'ProposalLocation', ScheduleID: id, ChangeType: 'Delete' });
    expect(changes[0].EntryDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(
      h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "DataEntryEvent" WHERE ProposalID = ?`).get(p.proposalId),
    ).toEqual({ n: 0 });
    // a soft-deleted record is no longer active: deleting or updating it again fails
    const again = await del(h, p.proposalId, id);
    expect(again.json).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null });
    const upd = await upsert(h, p.proposalId, { Updates: [{ ID: id, Fields: { City: 'x' } }] });
    expect(upd.json.Updates[0]).toMatchObject({ IsSuccessful: false, RecordID: id });
  });

  it('SCHED-021 SCHED-024: Reinstate restores a soft-deleted Endorsement record with its values', async () => {
    const p = await h.proposal({ type: 'Endorsement', locations: 1 });
    const id = p.locationIds[0];
    const before = row(h, 'ProposalLocation', 'ProposalLocationID', id);
    expect((await del(h, p.proposalId, id)).status).toBe(200);
    const res = await reinstate(h, p.proposalId, id);
    expect(res.status).toBe(200);
    expectResultShape(res.json, null);
    expect(res.json).toMatchObject({ IsSuccessful: true, RecordID: id });
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', id)).toEqual(before);
    const got = await h.call('GET', `/api/ProposalLocation/${id}`);
    expect(got.status).toBe(200);
    expect(got.json.Record.LocationName).toBe('Location 1 t1');
    // active again: a second Reinstate is refused with 409
    const twice = await reinstate(h, p.proposalId, id);
    expect(twice.status).toBe(409);
    expectResultShape(twice.json, null);
    expect(twice.json).toMatchObject({ IsSuccessful: false, RecordID: 0 });
  });

  for (const type of ['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue']) {
    it(`SCHED-022 SCHED-026 EVT-001 PROP-001: a ${type} schedule is deleted permanently and a Data Entry Event fires`, async () => {
      const p = await h.proposal({ type, locations: 1 });
      const id = p.locationIds[0];
      const res = await del(h, p.proposalId, id);
      expect(res.status).toBe(200);
      expectResultShape(res.json, null);
      expect(res.json).toMatchObject({ IsSuccessful: true, RecordID: id });
      expect(row(h, 'ProposalLocation', 'ProposalLocationID', id)).toBeUndefined();
      const events = h.deps.db
        .prepare(`SELECT * FROM "DataEntryEvent" WHERE ProposalID = ?`)
        .all(p.proposalId) as any[];
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ EventName: 'ScheduleDeleted', Domain: 'ProposalLocation', RecordID: id });
      expect(
        h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "PolicyChange" WHERE ProposalID = ?`).get(p.proposalId),
      ).toEqual({ n: 0 });
      // not readable, not reinstatable
      expect((await h.call('GET', `/api/ProposalLocation/${id}`)).status).toBe(404);
      const rr = await reinstate(h, p.proposalId, id);
      expect(rr.status).toBe(409);
      expect(rr.json).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });
    });
  }

  it('SCHED-026: policy change entries and Data Entry Events are readable as read-only domains', async () => {
    const e = await h.proposal({ type: 'Endorsement', locations: 1 });
    const q = await h.proposal({ type: 'Quote', locations: 1 });
    await del(h, e.proposalId, e.locationIds[0]);
    await upsert(h, q.proposalId, { Deletes: [{ ID: q.locationIds[0] }] });
    const pc = await h.call(
      'GET',
      `/api/PolicyChange/Query?filter=${encodeURIComponent(`ProposalID:eq:${e.proposalId}`)}`,
    );
    expect(pc.status).toBe(200);
    expect(pc.json.List).toEqual([expect.objectContaining({ ScheduleID: e.locationIds[0], ChangeType: 'Delete' })]);
    const ev = await h.call(
      'GET',
      `/api/DataEntryEvent/Query?filter=${encodeURIComponent(`ProposalID:eq:${q.proposalId}`)}`,
    );
    expect(ev.status).toBe(200);
    expect(ev.json.List).toEqual([
      expect.objectContaining({ RecordID: q.locationIds[0], EventName: 'ScheduleDeleted' }),
    ]);
  });

  it('SCHED-002 SCHED-004: deleting a record that is not on this proposal answers 200 with IsSuccessful false and RecordID 0', async () => {
    const p = await h.proposal({ locations: 1 });
    const other = await h.proposal({ locations: 1 });
    for (const sid of [999999, other.locationIds[0]]) {
      const res = await del(h, p.proposalId, sid);
      expect(res.status).toBe(200);
      expectResultShape(res.json, null);
      expect(res.json).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    }
    expect(row(h, 'ProposalLocation', 'ProposalLocationID', other.locationIds[0])).toBeDefined();
  });

  it('GEN-004: a non-integer schedule ID is 400', async () => {
    const p = await h.proposal({ locations: 1 });
    expect((await del(h, p.proposalId, 'abc')).status).toBe(400);
    expect((await reinstate(h, p.proposalId, '1.5')).status).toBe(400);
  });

  it('a soft-deleted record is not active: the generic record route answers 404 (records module must filter IsDeleted = 0)', async () => {
    const p = await h.proposal({ type: 'Endorsement', locations: 1 });
    const id = p.locationIds[0];
    await del(h, p.proposalId, id);
    const got = await h.call('GET', `/api/ProposalLocation/${id}`);
    expect(got.status).toBe(404);
  });
});
