// Bindings: dotted paths reach nested bodies, the total count can live in a header (the README
// table's drift test is conformance/test/init.test.ts).
import { describe, expect, it } from 'vitest';
import { atPath, resolveBindings, setAtPath } from '../src/model/bindings.js';
import { domainListOf, locateList, locateTotalCount, totalCountOf } from '../src/model/not-shown-shapes.js';
import { linkBody } from '../src/suite-api/dsl.js';

describe('paths and places', () => {
  it('atPath and setAtPath follow dotted paths; the empty path is the value itself', () => {
    expect(atPath({ meta: { total: 7 } }, 'meta.total')).toBe(7);
    expect(atPath([1, 2], '')).toEqual([1, 2]);
    expect(atPath({ a: 1 }, 'a.b')).toBeUndefined();
    const o: Record<string, unknown> = {};
    setAtPath(o, 'parent.domain', 'Claim');
    setAtPath(o, 'parent.id', 3);
    expect(o).toEqual({ parent: { domain: 'Claim', id: 3 } });
  });

  it('the total count is read from a body path or from a header', () => {
    const headers = new Headers({ 'X-Total-Count': '35' });
    expect(totalCountOf(resolveBindings(), { json: { List: [], TotalCount: 35 }, headers: new Headers() })).toBe(35);
    expect(
      totalCountOf(resolveBindings({ totalCountField: 'meta.total' }), { json: { meta: { total: 35 } }, headers }),
    ).toBe(35);
    const byHeader = resolveBindings({ totalCountHeader: 'X-Total-Count' });
    expect(totalCountOf(byHeader, { json: { List: [], TotalCount: 1 }, headers })).toBe(35);
    expect(totalCountOf(byHeader, { json: { List: [] }, headers: new Headers() })).toBeUndefined();
  });

  it('the domain list is read from a path, or is the body itself', () => {
    expect(domainListOf(resolveBindings(), { List: [1] })).toEqual([1]);
    expect(domainListOf(resolveBindings({ domainsListField: '' }), [1])).toEqual([1]);
    expect(domainListOf(resolveBindings({ domainsListField: 'data.domains' }), { data: { domains: [1] } })).toEqual([
      1,
    ]);
  });

  it('a not-shown shape the answer shows without doubt needs no binding; doubt is named, never guessed', () => {
    const b = resolveBindings();
    // the domain list: a bare array, the one list of an envelope, nested; two lists are doubt
    expect(locateList([1], 'List')).toEqual({ found: { value: [1], where: '', byBinding: false } });
    expect(locateList({ Domains: [1], Count: 1 }, 'List')).toEqual({
      found: { value: [1], where: 'Domains', byBinding: false },
    });
    expect(locateList({ items: [1], count: 1 }, 'List')).toMatchObject({ found: { where: 'items' } });
    expect(locateList({ data: { items: [1] } }, 'List')).toMatchObject({ found: { where: 'data.items' } });
    expect(locateList({ List: [1], Other: [2] }, 'List')).toMatchObject({ found: { where: 'List', byBinding: true } });
    expect(locateList({ A: [1], B: [2] }, 'List')).toEqual({ doubt: expect.stringContaining('2 lists (`A`, `B`)') });
    expect(locateList({ A: 1 }, 'List')).toEqual({ doubt: expect.stringContaining('holds no list') });
    // the total count: a header or a field named "total", nested too; "count" alone is never taken
    const none = new Headers();
    expect(locateTotalCount(b, { json: { List: [] }, headers: new Headers({ 'X-Total-Count': '35' }) })).toEqual({
      found: { value: 35, where: 'header x-total-count', byBinding: false },
    });
    expect(locateTotalCount(b, { json: { List: [], Meta: { Total: 35 } }, headers: none })).toEqual({
      found: { value: 35, where: 'Meta.Total', byBinding: false },
    });
    expect(locateTotalCount(b, { json: { List: [], Count: 5 }, headers: none })).toEqual({ absent: true });
    expect(locateTotalCount(b, { json: { List: [], total: 3, Meta: { TotalRows: 3 } }, headers: none })).toEqual({
      doubt: expect.stringContaining('2 counts named "total"'),
    });
    expect(totalCountOf(b, { json: { List: [] }, headers: new Headers({ 'X-Total-Count': '35' }) })).toBe(35);
    expect(domainListOf(b, [1, 2])).toEqual([1, 2]);
  });

  it('link bodies follow the bindings, nested paths included; the values are the same', () => {
    const nested = resolveBindings({
      link: {
        parentDomain: 'parent.domain',
        parentRecordId: 'parent.id',
        childDomain: 'child.domain',
        childRecordId: 'child.id',
        relationship: 'child.role',
      },
    });
    const args = { parentDomain: 'Claim', parentId: 4, childDomain: 'Contact', childId: 9, relationship: 'ADJ' };
    expect(linkBody(args, nested)).toEqual({
      parent: { domain: 'Claim', id: 4 },
      child: { domain: 'Contact', id: 9, role: 'ADJ' },
    });
    expect(linkBody(args, resolveBindings())).toEqual({
      ParentDomain: 'Claim',
      ParentRecordID: 4,
      ChildDomain: 'Contact',
      ChildRecordID: 9,
      Relationship: 'ADJ',
    });
  });
});
