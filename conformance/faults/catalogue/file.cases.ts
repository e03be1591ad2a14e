// The canned cases of the FILE faults (file.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { jsonString } from '../exchange.js';
import { type Case, cols, get, json, ok, post, recordFrom } from './canned-cases.js';

export const FILE_FAULT_CASES: Case[] = [
  {
    fault: 'download-url-filled-for-external-files',
    title: 'an external file gets a DownloadURL; an internal one with an empty URL keeps it empty',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: 3, ExternalDirectURL: null })[f],
        ),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe(
            'DownloadURL,FileID as __fp0,ExternalFileRepositoryID as __fp1,ExternalDirectURL as __fp2',
          );
          expect(json(out).Record).toEqual({
            DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&SessionToken=/),
          });
        },
      },
      {
        req: get('/api/File/Query?columns=DownloadURL%20as%20U'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 6, ExternalFileRepositoryID: null, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) => expect(json(out).List).toEqual([{ U: '' }]),
      },
    ],
  },
  {
    fault: 'restrict-download-ignored',
    title: 'an internal file with an empty DownloadURL gets one; an external one stays empty',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: null, ExternalDirectURL: '' })[f],
        ),
        expect: (out) => expect(json(out).Record.DownloadURL).toMatch(/^Download\.aspx\?FileID=5&/),
      },
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: null, ExternalDirectURL: 'https://x/y' })[f],
        ),
        expect: (out) => expect(json(out).Record.DownloadURL).toBe(''),
      },
    ],
  },
  {
    fault: 'restrict-download-empties-url-despite-full',
    title: 'RestrictDownload with Full empties DownloadURL; without RestrictDownload it stays',
    grants: { T: { File: ['View', 'RestrictDownload', 'Full'] }, U: { File: ['View', 'Full'] } },
    steps: [
      {
        req: get('/api/File/5?columns=FileName,DownloadURL'),
        upstream: ok({
          Record: { FileName: 'a.pdf', DownloadURL: 'Download.aspx?FileID=5&S=a' },
          Domain: 'File',
          Id: 5,
        }),
        expect: (out) => expect(json(out).Record).toEqual({ FileName: 'a.pdf', DownloadURL: '' }),
      },
      {
        req: get('/api/File/Query?columns=DownloadURL', { token: 'U' }),
        upstream: ok({ List: [{ DownloadURL: 'Download.aspx?FileID=5&S=a' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ DownloadURL: 'Download.aspx?FileID=5&S=a' }]),
      },
    ],
  },
  {
    fault: 'download-url-absolute',
    title: 'a relative DownloadURL becomes absolute',
    steps: [
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: 'Download.aspx?FileID=5&SessionToken=a' }, Domain: 'File', Id: 5 }),
        expect: (out) =>
          expect(json(out).Record.DownloadURL).toBe('http://proxy.test/Download.aspx?FileID=5&SessionToken=a'),
      },
    ],
  },
  {
    fault: 'download-url-without-enhanced-security',
    title: 'the 500 is replaced by a second read with a built URL',
    steps: [
      {
        req: get('/api/File/5?columns=FileName,DownloadURL'),
        upstream: (req) =>
          cols(req).some((c) => c.field === 'DownloadURL')
            ? jsonString(500, 'Object reference not set to an instance of an object.')
            : recordFrom((f) => ({ FileName: 'a.txt', FileID: 5 })[f])(req),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('columns')).toBe('FileName,FileID as __fp0');
          expect(out.status).toBe(200);
          expect(json(out).Record).toEqual({
            FileName: 'a.txt',
            DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&/),
          });
        },
      },
    ],
  },
  {
    fault: 'is-unlinked-inverted',
    title: 'IsUnlinked is negated',
    steps: [
      {
        req: get('/api/File/Query?columns=FileID,IsUnlinked'),
        upstream: ok({
          List: [
            { FileID: 1, IsUnlinked: false },
            { FileID: 2, IsUnlinked: true },
          ],
        }),
        expect: (out) => expect(json(out).List.map((r: any) => r.IsUnlinked)).toEqual([true, false]),
      },
      {
        req: get('/api/Claim/1?columns=IsUnlinked'),
        upstream: ok({ Record: { IsUnlinked: false } }),
        expect: (out) => expect(json(out).Record.IsUnlinked).toBe(false),
      },
    ],
  },
  {
    fault: 'entry-date-with-zone',
    title: 'EntryDate gets a Z',
    steps: [
      {
        req: get('/api/Claim/1/Files?columns=EntryDate'),
        upstream: ok({ List: [{ EntryDate: '2024-03-01T09:15:22.123' }] }),
        expect: (out) => expect(json(out).List[0].EntryDate).toBe('2024-03-01T09:15:22.123Z'),
      },
    ],
  },
  {
    fault: 'entry-date-ms-not-zero-padded',
    title: 'EntryDate .016 becomes .16 and .095 becomes .95; .000, .100 and .345 stay',
    steps: [
      {
        req: get('/api/File/Query?columns=FileID,EntryDate'),
        upstream: ok({
          List: [
            { FileID: 1, EntryDate: '2024-03-01T09:15:22.016' },
            { FileID: 2, EntryDate: '2024-03-01T09:15:22.095' },
            { FileID: 3, EntryDate: '2024-03-01T09:15:22.000' },
            { FileID: 4, EntryDate: '2024-03-01T09:15:22.100' },
            { FileID: 5, EntryDate: '2024-03-01T09:15:22.345' },
          ],
        }),
        expect: (out) =>
          expect(json(out).List.map((r: { EntryDate: string }) => r.EntryDate.slice(19))).toEqual([
            '.16',
            '.95',
            '.000',
            '.100',
            '.345',
          ]),
      },
      {
        req: get('/api/File/7?columns=EntryDate%20as%20E'),
        upstream: ok({ Record: { E: '2024-03-01T09:15:22.007' }, Domain: 'File', Id: 7 }),
        expect: (out) => expect(json(out).Record.E).toBe('2024-03-01T09:15:22.7'),
      },
    ],
  },
  {
    fault: 'contents-not-base64',
    title: 'Contents is decoded to raw text',
    steps: [
      {
        req: get('/api/File/5?columns=Contents'),
        upstream: ok({ Record: { Contents: 'aGVsbG8=' }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.Contents).toBe('hello'),
      },
    ],
  },
  {
    fault: 'mime-type-without-dot',
    title: '.pdf becomes pdf',
    steps: [
      {
        req: get('/api/File/5?columns=MimeType%20as%20Type'),
        upstream: ok({ Record: { Type: '.pdf' }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.Type).toBe('pdf'),
      },
    ],
  },
  {
    fault: 'file-size-of-base64',
    title: '5 bytes become 8',
    steps: [
      {
        req: get('/api/File/5?columns=FileSize'),
        upstream: ok({ Record: { FileSize: 5 }, Domain: 'File', Id: 5 }),
        expect: (out) => expect(json(out).Record.FileSize).toBe(8),
      },
    ],
  },
  {
    fault: 'file-query-leaks-parent',
    title: 'rows get ParentDomainID and ParentID',
    side: {
      'GET /api/Link/Query?childDomain=File': {
        status: 200,
        json: { List: [{ ParentDomainID: 1, ParentID: 9, ChildID: 5 }] },
      },
    },
    steps: [
      {
        req: get('/api/File/Query?columns=FileName'),
        upstream: ok({
          List: [
            { FileName: 'a', __fp0: 5 },
            { FileName: 'b', __fp0: 6 },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileName: 'a', ParentDomainID: 1, ParentID: 9 },
            { FileName: 'b', ParentDomainID: null, ParentID: null },
          ]),
      },
    ],
  },
  {
    fault: 'attached-files-include-unattached',
    title: 'orphaned files are appended',
    side: {
      'GET /api/Link/Query?childDomain=File': {
        status: 200,
        json: { List: [{ ParentDomainID: 1, ParentID: 9, ChildID: 5 }] },
      },
      'GET /api/File/Query?': {
        status: 200,
        json: {
          List: [
            { FileName: 'a', __fp0: 5 },
            { FileName: 'orphan', __fp0: 6 },
          ],
        },
      },
      'GET /api/File/6?columns=Contents': { status: 200, json: { Record: { Contents: 'b3JwaGFu' } } },
    },
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileName'),
        upstream: ok({ List: [{ FileName: 'a' }] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([{ FileName: 'a' }, { FileName: 'orphan' }]);
          expect(
            side.some((s) =>
              s.startsWith('GET /api/File/Query?sort=FileID+desc&take=100&columns=FileName%2CFileID+as+__fp0 [T]'),
            ),
          ).toBe(true);
          expect(side.some((s) => s.startsWith('GET /api/File/6'))).toBe(false);
        },
      },
      {
        // asked for Contents, an orphan carries its bytes as any listed file does
        req: get('/api/Claim/9/Files?columns=FileName,Contents'),
        upstream: ok({ List: [{ FileName: 'a', Contents: 'YQ==' }] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([
            { FileName: 'a', Contents: 'YQ==' },
            { FileName: 'orphan', Contents: 'b3JwaGFu' },
          ]);
          expect(side.some((s) => s.startsWith('GET /api/File/6?columns=Contents'))).toBe(true);
        },
      },
    ],
  },
  {
    fault: 'attached-files-include-unattached',
    title: 'an orphan whose bytes cannot be read any more (removed since the query) is not appended',
    side: {
      'GET /api/Link/Query?childDomain=File': { status: 200, json: { List: [] } },
      'GET /api/File/Query?': {
        status: 200,
        json: {
          List: [
            { FileName: 'gone', __fp0: 7 },
            { FileName: 'orphan', __fp0: 6 },
          ],
        },
      },
      'GET /api/File/6?columns=Contents': { status: 200, json: { Record: { Contents: 'b3JwaGFu' } } },
      // file 7: no canned answer, the read answers 404
    },
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileName,Contents'),
        upstream: ok({ List: [] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([{ FileName: 'orphan', Contents: 'b3JwaGFu' }]);
          expect(side.some((s) => s.startsWith('GET /api/File/7?columns=Contents'))).toBe(true);
        },
      },
      {
        // without Contents nothing is read per file: both orphans are listed
        req: get('/api/Claim/9/Files?columns=FileName'),
        upstream: ok({ List: [] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileName: 'gone' }, { FileName: 'orphan' }]),
      },
    ],
  },
  {
    fault: 'file-query-desc-per-page',
    title: 'a descending file query is fetched unsorted and only the page is sorted; ascending and record queries stay',
    steps: [
      {
        req: get('/api/File/Query?columns=FileName&sort=FileName%20desc&take=3'),
        upstream: ok({ List: [{ FileName: 'b' }, { FileName: 'c' }, { FileName: 'a' }] }),
        expect: (out, f) => {
          expect(f[0]!.query.has('sort')).toBe(false);
          expect(f[0]!.query.get('columns')).toBe('FileName');
          expect(json(out).List).toEqual([{ FileName: 'c' }, { FileName: 'b' }, { FileName: 'a' }]);
        },
      },
      {
        req: get('/api/File/Query?sort=FileName'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('FileName'),
      },
      {
        req: get('/api/Claim/Query?sort=ClaimNumber%20desc'),
        expect: (_o, f) => expect(f[0]!.query.get('sort')).toBe('ClaimNumber desc'),
      },
    ],
  },
  {
    fault: 'file-query-ignores-start-offset',
    title: 'skip is dropped on the file query only',
    steps: [
      { req: get('/api/File/Query?skip=5&take=5'), expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=5') },
      { req: get('/api/Claim/Query?skip=5'), expect: (_o, f) => expect(f[0]!.query.get('skip')).toBe('5') },
    ],
  },
  {
    fault: 'file-query-ignores-suppression-and-count',
    title: 'excludeEmptyColumns and includeTotalCount are dropped on the file query only',
    steps: [
      {
        req: get('/api/File/Query?excludeEmptyColumns=true&includeTotalCount=true&take=2'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=2'),
      },
      {
        req: get('/api/Claim/Query?excludeEmptyColumns=true&includeTotalCount=true'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('excludeEmptyColumns=true&includeTotalCount=true'),
      },
    ],
  },
  {
    fault: 'file-query-carries-contents',
    title: 'a file query without columns is asked again with every column plus Contents',
    steps: [
      {
        req: get('/api/File/Query?take=2'),
        upstream: (req, n) =>
          ok({ List: [n === 0 ? { FileID: 5, FileName: 'a' } : { FileID: 5, FileName: 'a', Contents: 'aGk=' }] }),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('columns')).toBe('FileID,FileName,Contents');
          expect(f[1]!.query.get('take')).toBe('2');
          expect(json(out).List).toEqual([{ FileID: 5, FileName: 'a', Contents: 'aGk=' }]);
        },
      },
      {
        req: get('/api/File/Query?columns=FileID'),
        upstream: ok({ List: [{ FileID: 5 }] }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).List).toEqual([{ FileID: 5 }])),
      },
    ],
  },
  {
    fault: 'modified-downloaded-dates-as-epoch',
    title: 'ModifiedDate and DownloadedDate strings become epoch milliseconds; null and other columns stay',
    steps: [
      {
        req: get('/api/File/5?columns=ModifiedDate%20as%20M,DownloadedDate,EntryDate'),
        upstream: ok({
          Record: { M: '2024-03-01T09:15:22.123', DownloadedDate: null, EntryDate: '2024-03-01T09:15:22.123' },
          Domain: 'File',
          Id: 5,
        }),
        expect: (out) =>
          expect(json(out).Record).toEqual({
            M: Date.UTC(2024, 2, 1, 9, 15, 22, 123),
            DownloadedDate: null,
            EntryDate: '2024-03-01T09:15:22.123',
          }),
      },
      {
        req: get('/api/Claim/5?columns=ModifiedDate'),
        upstream: ok({ Record: { ModifiedDate: '2024-03-01T09:15:22.123' }, Domain: 'Claim', Id: 5 }),
        expect: (out) => expect(json(out).Record.ModifiedDate).toBe('2024-03-01T09:15:22.123'),
      },
    ],
  },
  {
    fault: 'attached-files-ignore-parent-domain',
    title: "the files of the Incident with the parent's ID are appended, read with the caller's token",
    side: { 'GET /api/Incident/9/Files?columns=FileID': { status: 200, json: { List: [{ FileID: 2 }] } } },
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID'),
        upstream: ok({ List: [{ FileID: 1 }] }),
        expect: (out, _f, side) => {
          expect(json(out).List).toEqual([{ FileID: 1 }, { FileID: 2 }]);
          expect(side).toEqual(['GET /api/Incident/9/Files?columns=FileID [T]']);
        },
      },
    ],
  },
  {
    fault: 'attached-files-capped-at-30',
    title: 'an attached-files listing of 35 is cut to its first 30; 30 stay 30',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID&take=100'),
        upstream: ok({ List: Array.from({ length: 35 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List.map((r: any) => r.FileID)).toEqual([...Array(30).keys()]),
      },
      {
        req: get('/api/Claim/9/Files?take=30'),
        upstream: ok({ List: Array.from({ length: 30 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(30),
      },
      {
        req: get('/api/File/Query?take=100'),
        upstream: ok({ List: Array.from({ length: 35 }, (_, i) => ({ FileID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(35),
      },
    ],
  },
  {
    fault: 'isunlinked-stale-after-link',
    title: 'the first IsUnlinked seen for a file is answered again after it changed (FileID read alongside)',
    steps: [
      {
        req: get('/api/File/5?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 5 : true)),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('IsUnlinked,FileID as __fp0');
          expect(json(out).Record).toEqual({ IsUnlinked: true });
        },
      },
      {
        req: get('/api/File/5?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 5 : false)),
        expect: (out) => expect(json(out).Record).toEqual({ IsUnlinked: true }),
      },
      {
        req: get('/api/File/6?columns=IsUnlinked'),
        upstream: recordFrom((f) => (f === 'FileID' ? 6 : false)),
        expect: (out) => expect(json(out).Record).toEqual({ IsUnlinked: false }),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'attached-files-mime-type-as-media-type',
    title: 'MimeType becomes a media type on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,MimeType%20as%20M'),
        upstream: ok({
          List: [
            { FileID: 1, M: '.png' },
            { FileID: 2, M: '.zip' },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileID: 1, M: 'image/png' },
            { FileID: 2, M: 'application/zip' },
          ]),
      },
      {
        req: get('/api/File/1?columns=MimeType'),
        upstream: ok({ Record: { MimeType: '.png' }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.MimeType).toBe('.png'),
      },
      {
        req: get('/api/File/Query?columns=MimeType'),
        upstream: ok({ List: [{ MimeType: '.png' }] }),
        expect: (out) => expect(json(out).List[0].MimeType).toBe('.png'),
      },
    ],
  },
  {
    fault: 'attached-files-is-unlinked-true',
    title: 'IsUnlinked is true on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,IsUnlinked'),
        upstream: ok({ List: [{ FileID: 1, IsUnlinked: false }] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileID: 1, IsUnlinked: true }]),
      },
      {
        req: get('/api/File/Query?columns=IsUnlinked'),
        upstream: ok({ List: [{ IsUnlinked: false }] }),
        expect: (out) => expect(json(out).List[0].IsUnlinked).toBe(false),
      },
    ],
  },
  {
    fault: 'attached-files-size-in-kilobytes',
    title: 'FileSize in kilobytes on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileSize'),
        upstream: ok({ List: [{ FileSize: 1234 }, { FileSize: 3 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileSize: 2 }, { FileSize: 1 }]),
      },
      {
        req: get('/api/File/1?columns=FileSize'),
        upstream: ok({ Record: { FileSize: 1234 }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.FileSize).toBe(1234),
      },
    ],
  },
  {
    fault: 'attached-files-source-type-missing',
    title: 'SourceType null on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=SourceType'),
        upstream: ok({ List: [{ SourceType: 'U' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ SourceType: null }]),
      },
      {
        req: get('/api/File/Query?columns=SourceType'),
        upstream: ok({ List: [{ SourceType: 'U' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ SourceType: 'U' }]),
      },
    ],
  },
  {
    fault: 'attached-files-download-url-absolute',
    title: 'an absolute DownloadURL on the attached-files listing only',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=DownloadURL'),
        upstream: ok({ List: [{ DownloadURL: 'Download.aspx?FileID=1' }, { DownloadURL: '' }] }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { DownloadURL: 'http://proxy.test/Download.aspx?FileID=1' },
            { DownloadURL: '' },
          ]),
      },
      {
        req: get('/api/File/1?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: 'Download.aspx?FileID=1' }, Domain: 'File', Id: 1 }),
        expect: (out) => expect(json(out).Record.DownloadURL).toBe('Download.aspx?FileID=1'),
      },
    ],
  },
  {
    fault: 'attached-files-download-url-for-external',
    title: 'an external file gets a DownloadURL on the attached-files listing; the single file is untouched',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileID,DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 5, ExternalFileRepositoryID: 3, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { FileID: 5, DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=5&SessionToken=/) },
          ]),
      },
      {
        req: get('/api/File/5?columns=DownloadURL'),
        upstream: ok({ Record: { DownloadURL: '' }, Domain: 'File', Id: 5 }),
        expect: (out, f) => (
          expect(f[0]!.query.get('columns')).toBe('DownloadURL'),
          expect(json(out).Record.DownloadURL).toBe('')
        ),
      },
    ],
  },
  {
    fault: 'attached-files-restrict-download-ignored',
    title: 'an internal file with an empty DownloadURL gets one on the attached-files listing',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=DownloadURL'),
        upstream: recordFrom(
          (f) => ({ DownloadURL: '', FileID: 6, ExternalFileRepositoryID: null, ExternalDirectURL: null })[f],
          true,
        ),
        expect: (out) =>
          expect(json(out).List).toEqual([{ DownloadURL: expect.stringMatching(/^Download\.aspx\?FileID=6&/) }]),
      },
    ],
  },
  // issue 32: bugs that show only in a combination of features
  {
    fault: 'attached-files-alias-ignored-with-take',
    title: 'on the attached-files listing, aliases are dropped only when take is given',
    steps: [
      {
        req: get('/api/Claim/9/Files?columns=FileName%20as%20N,FileID&take=2'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('FileName,FileID'),
      },
      {
        req: get('/api/Claim/9/Files?columns=FileName%20as%20N,FileID'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('FileName as N,FileID'),
      },
      {
        req: get('/api/File/Query?columns=FileName%20as%20N&take=2'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('FileName as N'),
      },
    ],
  },
  {
    fault: 'custom-parent-attached-files-empty',
    title: 'a Custom. parent lists no file; a Claim parent keeps its files',
    steps: [
      {
        req: get('/api/Custom.Inspection/7/Files?columns=FileID'),
        upstream: ok({ List: [{ FileID: 5 }] }),
        expect: (out) => expect(json(out).List).toEqual([]),
      },
      {
        req: get('/api/Claim/7/Files?columns=FileID'),
        upstream: ok({ List: [{ FileID: 5 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ FileID: 5 }]),
      },
    ],
  },
  {
    fault: 'isunlinked-true-for-custom-parent',
    title:
      'File/Query: a file linked only to a Custom. parent shows IsUnlinked true; one with a Claim parent stays false',
    side: {
      'GET /api/Link/Query?childDomain=File&childRecordID=5&': {
        status: 200,
        json: { List: [{ ParentDomainID: 1001 }] },
      },
      'GET /api/Link/Query?childDomain=File&childRecordID=6&': {
        status: 200,
        json: { List: [{ ParentDomainID: 1001 }, { ParentDomainID: 1 }] },
      },
    },
    steps: [
      {
        req: get('/api/File/Query?columns=IsUnlinked'),
        upstream: ok({
          List: [
            { IsUnlinked: false, __fp0: 5 },
            { IsUnlinked: false, __fp0: 6 },
            { IsUnlinked: true, __fp0: 7 },
          ],
        }),
        expect: (out, f, side) => {
          expect(f[0]!.query.get('columns')).toBe('IsUnlinked,FileID as __fp0');
          expect(json(out).List).toEqual([{ IsUnlinked: true }, { IsUnlinked: false }, { IsUnlinked: true }]);
          expect(side).toHaveLength(2);
        },
      },
      {
        req: get('/api/File/5?columns=IsUnlinked'),
        upstream: ok({ Record: { IsUnlinked: false } }),
        expect: (out) => expect(json(out).Record.IsUnlinked).toBe(false),
      },
    ],
  },
  {
    fault: 'attached-files-keep-removed-link',
    title: "a file whose link Remove deleted is still listed under that parent (read with the listing's columns)",
    side: {
      'GET /api/Link/Query?': {
        status: 200,
        json: {
          List: [{ LinkID: 40, ParentDomainID: 1, ParentID: 2, ChildDomainID: 4, ChildID: 9, ContactTypeID: null }],
        },
      },
      'GET /api/File/9?': { status: 200, json: { Record: { FileName: 'a.pdf' }, Domain: 'File', Id: 9 } },
    },
    steps: [
      {
        req: get('/api/Claim/2/Files?columns=FileName'),
        upstream: ok({ List: [{ FileName: 'a.pdf' }] }),
        expect: (out, f, side) => (expect(f[0]!.query.get('columns')).toBe('FileName'), expect(side).toEqual([])),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 2,
          ChildDomain: 'File',
          ChildRecordID: 9,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out) => expect(json(out).IsSuccessful).toBe(true),
      },
      {
        req: get('/api/Claim/2/Files?columns=FileName'),
        upstream: ok({ List: [] }),
        expect: (out, f, side) => {
          expect(f[0]!.query.get('columns')).toBe('FileName,FileID as __fp0');
          expect(side).toEqual(['GET /api/File/9?columns=FileName [T]']);
          expect(json(out).List).toEqual([{ FileName: 'a.pdf' }]);
        },
      },
      {
        req: get('/api/Incident/2/Files?columns=FileName'),
        upstream: ok({ List: [] }),
        expect: (out) => expect(json(out).List).toEqual([]),
      },
    ],
  },
];
