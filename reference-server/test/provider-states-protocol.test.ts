// The provider-state protocol as the reference speaks it (spec/provider-states.yaml, "Versions and
// negotiation"): the version it declares, the 1.1.0 params it honours and confirms, the refusals it
// may make, and the modes that imitate endpoints of other versions (--provider-states-mode,
// --single-id-sequence) for the suite's controls.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../spec/paths.js';
import { PROVIDER_STATES } from '../src/provider-states/index.js';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'spec/generated/provider-states.json'), 'utf8')) as {
    info: { version: string };
  }
).info.version;

let h: Harness;
afterEach(() => h?.close());

/** The sortField values of a records answer, by creation order. */
function sortValues(h: Harness, v: Record<string, any>): string[] {
  const def = v.domain as string;
  return (v.ids as number[]).map(
    (id) =>
      (
        h.deps.db.prepare(`SELECT "${v.sortField}" AS s FROM "${def}" WHERE "${def}ID" = ?`).get(id) as {
          s: string;
        }
      ).s,
  );
}

/** Positions (creation order) of the records with a value in sometimesNullField. */
function valuedAt(h: Harness, v: Record<string, any>): number[] {
  const def = v.domain as string;
  return (v.ids as number[]).flatMap((id, i) => {
    const row = h.deps.db
      .prepare(`SELECT "${v.sometimesNullField}" AS s FROM "${def}" WHERE "${def}ID" = ?`)
      .get(id) as { s: unknown };
    return row.s === null ? [] : [i];
  });
}

/** The rank (0 = smallest) of each value. */
function ranks(xs: string[]): number[] {
  const sorted = [...xs].sort();
  return xs.map((x) => sorted.indexOf(x));
}

describe('full mode (the default): protocol ' + VERSION, () => {
  it('declares its version in the answer of every state', async () => {
    h = harness();
    const u = await h.state('a user');
    expect(u.protocol).toBe(VERSION);
    const r = await h.state('records', { count: 2 });
    expect(r.protocol).toBe(VERSION);
    expect(PROVIDER_STATES.size).toBeGreaterThanOrEqual(12);
  });

  it('records: honours sortRanks and sparseAt, and confirms them by echoing them', async () => {
    h = harness();
    const sortRanks = [3, 0, 4, 1, 2];
    const v = await h.state('records', { count: 5, sortRanks, sparseAt: 3 });
    expect(v.sortRanks).toEqual(sortRanks);
    expect(v.sparseAt).toBe(3);
    expect(ranks(sortValues(h, v))).toEqual(sortRanks);
    expect(valuedAt(h, v)).toEqual([3]);
  });

  it('records: honours sortRanks for File records too', async () => {
    h = harness();
    const v = await h.state('records', { domain: 'File', count: 3, sortRanks: [1, 2, 0], sparseAt: 0 });
    expect(ranks(sortValues(h, v))).toEqual([1, 2, 0]);
    expect(valuedAt(h, v)).toEqual([0]);
  });

  it('records: without sortRanks and sparseAt, answers neither (nothing to confirm)', async () => {
    h = harness();
    const v = await h.state('records', { count: 4 });
    expect(v).not.toHaveProperty('sortRanks');
    expect(v).not.toHaveProperty('sparseAt');
    expect(valuedAt(h, v)).toHaveLength(1);
  });

  it.each([
    ['not a permutation', { count: 3, sortRanks: [0, 0, 1] }],
    ['the wrong length', { count: 3, sortRanks: [0, 1] }],
    ['not integers', { count: 2, sortRanks: [0.5, 1] }],
    ['sparseAt past the last record', { count: 3, sparseAt: 3 }],
    ['a negative sparseAt', { count: 3, sparseAt: -1 }],
  ])('records: refuses %s with 400 and creates nothing', async (_what, params) => {
    h = harness();
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'records', action: 'setup', params: { setupId: 'bad', ...params } },
      token: null,
    });
    expectProblem(r, 400, 'MalformedRequest');
    expect(h.count('Claim')).toBe(0);
  });

  it('a file: confirms touched', async () => {
    h = harness();
    const f = await h.state('a file', {
      kind: 'internal',
      linked: false,
      fileName: 't.txt',
      contentsBase64: 'YQ==',
      touched: true,
    });
    expect(f.touched).toBe(true);
    const row = h.deps.db.prepare('SELECT ModifiedDate, DownloadedDate FROM "File" WHERE FileID = ?').get(f.fileId) as {
      ModifiedDate: string | null;
      DownloadedDate: string | null;
    };
    expect(row.ModifiedDate).not.toBeNull();
    expect(row.DownloadedDate).not.toBeNull();
    const plain = await h.state('a file', {
      kind: 'internal',
      linked: false,
      fileName: 'u.txt',
      contentsBase64: 'YQ==',
    });
    expect(plain).not.toHaveProperty('touched');
  });
});

describe("mode '1.0.0': an endpoint of the first published protocol", () => {
  it('declares nothing, ignores the newer params and leaves out the newer values', async () => {
    h = harness({ providerStatesMode: '1.0.0' });
    const v = await h.state('records', { count: 5, sortRanks: [3, 0, 4, 1, 2], sparseAt: 3 });
    expect(v).not.toHaveProperty('protocol');
    expect(v).not.toHaveProperty('sortRanks');
    expect(v).not.toHaveProperty('linqFilter'); // since 1.1.0
    // the order and the sparse record of the first protocol: creation order, the first record
    expect(ranks(sortValues(h, v))).toEqual([0, 1, 2, 3, 4]);
    expect(valuedAt(h, v)).toEqual([0]);
    const f = await h.state('a record with files', {
      files: [{ fileName: 'a.txt', contentsBase64: 'YQ==' }],
      twinDomain: 'Incident',
    });
    expect(f).not.toHaveProperty('twinDomain');
    expect(h.count('Incident')).toBe(0);
  });

  it('refuses records of a domain other than Claim with 400 (the param may be refused)', async () => {
    h = harness({ providerStatesMode: '1.0.0' });
    const r = await h.call('POST', '/_provider-states', {
      body: { state: 'records', action: 'setup', params: { setupId: 'f', domain: 'File', count: 2 } },
      token: null,
    });
    expectProblem(r, 400, 'MalformedRequest');
    expect(h.count('File')).toBe(0);
  });

  it('tears down what a setup with newer params created (the same params, the same fixture)', async () => {
    h = harness({ providerStatesMode: '1.0.0' });
    const v = await h.state('records', { count: 2, sortRanks: [1, 0] });
    expect(h.count('Claim')).toBe(2);
    await h.state('records', v.__params, 'teardown');
    expect(h.count('Claim')).toBe(0);
  });
});

describe("mode 'minimal': declares the newest protocol, supports only what it requires", () => {
  it('answers the required values and the declaration only, and ignores the newer params', async () => {
    h = harness({ providerStatesMode: 'minimal' });
    const v = await h.state('records', { count: 5, sortRanks: [3, 0, 4, 1, 2], sparseAt: 3 });
    expect(v.protocol).toBe(VERSION);
    expect(v).not.toHaveProperty('sortRanks');
    expect(v).not.toHaveProperty('sparseAt');
    expect(v).not.toHaveProperty('groupField');
    expect(Object.keys(v).sort()).toEqual(
      ['__params', 'protocol', 'domain', 'ids', 'filter', 'sortField', 'allNullField', 'sometimesNullField'].sort(),
    );
  });
});

describe('--single-id-sequence: one ID sequence for every domain', () => {
  it('numbers the records of every domain from one sequence (without it, each domain has its own)', async () => {
    const idsOf = async (hh: Harness) => [
      ...((await hh.state('records', { domain: 'Claim', count: 2 })).ids as number[]),
      ...((await hh.state('records', { domain: 'Incident', count: 2 })).ids as number[]),
      ...((await hh.state('records', { domain: 'Claim', count: 1 })).ids as number[]),
    ];
    h = harness({ singleIdSequence: true });
    const shared = await idsOf(h);
    expect(shared).toEqual([...shared].sort((a, b) => a - b));
    expect(new Set(shared).size).toBe(5);
    h.close();
    h = harness();
    const own = await idsOf(h);
    expect(own[2]).toBe(own[0]); // the first Incident has the ID of the first Claim
  });

  it.each([
    ['a record with files', { files: [{ fileName: 'a.txt', contentsBase64: 'YQ==' }], twinDomain: 'Incident' }],
    ['a link parent', { twinDomain: 'Incident' }],
  ])('%s with twinDomain: 501 FixtureCannotExist, nothing left behind', async (state, params) => {
    h = harness({ singleIdSequence: true });
    const r = await h.call('POST', '/_provider-states', {
      body: { state, action: 'setup', params: { setupId: 'tw', ...params } },
      token: null,
    });
    expectProblem(r, 501, 'FixtureCannotExist');
    expect((r.json as { detail: string }).detail).toMatch(/one sequence/);
    expect(h.count('Claim') + h.count('Incident') + h.count('File')).toBe(0);
  });
});

describe("'a link parent' with customDomain (1.2.0)", () => {
  it('makes the parent in a Custom. domain and confirms it; refuses it together with domain', async () => {
    h = harness();
    const p = await h.state('a link parent', { customDomain: true });
    expect(p.domain).toMatch(/^Custom\./);
    expect(p.domainId).toBeGreaterThan(11);
    expect(p.customDomain).toBe(true);
    expect(h.count(p.domain as string)).toBeGreaterThan(0);
    const both = await h.call('POST', '/_provider-states', {
      body: { state: 'a link parent', action: 'setup', params: { setupId: 'cd', customDomain: true, domain: 'Claim' } },
      token: null,
    });
    expectProblem(both, 400, 'MalformedRequest');
    // without the param: the default domain, no confirmation
    const plain = await h.state('a link parent');
    expect(plain.domain).toBe('Claim');
    expect(plain).not.toHaveProperty('customDomain');
  });
});

describe("'a file' with parentDomain (1.2.0)", () => {
  it('links the file to a new record of that domain, Custom. ones included, and confirms it', async () => {
    h = harness();
    const lp = await h.state('a link parent', { customDomain: true });
    const custom = lp.domain as string;
    const f = await h.state('a file', {
      kind: 'internal',
      linked: true,
      fileName: 'c.txt',
      contentsBase64: 'Yw==',
      parentDomain: custom,
    });
    expect(f.parentDomain).toBe(custom);
    const listed = await h.call(
      'GET',
      `/api/${encodeURIComponent(custom)}/${f.parentId as number}/Files?columns=FileID`,
    );
    expect(listed.status).toBe(200);
    expect((listed.json as { List: Array<{ FileID: number }> }).List.map((r) => r.FileID)).toEqual([f.fileId]);
    const bad = await h.call('POST', '/_provider-states', {
      body: {
        state: 'a file',
        action: 'setup',
        params: {
          setupId: 'pd',
          kind: 'internal',
          linked: true,
          fileName: 'x.txt',
          contentsBase64: '',
          parentDomain: 'NoSuchDomain',
        },
      },
      token: null,
    });
    expectProblem(bad, 400, 'MalformedRequest');
    // without the param: a Claim, as before
    const plain = await h.state('a file', {
      kind: 'internal',
      linked: true,
      fileName: 'p.txt',
      contentsBase64: 'cA==',
    });
    expect(plain.parentDomain).toBe('Claim');
  });
});

describe("mode 'minimal': confirmations", () => {
  it('keeps the values that confirm a param it honoured (a file, linked: parentDomain and parentId)', async () => {
    h = harness({ providerStatesMode: 'minimal' });
    const f = await h.state('a file', {
      kind: 'internal',
      linked: true,
      fileName: 'l.txt',
      contentsBase64: 'YQ==',
      touched: true,
    });
    expect(f.parentDomain).toBe('Claim');
    expect(typeof f.parentId).toBe('number');
    expect(f).not.toHaveProperty('touched'); // since 1.1.0 and optional: ignored
  });
});
