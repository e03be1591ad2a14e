// The canned cases of the QRY faults (qry.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, get, json, ok } from './canned-cases.js';

export const QRY_FAULT_CASES: Case[] = [
  {
    fault: 'take-above-100-honoured',
    title: 'take=150 is fetched as two pages and joined',
    steps: [
      {
        req: get('/api/Claim/Query?take=150&skip=10'),
        upstream: (req) => {
          const take = Number(req.query.get('take'));
          const skip = Number(req.query.get('skip'));
          return ok({ List: Array.from({ length: take }, (_, i) => ({ ClaimID: skip + i })) });
        },
        expect: (out, f) => {
          expect(f.map((r) => `${r.query.get('take')}/${r.query.get('skip')}`)).toEqual(['100/10', '50/110']);
          const list = json(out).List;
          expect(list).toHaveLength(150);
          expect(list[149].ClaimID).toBe(159);
        },
      },
    ],
  },
  {
    fault: 'skip-ignored',
    title: 'skip is dropped',
    steps: [
      { req: get('/api/Claim/Query?skip=30&take=30'), expect: (_o, f) => expect(f[0]!.query.has('skip')).toBe(false) },
    ],
  },
  {
    fault: 'skip-default-one',
    title: 'no skip becomes skip=1; a given skip stays',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('1') },
      { req: get('/api/Claim/Query?skip=4'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('4') },
    ],
  },
  {
    fault: 'take-default-50',
    title: 'no take becomes take=50',
    steps: [{ req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('50') }],
  },
  {
    fault: 'take-off-by-one',
    title: 'take=10 becomes 11',
    steps: [
      { req: get('/api/Claim/Query?take=10'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('11') },
      { req: get('/api/Claim/9/Files?take=2'), expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('3') },
    ],
  },
  {
    fault: 'sort-desc-ignored',
    title: '" desc" is stripped',
    steps: [
      {
        req: get('/api/File/Query?sort=EntryDate%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('EntryDate'),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-ignored',
    title: 'excludeEmptyColumns is dropped',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true'),
        expect: (_o, f) => expect(f[0]!.query.has('excludeEmptyColumns')).toBe(false),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-drops-sparse-columns',
    title: 'a column null in one record is dropped everywhere',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=Yes'),
        upstream: ok({
          List: [
            { A: 1, B: null },
            { A: 2, B: 3 },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ A: 1 }, { A: 2 }]),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-on-by-default',
    title: 'excludeEmptyColumns=true is added',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('excludeEmptyColumns')).toBe('true') },
    ],
  },
  {
    fault: 'total-count-of-page',
    title: 'TotalCount becomes the page size',
    steps: [
      {
        req: get('/api/Claim/Query?includeTotalCount=true&take=2'),
        upstream: ok({ List: [{}, {}], TotalCount: 57 }),
        expect: (out) => expect(json(out).TotalCount).toBe(2),
      },
    ],
  },
  {
    fault: 'total-count-always-included',
    title: 'includeTotalCount=true is added',
    steps: [
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f[0]!.query.get('includeTotalCount')).toBe('true') },
    ],
  },
  {
    fault: 'query-answers-bare-array',
    title: 'the List envelope is dropped',
    steps: [
      {
        req: get('/api/Claim/Query'),
        upstream: ok({ List: [{ ClaimID: 1 }] }),
        expect: (out) => expect(json(out)).toEqual([{ ClaimID: 1 }]),
      },
    ],
  },
  {
    fault: 'filter-ignored',
    title: 'filter is dropped on the record and the file query; other parameters stay',
    steps: [
      {
        req: get('/api/Claim/Query?filter=ClaimNumber%3Aeq%3AC-1&take=5'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=5'),
      },
      {
        req: get('/api/File/Query?filter=FileID%3Aeq%3A5&linqFilter=FileID%20%3D%3D%205'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('linqFilter=FileID+%3D%3D+5'),
      },
    ],
  },
  {
    fault: 'linq-filter-ignored',
    title: 'linqFilter is dropped on the record and the file query; filter stays',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=ClaimNumber%20%3D%3D%20%22C-1%22&columns=ClaimNumber'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('columns=ClaimNumber'),
      },
      {
        req: get('/api/File/Query?linqFilter=FileID%20%3D%3D%205&filter=FileID%3Aeq%3A5'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('filter=FileID%3Aeq%3A5'),
      },
      { req: get('/api/Link/Query?linqFilter=x'), expect: (_o, f) => expect(f[0]!.query.get('linqFilter')).toBe('x') },
    ],
  },
  {
    fault: 'linq-filter-after-paging',
    title: 'the page is cut from the unfiltered query, then only its rows that match the LINQ filter are kept',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=X&columns=ClaimNumber&sort=ClaimNumber&take=3&skip=3'),
        upstream: (req) =>
          req.query.has('linqFilter')
            ? ok({ List: [{ ClaimID: 5 }, { ClaimID: 7 }, { ClaimID: 9 }] })
            : ok({
                List: [
                  { ClaimNumber: 'd', __fp0: 4 },
                  { ClaimNumber: 'e', __fp0: 5 },
                  { ClaimNumber: 'f', __fp0: 6 },
                ],
              }),
        expect: (out, f) => {
          expect(f.map((r) => r.query.toString())).toEqual([
            'linqFilter=X&columns=ClaimID&take=100',
            'columns=ClaimNumber%2CClaimID+as+__fp0&sort=ClaimNumber&take=3&skip=3',
          ]);
          expect(json(out).List).toEqual([{ ClaimNumber: 'e' }]);
        },
      },
      {
        // the key column cannot be read: the request passes untouched
        req: get('/api/Custom.Inspection/Query?linqFilter=X&take=3'),
        upstream: (req) =>
          req.query.get('columns') === 'Custom.InspectionID' ? problem(400, 'UnknownColumn', 'no') : ok({ List: [] }),
        expect: (_o, f) => expect(f[f.length - 1]!.query.toString()).toBe('linqFilter=X&take=3'),
      },
      { req: get('/api/Claim/Query?take=3'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'sort-within-page-only',
    title: 'the page is fetched unsorted (the sort column read alongside) and only its rows are sorted',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimID&sort=ClaimNumber%20desc&take=3&skip=3'),
        upstream: ok({
          List: [
            { ClaimID: 4, __fp0: 'b' },
            { ClaimID: 5, __fp0: 'c' },
            { ClaimID: 6, __fp0: 'a' },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.has('sort')).toBe(false);
          expect(f[0]!.query.get('columns')).toBe('ClaimID,ClaimNumber as __fp0');
          expect(f[0]!.query.get('skip')).toBe('3');
          expect(json(out).List).toEqual([{ ClaimID: 5 }, { ClaimID: 4 }, { ClaimID: 6 }]);
        },
      },
      {
        req: get('/api/File/Query?sort=FileName%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('FileName desc'),
      },
      { req: get('/api/Claim/Query?take=3'), expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=3') },
    ],
  },
  {
    fault: 'sort-asc-keyword-read-as-desc',
    title: '"<column> asc" is sent as "<column> desc"; a bare column stays ascending',
    steps: [
      {
        req: get('/api/Claim/Query?sort=ClaimNumber%20asc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber desc'),
      },
      {
        req: get('/api/Claim/Query?sort=ClaimNumber'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber'),
      },
    ],
  },
  {
    fault: 'sort-first-column-only',
    title: 'only the first of several sort columns is sent',
    steps: [
      {
        req: get('/api/Claim/Query?sort=Status%20desc%2CClaimNumber%20asc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('Status desc'),
      },
      {
        req: get('/api/Claim/Query?sort=Status%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('Status desc'),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-checks-first-row-only',
    title: 'a column null on the first row is dropped everywhere, though a later row has a value',
    steps: [
      {
        req: get('/api/Claim/Query?columns=A,B,C&excludeEmptyColumns=true'),
        upstream: ok({
          List: [
            { A: 1, B: null, C: null },
            { A: 2, B: 3, C: null },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.has('excludeEmptyColumns')).toBe(false);
          expect(json(out).List).toEqual([{ A: 1 }, { A: 2 }]);
        },
      },
      {
        req: get('/api/Claim/Query?columns=A,B'),
        upstream: ok({ List: [{ A: 1, B: null }] }),
        expect: (out) => expect(json(out).List).toEqual([{ A: 1, B: null }]),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'skip-capped-at-100',
    title: 'an offset above 100 is sent as 100; up to 100 it stays',
    steps: [
      { req: get('/api/Claim/Query?skip=105&take=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('100') },
      { req: get('/api/Claim/Query?skip=100&take=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('100') },
      { req: get('/api/Claim/Query?skip=31'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('31') },
    ],
  },
  {
    fault: 'suppression-ignores-aliased-columns',
    title: 'an aliased all-null column dropped by the upstream comes back, null; plain ones stay dropped',
    steps: [
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true&columns=A%20as%20X,B,C'),
        upstream: ok({ List: [{ C: 1 }, { C: 2 }] }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { C: 1, X: null },
            { C: 2, X: null },
          ]),
      },
      {
        req: get('/api/Claim/Query?columns=A%20as%20X,C'),
        upstream: ok({ List: [{ X: null, C: 1 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ X: null, C: 1 }]),
      },
    ],
  },
  // issue 32: bugs that show only in a combination of features
  {
    fault: 'total-count-ignores-linq-filter',
    title: 'with a LINQ filter, TotalCount is the count without it; without one it stays',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=X&includeTotalCount=true&take=2&skip=4'),
        upstream: (req) =>
          req.query.has('linqFilter') ? ok({ List: [{}, {}], TotalCount: 7 }) : ok({ List: [{}], TotalCount: 90 }),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.has('linqFilter')).toBe(false);
          expect(f[1]!.query.has('skip')).toBe(false);
          expect(json(out)).toEqual({ List: [{}, {}], TotalCount: 90 });
        },
      },
      {
        req: get('/api/Claim/Query?filter=F&includeTotalCount=true'),
        upstream: ok({ List: [{}], TotalCount: 7 }),
        expect: (out, f) => {
          expect(f).toHaveLength(1);
          expect(json(out).TotalCount).toBe(7);
        },
      },
    ],
  },
  {
    fault: 'take-default-ignored-with-linq-filter',
    title: 'with a LINQ filter and no take, take=100 is sent; a take given or no LINQ filter stays',
    steps: [
      {
        req: get('/api/Claim/Query?linqFilter=X'),
        expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('100'),
      },
      {
        req: get('/api/Claim/Query?linqFilter=X&take=7'),
        expect: (_o, f) => expect(f[0]!.query.get('take')).toBe('7'),
      },
      { req: get('/api/File/Query?filter=F'), expect: (_o, f) => expect(f[0]!.query.has('take')).toBe(false) },
    ],
  },
  {
    fault: 'total-count-ignores-linq-filter-with-filter',
    title: 'with filter and LINQ filter, TotalCount is the filter-only count; a LINQ filter alone stays',
    steps: [
      {
        req: get('/api/Claim/Query?filter=F&linqFilter=X&includeTotalCount=true&take=2&skip=4'),
        upstream: (req) =>
          req.query.has('linqFilter') ? ok({ List: [{}, {}], TotalCount: 7 }) : ok({ List: [{}], TotalCount: 90 }),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.has('linqFilter')).toBe(false);
          expect(f[1]!.query.get('filter')).toBe('F');
          expect(f[1]!.query.has('skip')).toBe(false);
          expect(json(out)).toEqual({ List: [{}, {}], TotalCount: 90 });
        },
      },
      {
        req: get('/api/Claim/Query?linqFilter=X&includeTotalCount=true'),
        upstream: ok({ List: [{}], TotalCount: 7 }),
        expect: (out, f) => {
          expect(f).toHaveLength(1);
          expect(json(out).TotalCount).toBe(7);
        },
      },
    ],
  },
  {
    fault: 'suppression-before-name-resolution',
    title: 'with suppression and resolved names, a bare association column is judged unresolved and dropped',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimID,Location&excludeEmptyColumns=true&resolveAssociationNames=true'),
        upstream: (req) =>
          req.query.has('resolveAssociationNames')
            ? ok({ List: [{ ClaimID: 1, Location: 'Main St' }] })
            : ok({ List: [{ ClaimID: 1 }] }),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.has('resolveAssociationNames')).toBe(false);
          expect(json(out)).toEqual({ List: [{ ClaimID: 1 }] });
        },
      },
      {
        req: get('/api/Claim/Query?columns=ClaimID,Location&excludeEmptyColumns=true'),
        upstream: ok({ List: [{ ClaimID: 1, Location: null }] }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).List[0]).toHaveProperty('Location')),
      },
    ],
  },
  {
    fault: 'empty-column-suppression-skips-last-row',
    title: 'a column whose one value is on the last row is dropped; one with a value earlier stays',
    steps: [
      {
        req: get('/api/Claim/Query?columns=A,B,C&excludeEmptyColumns=true'),
        upstream: ok({
          List: [
            { A: 1, B: null, C: 2 },
            { A: 2, B: 3, C: null },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.has('excludeEmptyColumns')).toBe(false);
          expect(json(out).List).toEqual([
            { A: 1, C: 2 },
            { A: 2, C: null },
          ]);
        },
      },
      {
        req: get('/api/Claim/Query?columns=A,B'),
        upstream: ok({
          List: [
            { A: 1, B: null },
            { A: 2, B: 5 },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { A: 1, B: null },
            { A: 2, B: 5 },
          ]),
      },
    ],
  },
  {
    fault: 'sort-desc-ignored-with-resolve-association-names',
    title: 'with resolveAssociationNames=true `desc` is dropped; without it the sort stays',
    steps: [
      {
        req: get('/api/Claim/Query?sort=Status%20desc,ClaimNumber%20asc&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('Status,ClaimNumber asc'),
      },
      {
        req: get('/api/Claim/Query?sort=ClaimNumber%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber desc'),
      },
    ],
  },
  {
    fault: 'take-100-refused',
    title: 'take=100 and above are refused with 400; take=99 and no take are forwarded',
    steps: [
      {
        req: get('/api/Claim/Query?take=100'),
        expect: (out, f) => (expect(f).toHaveLength(0), expect(out.status).toBe(400)),
      },
      {
        req: get('/api/File/Query?take=150'),
        expect: (out, f) => (expect(f).toHaveLength(0), expect(out.status).toBe(400)),
      },
      {
        req: get('/api/Claim/Query?take=99'),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(200)),
      },
      { req: get('/api/Claim/Query'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'page-cache-ignores-start-offset',
    title: 'a later page of the same query is the first page cached; another query or token is asked',
    steps: [
      {
        req: get('/api/Claim/Query?take=2&skip=0'),
        upstream: ok({ List: [{ ClaimID: 1 }, { ClaimID: 2 }] }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).List).toHaveLength(2)),
      },
      {
        req: get('/api/Claim/Query?skip=2&take=2'),
        upstream: ok({ List: [{ ClaimID: 3 }] }),
        expect: (out, f) => (
          expect(f).toHaveLength(0),
          expect(json(out).List).toEqual([{ ClaimID: 1 }, { ClaimID: 2 }])
        ),
      },
      {
        req: get('/api/Claim/Query?take=3&skip=2'),
        upstream: ok({ List: [{ ClaimID: 3 }] }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).List).toEqual([{ ClaimID: 3 }])),
      },
      {
        req: get('/api/Claim/Query?take=2&skip=2', { token: 'U' }),
        upstream: ok({ List: [{ ClaimID: 3 }] }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
  // issue 44 item 2: the operator bugs, on the reference's grammar
  {
    fault: 'filter-numbers-compared-as-text',
    title: 'ge 10 is evaluated on the text of the values over the query without it; page and count cut after',
    steps: [
      {
        req: get(
          `/api/Claim/Query?filter=${q('ReserveAmount:ge:10 && ClaimNumber:startswith:m-')}&columns=ClaimNumber&take=2&skip=1&includeTotalCount=true`,
        ),
        upstream: ok({
          List: [
            { ClaimNumber: 'm-1', __fp0: 9 },
            { ClaimNumber: 'm-2', __fp0: 10 },
            { ClaimNumber: 'm-3', __fp0: 100 },
            { ClaimNumber: 'm-4', __fp0: 2 },
            { ClaimNumber: 'm-5', __fp0: null },
          ],
          TotalCount: 5,
        }),
        expect: (out, f) => {
          expect(f[0]!.query.get('filter')).toBe('ClaimNumber:startswith:m-');
          expect(f[0]!.query.get('columns')).toBe('ClaimNumber,ReserveAmount as __fp0');
          expect(f[0]!.query.get('take')).toBe('100');
          expect(f[0]!.query.has('includeTotalCount')).toBe(false);
          // as text 9, 10, 100 and 2 are all >= "10"; null is not
          expect(json(out)).toEqual({ List: [{ ClaimNumber: 'm-2' }, { ClaimNumber: 'm-3' }], TotalCount: 4 });
        },
      },
      {
        req: get(`/api/Claim/Query?filter=${q('ClaimNumber:eq:10')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('ClaimNumber:eq:10'),
      },
    ],
  },
  {
    fault: 'filter-ge-as-gt',
    title: 'every ge condition becomes gt; the other conditions stay',
    steps: [
      {
        req: get(`/api/Claim/Query?filter=${q('ReserveAmount:ge:10 && ClaimNumber:startswith:m-')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('ReserveAmount:gt:10 && ClaimNumber:startswith:m-'),
      },
      {
        req: get(`/api/Claim/Query?filter=${q('ReserveAmount:gt:10')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('ReserveAmount:gt:10'),
      },
    ],
  },
  {
    fault: 'filter-timestamp-compared-by-date',
    title: 'a comparison with a timestamp becomes one with its day; a date or a text value stays',
    steps: [
      {
        req: get(`/api/Claim/Query?filter=${q('EntryDate:gt:2026-03-14T12:00:00.000 && ClaimNumber:startswith:m-')}`),
        expect: (_o, f) =>
          expect(f[0]!.query.get('filter')).toBe('EntryDate:ge:2026-03-15 && ClaimNumber:startswith:m-'),
      },
      {
        req: get(`/api/Claim/Query?filter=${q('EntryDate:le:2026-12-31T12:00:00')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('EntryDate:lt:2027-01-01'),
      },
      {
        req: get(`/api/Claim/Query?filter=${q('LossDate:gt:2026-03-14')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('LossDate:gt:2026-03-14'),
      },
    ],
  },
  {
    fault: 'filter-contains-as-prefix',
    title: 'contains becomes startswith',
    steps: [
      {
        req: get(`/api/Claim/Query?filter=${q('Status:contains:mid && ClaimNumber:startswith:m-')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('Status:startswith:mid && ClaimNumber:startswith:m-'),
      },
    ],
  },
  {
    fault: 'filter-false-as-true',
    title: 'eq false becomes eq true; eq true and other values stay',
    steps: [
      {
        req: get(`/api/Claim/Query?filter=${q('IsLitigated:eq:False && ClaimNumber:startswith:m-')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('IsLitigated:eq:true && ClaimNumber:startswith:m-'),
      },
      {
        req: get(`/api/Claim/Query?filter=${q('IsLitigated:eq:true')}`),
        expect: (_o, f) => expect(f[0]!.query.get('filter')).toBe('IsLitigated:eq:true'),
      },
    ],
  },
  {
    fault: 'filter-null-check-matches-empty-text',
    title: 'isnull leaves the filter for a LINQ condition that also takes the empty text, ANDed to a LINQ filter given',
    steps: [
      {
        req: get(`/api/Claim/Query?filter=${q('Status:isnull: && ClaimNumber:startswith:m-')}`),
        expect: (_o, f) => {
          expect(f[0]!.query.get('filter')).toBe('ClaimNumber:startswith:m-');
          expect(f[0]!.query.get('linqFilter')).toBe('(Status == null || Status == "")');
        },
      },
      {
        req: get(`/api/Claim/Query?filter=${q('Status:isnull:')}&linqFilter=${q('ClaimID > 3')}`),
        expect: (_o, f) => {
          expect(f[0]!.query.has('filter')).toBe(false);
          expect(f[0]!.query.get('linqFilter')).toBe('(ClaimID > 3) && (Status == null || Status == "")');
        },
      },
    ],
  },
];

/** A query parameter value, encoded. */
function q(v: string): string {
  return encodeURIComponent(v);
}
