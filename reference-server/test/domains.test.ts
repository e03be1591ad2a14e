// GET /api/Domains (spec 2.1, 4.4, 5).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectDocumented, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('GET /api/Domains', () => {
  it('DOM-009 GEN-001 GEN-002 answers {List: [...]} as JSON', async () => {
    const r = await h.get('/api/Domains');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(r.json)).toEqual(['List']);
    expectDocumented(r, 'get', '/api/Domains');
  });

  it('DOM-003 each entry has DomainID, Name, DisplayNameSingular, DisplayNamePlural', async () => {
    for (const d of (await h.get('/api/Domains')).json.List) {
      expect(d).toEqual({
        DomainID: expect.any(Number),
        Name: expect.any(String),
        DisplayNameSingular: expect.any(String),
        DisplayNamePlural: expect.any(String),
      });
      expect(Number.isInteger(d.DomainID)).toBe(true);
    }
  });

  it('DOM-004 the core domains have their fixed IDs', async () => {
    const byName = Object.fromEntries((await h.get('/api/Domains')).json.List.map((d: any) => [d.Name, d.DomainID]));
    expect(byName).toMatchObject({
      Claim: 1,
      Contact: 2,
      Location: 3,
      File: 4,
      Note: 5,
      Policy: 6,
      Task: 7,
      Incident: 11,
    });
  });

  it('DOM-005 DOM-002 custom domains are Custom.-prefixed with IDs above every core ID', async () => {
    const list = (await h.get('/api/Domains')).json.List as Array<{ Name: string; DomainID: number }>;
    const custom = list.filter((d) => d.Name.startsWith('Custom.'));
    expect(custom.map((d) => d.Name)).toContain('Custom.Inspection');
    for (const d of custom) expect(d.DomainID).toBeGreaterThan(11);
  });

  it('DOM-006 Member and Proposal are domains', async () => {
    const names = (await h.get('/api/Domains')).json.List.map((d: any) => d.Name);
    expect(names).toEqual(expect.arrayContaining(['Member', 'Proposal']));
  });

  it('DOM-007 DOM-008 the list holds exactly the domains with View', async () => {
    const token = h.userToken({
      Claim: ['View'],
      'Custom.Inspection': ['View', 'Edit'],
      Contact: ['Edit'],
      Proposal: ['View'],
    });
    const names = (await h.get('/api/Domains', token)).json.List.map((d: any) => d.Name).sort();
    expect(names).toEqual(['Claim', 'Custom.Inspection', 'Proposal']);
  });

  it('DOM-007 a user with no View sees an empty list', async () => {
    const token = h.userToken({ Claim: ['Edit'] });
    expect((await h.get('/api/Domains', token)).json).toEqual({ List: [] });
  });
});
