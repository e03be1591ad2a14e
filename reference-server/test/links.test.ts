// Links (spec 2.3, 4.4, 5; architecture section 2).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectDocumented, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

const upsert = (body: unknown, token?: string) => h.call('POST', '/api/Link/Upsert', { body, token });
const remove = (body: unknown, token?: string) => h.call('POST', '/api/Link/Remove', { body, token });
const links = () =>
  h.deps.db
    .prepare('SELECT ParentDomainID, ParentID, ChildDomainID, ChildID, ContactTypeID FROM links ORDER BY LinkID')
    .all();
const contactType = (code: string) =>
  (
    h.deps.db.prepare(`SELECT CodeID FROM codes WHERE List = 'ContactType' AND Code = ?`).get(code) as {
      CodeID: number;
    }
  ).CodeID;

async function fixture() {
  const c = await h.state('a contact');
  const p = await h.state('a link parent');
  const rels = (await h.state('contact relationships')).relationships as string[];
  return { c, p, rels };
}

describe('Link/Upsert', () => {
  it('LINK-013 LINK-016 LINK-008 GEN-002 creates a link by primary keys and answers IsSuccessful, LinkID, ParentRecordID, ChildRecordID', async () => {
    const { c, p, rels } = await fixture();
    const r = await upsert({
      ParentDomain: p.domain,
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: rels[0],
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      IsSuccessful: true,
      LinkID: expect.any(Number),
      ParentRecordID: p.id,
      ChildRecordID: c.contactId,
      Message: null,
    });
    expectDocumented(r, 'post', '/api/Link/Upsert');
    expect(links()).toEqual([
      {
        ParentDomainID: 1,
        ParentID: p.id,
        ChildDomainID: 2,
        ChildID: c.contactId,
        ContactTypeID: contactType(rels[0]!),
      },
    ]);
  });

  it('LINK-014 upserting an existing link updates it, no duplicate; NewRelationship changes the relationship', async () => {
    const { c, p, rels } = await fixture();
    const body = {
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: rels[0],
    };
    const a = await upsert(body);
    const b = await upsert({ ...body, NewRelationship: rels[1] });
    expect(b.json.LinkID).toBe(a.json.LinkID);
    expect(links()).toHaveLength(1);
    expect((links()[0] as any).ContactTypeID).toBe(contactType(rels[1]!));
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    expect(links()).toHaveLength(1);
    expect((links()[0] as any).ContactTypeID).toBe(contactType(rels[1]!));
  });

  it('LINK-019 a relationship may be given as a description; an unknown one is 400 and nothing is written', async () => {
    const { c, p } = await fixture();
    const ok = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: 'Expert Witness',
    });
    expect(ok.status).toBe(200);
    expect((links()[0] as any).ContactTypeID).toBe(contactType('EXP'));
    const bad = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      NewRelationship: 'Astronaut',
    });
    expectProblem(bad, 400, 'MalformedRequest');
    expect((links()[0] as any).ContactTypeID).toBe(contactType('EXP'));
  });

  it('LINK-005 one contact linked to several parents with different relationships', async () => {
    const { c, p, rels } = await fixture();
    const p2 = await h.state('a link parent', { domain: 'Custom.Inspection' });
    await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: rels[0],
    });
    await upsert({
      ParentDomain: 'Custom.Inspection',
      ParentRecordID: p2.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: rels[1],
    });
    const q = await h.get(
      `/api/Link/Query?childDomain=Contact&childRecordID=${c.contactId}&columns=ParentDomainID,ParentID,ContactTypeID`,
    );
    expect(q.json.List).toEqual([
      { ParentDomainID: 1, ParentID: p.id, ContactTypeID: contactType(rels[0]!) },
      { ParentDomainID: 1001, ParentID: p2.id, ContactTypeID: contactType(rels[1]!) },
    ]);
  });

  it('LINK-006 a relationship given for a File child is not stored', async () => {
    const f = await h.state('a file', { kind: 'internal', linked: false, fileName: 'a.txt', contentsBase64: 'YQ==' });
    const { p } = await fixture();
    const r = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'File',
      ChildRecordID: f.fileId,
      Relationship: 'ADJ',
    });
    expect(r.status).toBe(200);
    expect(links()).toEqual([
      { ParentDomainID: 1, ParentID: p.id, ChildDomainID: 4, ChildID: f.fileId, ContactTypeID: null },
    ]);
    expect((await h.get(`/api/File/${f.fileId}?columns=IsUnlinked`)).json.Record.IsUnlinked).toBe(false);
  });

  it('LINK-002 a parent can be in any standard or custom domain', async () => {
    const c = await h.state('a contact');
    for (const domain of ['Claim', 'Policy', 'Location', 'Custom.Inspection', 'Proposal', 'Member']) {
      const p = await h.state('a link parent', { domain });
      const r = await upsert({
        ParentDomain: domain,
        ParentRecordID: p.id,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      });
      expect(r.status, domain).toBe(200);
      const q = await h.get(
        `/api/Link/Query?parentDomain=${domain}&parentRecordID=${p.id}&columns=ParentDomainID,ChildID`,
      );
      expect(q.json.List).toEqual([{ ParentDomainID: p.domainId, ChildID: c.contactId }]);
    }
  });

  it('LINK-003 a child that is neither Contact nor File is 400 and nothing is written', async () => {
    const { p } = await fixture();
    const loc = await h.state('a link parent', { domain: 'Location' });
    for (const ChildDomain of ['Location', 'Claim', 'Nope']) {
      expectProblem(
        await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain, ChildRecordID: loc.id }),
        400,
        'MalformedRequest',
      );
    }
    expect(links()).toEqual([]);
  });

  it('LINK-009 LINK-018 match fields: text and numeric accepted on both sides', async () => {
    const { c, p } = await fixture();
    const r = await upsert({
      ParentDomain: 'Claim',
      ParentRecordMatchField: p.textMatchField,
      ParentRecordKey: p.textMatchKey,
      ChildDomain: 'Contact',
      ChildRecordMatchField: c.numericMatchField,
      ChildRecordKey: c.numericMatchKey,
    });
    expect(r.json).toMatchObject({ IsSuccessful: true, ParentRecordID: p.id, ChildRecordID: c.contactId });
    const r2 = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordMatchField: c.textMatchField,
      ChildRecordKey: c.textMatchKey,
    });
    expect(r2.json).toMatchObject({ IsSuccessful: true, LinkID: r.json.LinkID });
    const r3 = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordMatchField: c.numericMatchField,
      ChildRecordKey: String(c.numericMatchKey),
    });
    expect(r3.json).toMatchObject({ IsSuccessful: true, ChildRecordID: c.contactId });
  });

  it('LINK-009 a match field that is not text or numeric is 400 and nothing changes', async () => {
    const { c, p } = await fixture();
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordMatchField: p.nonMatchableField,
        ParentRecordKey: '1',
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      400,
      'MalformedRequest',
    );
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordID: p.id,
        ChildDomain: 'Contact',
        ChildRecordMatchField: c.nonMatchableField,
        ChildRecordKey: 'Pat',
      }),
      400,
      'MalformedRequest',
    );
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordMatchField: 'LossDate',
        ParentRecordKey: '2024-01-01',
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      400,
      'MalformedRequest',
    );
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordMatchField: 'NoSuchField',
        ParentRecordKey: 'x',
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      400,
      'MalformedRequest',
    );
    expect(links()).toEqual([]);
  });

  it('LINK-010 when both are given the primary key wins', async () => {
    const { c, p } = await fixture();
    const other = await h.state('a link parent');
    const r = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ParentRecordMatchField: other.textMatchField,
      ParentRecordKey: other.textMatchKey,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      ChildRecordMatchField: 'Email',
      ChildRecordKey: 'nobody@example.com',
    });
    expect(r.json).toMatchObject({ ParentRecordID: p.id, ChildRecordID: c.contactId });
  });

  it('REC-003 a missing record or unmatched key is 404 and nothing is written', async () => {
    const { c, p } = await fixture();
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordID: 999999,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      404,
      'RecordNotFound',
    );
    expectProblem(
      await upsert({
        ParentDomain: 'Claim',
        ParentRecordID: p.id,
        ChildDomain: 'Contact',
        ChildRecordMatchField: 'Email',
        ChildRecordKey: 'none@example.com',
      }),
      404,
      'RecordNotFound',
    );
    expectProblem(
      await upsert({ ParentDomain: 'claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId }),
      404,
      'UnknownDomain',
    );
    expect(links()).toEqual([]);
  });

  it('GEN-004 wrong types and missing identification are 400 and nothing is written', async () => {
    const { c, p } = await fixture();
    for (const body of [
      { ParentDomain: 'Claim', ParentRecordID: 'one', ChildDomain: 'Contact', ChildRecordID: c.contactId },
      { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact' },
      { ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId },
      {
        ParentDomain: 'Claim',
        ParentRecordID: p.id,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
        Relationship: 5,
      },
      [],
      'text',
    ])
      expectProblem(await upsert(body), 400, 'MalformedRequest');
    expectProblem(await h.call('POST', '/api/Link/Upsert', { raw: '' }), 400, 'MalformedRequest');
    expect(links()).toEqual([]);
  });
});

describe('Link/Remove', () => {
  it('LINK-015 LINK-017 removes the link, which leaves Link/Query', async () => {
    const { c, p } = await fixture();
    const ids = { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId };
    await upsert(ids);
    const r = await remove(ids);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ IsSuccessful: true, Message: expect.any(String) });
    expectDocumented(r, 'post', '/api/Link/Remove');
    expect((await h.get(`/api/Link/Query?childDomain=Contact&childRecordID=${c.contactId}`)).json.List).toEqual([]);
  });

  it('LINK-017 removing a link that does not exist: IsSuccessful false, nothing removed', async () => {
    const { c, p } = await fixture();
    const r = await remove({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
    });
    expect(r.status).toBe(200);
    expect(r.json.IsSuccessful).toBe(false);
    expect(r.json.Message).toMatch(/nothing was removed/i);
  });

  it('LINK-017 with a Relationship, only a link with that relationship is removed', async () => {
    const { c, p, rels } = await fixture();
    const ids = { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId };
    await upsert({ ...ids, Relationship: rels[0] });
    expect((await remove({ ...ids, Relationship: rels[1] })).json.IsSuccessful).toBe(false);
    expect(links()).toHaveLength(1);
    expect((await remove({ ...ids, Relationship: rels[0] })).json.IsSuccessful).toBe(true);
    expect(links()).toHaveLength(0);
  });

  it('LINK-008 LINK-009 Remove identifies records by match field too', async () => {
    const { c, p } = await fixture();
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    const r = await remove({
      ParentDomain: 'Claim',
      ParentRecordMatchField: p.textMatchField,
      ParentRecordKey: p.textMatchKey,
      ChildDomain: 'Contact',
      ChildRecordMatchField: 'Email',
      ChildRecordKey: c.textMatchKey,
    });
    expect(r.json.IsSuccessful).toBe(true);
    expectProblem(
      await remove({
        ParentDomain: 'Claim',
        ParentRecordMatchField: 'Location',
        ParentRecordKey: '1',
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      400,
      'MalformedRequest',
    );
  });
});

describe('permissions (spec 5)', () => {
  async function linkSetup() {
    const { c, p } = await fixture();
    const f = await h.state('a file', { kind: 'internal', linked: false, fileName: 'a.txt', contentsBase64: 'YQ==' });
    const contact = { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId };
    const file = { ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'File', ChildRecordID: f.fileId };
    return { contact, file };
  }

  it('AUTH-006 Contact: Upsert needs AttachContacts, Remove needs DetachContacts', async () => {
    const { contact } = await linkSetup();
    const noAttach = h.userToken({ Claim: ['View', 'Edit', 'DetachContacts'], Contact: ['View'] });
    expectProblem(await upsert(contact, noAttach), 403, 'Forbidden');
    expect(links()).toEqual([]);
    const attach = h.userToken({ Claim: ['AttachContacts'], Contact: ['View'] });
    expect((await upsert(contact, attach)).status).toBe(200);
    expectProblem(await remove(contact, attach), 403, 'Forbidden');
    expect(links()).toHaveLength(1);
    const detach = h.userToken({ Claim: ['DetachContacts'], Contact: ['View'] });
    expect((await remove(contact, detach)).json.IsSuccessful).toBe(true);
  });

  it('AUTH-007 File: Upsert needs AttachFiles, Remove needs ModifyFiles', async () => {
    const { file } = await linkSetup();
    expectProblem(
      await upsert(file, h.userToken({ Claim: ['AttachContacts', 'ModifyFiles', 'Edit'], File: ['View'] })),
      403,
      'Forbidden',
    );
    expect(links()).toEqual([]);
    expect((await upsert(file, h.userToken({ Claim: ['AttachFiles'], File: ['View'] }))).status).toBe(200);
    expectProblem(
      await remove(file, h.userToken({ Claim: ['AttachFiles', 'DetachContacts', 'Edit'], File: ['View'] })),
      403,
      'Forbidden',
    );
    expect(links()).toHaveLength(1);
    expect((await remove(file, h.userToken({ Claim: ['ModifyFiles'], File: ['View'] }))).json.IsSuccessful).toBe(true);
  });

  it('AUTH-004 AUTH-005 without View on the child domain the operation is refused and nothing changes', async () => {
    const { contact, file } = await linkSetup();
    expectProblem(await upsert(contact, h.userToken({ Claim: ['AttachContacts'] })), 403, 'Forbidden');
    expectProblem(await upsert(file, h.userToken({ Claim: ['AttachFiles'], Contact: ['View'] })), 403, 'Forbidden');
    expect(links()).toEqual([]);
    await upsert(contact);
    expectProblem(await remove(contact, h.userToken({ Claim: ['DetachContacts'] })), 403, 'Forbidden');
    expect(links()).toHaveLength(1);
  });
});

describe('Link/Query', () => {
  it('LINK-001 LINK-007 GEN-002 rows carry integer ParentDomainID, ParentID, ChildDomainID, ChildID, and LinkID, ContactTypeID', async () => {
    const { c, p } = await fixture();
    const up = await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: 'ADJ',
    });
    const r = await h.get(`/api/Link/Query?parentDomain=Claim&parentRecordID=${p.id}`);
    expect(r.json.List).toEqual([
      {
        LinkID: up.json.LinkID,
        ParentDomainID: 1,
        ParentID: p.id,
        ChildDomainID: 2,
        ChildID: c.contactId,
        ContactTypeID: contactType('ADJ'),
      },
    ]);
    expectDocumented(r, 'get', '/api/Link/Query');
  });

  it('LINK-011 childDomain + childRecordID returns the links of that child', async () => {
    const { c, p } = await fixture();
    const c2 = await h.state('a contact');
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c2.contactId });
    const r = await h.get(`/api/Link/Query?childDomain=Contact&childRecordID=${c2.contactId}&columns=ChildID`);
    expect(r.json.List).toEqual([{ ChildID: c2.contactId }]);
  });

  it('LINK-012 parentDomain returns only links of that parent type', async () => {
    const { c, p } = await fixture();
    const p2 = await h.state('a link parent', { domain: 'Policy' });
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    await upsert({ ParentDomain: 'Policy', ParentRecordID: p2.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    expect((await h.get('/api/Link/Query?parentDomain=Policy&columns=ParentID,ChildID')).json.List).toEqual([
      { ParentID: p2.id, ChildID: c.contactId },
    ]);
  });

  it('match keys and relationship narrow the query', async () => {
    const { c, p } = await fixture();
    const c2 = await h.state('a contact');
    await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: 'ADJ',
    });
    await upsert({
      ParentDomain: 'Claim',
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c2.contactId,
      Relationship: 'BRK',
    });
    const q = (s: string) => h.get(`/api/Link/Query?${s}&columns=ChildID`).then((r) => r.json.List);
    expect(
      await q(
        `parentDomain=Claim&parentRecordMatchField=${p.textMatchField}&parentRecordKey=${p.textMatchKey}&relationship=Broker`,
      ),
    ).toEqual([{ ChildID: c2.contactId }]);
    expect(
      await q(`childDomain=Contact&childRecordMatchField=Email&childRecordKey=${encodeURIComponent(c.textMatchKey)}`),
    ).toEqual([{ ChildID: c.contactId }]);
  });

  it('needs parentDomain or childDomain; bad parameters are 4xx', async () => {
    expectProblem(await h.get('/api/Link/Query'), 400, 'MalformedRequest');
    expectProblem(await h.get('/api/Link/Query?childRecordID=1'), 400, 'MalformedRequest');
    expectProblem(await h.get('/api/Link/Query?childDomain=Contact&childRecordID=abc'), 400, 'MalformedRequest');
    expectProblem(await h.get('/api/Link/Query?parentDomain=claim'), 404, 'UnknownDomain');
    expectProblem(await h.get('/api/Link/Query?childDomain=Contact&relationship=Astronaut'), 400, 'MalformedRequest');
    expectProblem(
      await h.get('/api/Link/Query?parentDomain=Claim', h.userToken({ Contact: ['View'] })),
      403,
      'Forbidden',
    );
  });

  it('only links whose both sides the user may view are listed', async () => {
    const { c, p } = await fixture();
    await upsert({ ParentDomain: 'Claim', ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId });
    expect((await h.get('/api/Link/Query?parentDomain=Claim', h.userToken({ Claim: ['View'] }))).json.List).toEqual([]);
    expect(
      (await h.get('/api/Link/Query?parentDomain=Claim', h.userToken({ Claim: ['View'], Contact: ['View'] }))).json
        .List,
    ).toHaveLength(1);
  });
});
