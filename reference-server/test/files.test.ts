// Files (spec 2.2, 4.3): GET /api/{domain}/{id}/Files, GET /api/File/Query, GET /api/File/{id}.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enc, expectDocumented, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

const ALL_FILE_COLUMNS = [
  'FileID',
  'FileName',
  'Description',
  'MimeType',
  'FileSize',
  'EntryDate',
  'EntryUserID',
  'ModifiedDate',
  'ModifiedUserID',
  'DownloadedDate',
  'DownloadedUserID',
  'DocumentStatusID',
  'SourceType',
  'IsUnlinked',
  'UnlinkedAccessMode',
  'Contents',
  'DownloadURL',
];
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$/;
const file = (params: Record<string, unknown> = {}) =>
  h.state('a file', {
    kind: 'internal',
    linked: true,
    fileName: 'hello.txt',
    description: 'Greeting',
    contentsBase64: 'aGVsbG8=',
    ...params,
  });

describe('GET /api/File/{id}', () => {
  it('FILE-001 FILE-009 GEN-002 every file column can be requested; Record, Domain File, Id', async () => {
    const f = await file();
    const r = await h.get(`/api/File/${f.fileId}?columns=${enc(ALL_FILE_COLUMNS.join(','))}`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ Domain: 'File', Id: f.fileId });
    expect(Object.keys(r.json.Record)).toEqual(ALL_FILE_COLUMNS);
    expectDocumented(r, 'get', '/api/File/{id}');
  });

  it('FILE-002 FILE-003 FILE-004 FILE-005 FILE-019 values and formats', async () => {
    const f = await file({
      fileName: 'Report.Final.PDF',
      contentsBase64: Buffer.from('0123456789').toString('base64'),
    });
    const rec = (
      await h.get(`/api/File/${f.fileId}?columns=${enc(ALL_FILE_COLUMNS.filter((c) => c !== 'Contents').join(','))}`)
    ).json.Record;
    expect(rec).toMatchObject({
      FileID: f.fileId,
      FileName: 'Report.Final.PDF',
      Description: 'Greeting',
      MimeType: '.PDF',
      FileSize: 10,
      SourceType: 'U',
    });
    expect(f.mimeType).toBe('.PDF');
    expect(rec.EntryDate).toMatch(TS);
    expect(Number.isInteger(rec.EntryUserID)).toBe(true);
    expect(rec.ModifiedDate).toBeNull();
    expect(rec.DocumentStatusID).toBeNull();
    expect(Number.isInteger(rec.UnlinkedAccessMode)).toBe(true);
  });

  it('FILE-010 AUTH-003 Contents holds the stored bytes, base64, under token authentication', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    const f = await file({ fileName: 'bin.dat', contentsBase64: bytes.toString('base64') });
    const r = await h.get(`/api/File/${f.fileId}?columns=Contents`);
    expect(Buffer.from(r.json.Record.Contents, 'base64')).toEqual(bytes);
  });

  it('Contents is left out unless asked for', async () => {
    const f = await file();
    const rec = (await h.get(`/api/File/${f.fileId}`)).json.Record;
    expect(rec).not.toHaveProperty('Contents');
    expect(rec).not.toHaveProperty('DownloadURL');
  });

  it('FILE-006 IsUnlinked is false for a linked file, true for an orphan', async () => {
    const linked = await file();
    const orphan = await file({ linked: false });
    expect((await h.get(`/api/File/${linked.fileId}?columns=IsUnlinked`)).json.Record.IsUnlinked).toBe(false);
    expect((await h.get(`/api/File/${orphan.fileId}?columns=IsUnlinked`)).json.Record.IsUnlinked).toBe(true);
  });

  it('REC-003 a missing file is 404 RecordNotFound; a bad id is 400', async () => {
    expectProblem(await h.get('/api/File/424242'), 404, 'RecordNotFound');
    expectProblem(await h.get('/api/File/x1'), 400, 'MalformedRequest');
  });
});

describe('DownloadURL', () => {
  it('FILE-013 relative web-application link, not an /api path', async () => {
    const f = await file();
    const url = (await h.get(`/api/File/${f.fileId}?columns=DownloadURL`)).json.Record.DownloadURL as string;
    expect(url).toMatch(new RegExp(`^Download\\.aspx\\?FileID=${f.fileId}&SessionToken=[^&]+$`));
    expect(url).not.toMatch(/^[a-z]+:|^\/|\/api\//i);
  });

  it('FILE-015 empty for external files', async () => {
    const a = await file({ kind: 'externalDirectURL' });
    const b = await file({ kind: 'externalRepository' });
    for (const id of [a.fileId, b.fileId])
      expect((await h.get(`/api/File/${id}?columns=DownloadURL`)).json.Record.DownloadURL).toBe('');
    const q = await h.get(`/api/File/Query?columns=FileID,DownloadURL`);
    expect(q.json.List.map((x: any) => x.DownloadURL)).toEqual(['', '']);
  });

  it('FILE-016 empty with RestrictDownload without Full, filled with Full too', async () => {
    const f = await file();
    const restricted = h.userToken({ File: ['View', 'RestrictDownload'] });
    const full = h.userToken({ File: ['View', 'RestrictDownload', 'Full'] });
    expect((await h.get(`/api/File/${f.fileId}?columns=DownloadURL`, restricted)).json.Record.DownloadURL).toBe('');
    expect((await h.get(`/api/File/Query?columns=DownloadURL`, restricted)).json.List[0].DownloadURL).toBe('');
    expect((await h.get(`/api/File/${f.fileId}?columns=DownloadURL`, full)).json.Record.DownloadURL).toMatch(
      /^Download\.aspx\?/,
    );
  });

  it('FILE-017 FILE-020 with enhanced session ID security off: HTTP 500 with a JSON string', async () => {
    const f = await file();
    await h.state('a setting', { name: 'Service.EnableEnhancedSessionIDSecurity', value: false });
    for (const path of [
      `/api/File/${f.fileId}?columns=DownloadURL`,
      '/api/File/Query?columns=FileID,DownloadURL',
      `/api/Claim/${f.parentId}/Files?columns=DownloadURL`,
    ]) {
      const r = await h.get(path);
      expect(r.status).toBe(500);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.json).toBe('Object reference not set to an instance of an object.');
    }
    // Other columns still work.
    expect((await h.get(`/api/File/${f.fileId}?columns=FileName`)).status).toBe(200);
  });
});

describe('GET /api/File/Query', () => {
  it('FILE-008 GEN-002 lists files across the system, orphans included, without parent information', async () => {
    const a = await file();
    const b = await file({ linked: false, fileName: 'orphan.docx' });
    const r = await h.get('/api/File/Query');
    expect(r.json.List.map((x: any) => x.FileID)).toEqual([a.fileId, b.fileId]);
    for (const row of r.json.List) {
      expect(Object.keys(row).some((k) => /Parent/i.test(k))).toBe(false);
      expect(row).not.toHaveProperty('Contents');
    }
    expectDocumented(r, 'get', '/api/File/Query');
  });

  it('QRY-008 sort EntryDate desc', async () => {
    let now = Date.parse('2026-01-01T10:00:00.000Z');
    h.close();
    h = harness({ clock: () => new Date((now += 1000)) });
    const a = await file();
    const b = await file();
    const r = await h.get(`/api/File/Query?columns=FileID,EntryDate&sort=${enc('EntryDate desc')}`);
    expect(r.json.List.map((x: any) => x.FileID)).toEqual([b.fileId, a.fileId]);
  });

  it('QRY-020 filters on file columns, including computed ones', async () => {
    const a = await file({ fileName: 'a.pdf' });
    await file({ fileName: 'b.png', linked: false });
    expect((await h.get(`/api/File/Query?columns=FileID&filter=${enc('MimeType:eq:.pdf')}`)).json.List).toEqual([
      { FileID: a.fileId },
    ]);
    expect((await h.get(`/api/File/Query?columns=FileID&filter=${enc('IsUnlinked:eq:false')}`)).json.List).toEqual([
      { FileID: a.fileId },
    ]);
  });
});

describe('GET /api/{domain}/{id}/Files', () => {
  it('FILE-007 GEN-002 lists exactly the files linked to that parent', async () => {
    const r1 = await h.state('a record with files', {
      files: [
        { fileName: 'a.txt', contentsBase64: 'YQ==' },
        { fileName: 'b.png', contentsBase64: 'Yg==' },
      ],
    });
    await h.state('a record with files', { files: [{ fileName: 'c.txt', contentsBase64: 'Yw==' }] });
    await file({ linked: false });
    const r = await h.get(`/api/Claim/${r1.id}/Files?columns=FileID,FileName`);
    expect(r.status).toBe(200);
    expect(r.json.List).toEqual([
      { FileID: r1.fileIds[0], FileName: 'a.txt' },
      { FileID: r1.fileIds[1], FileName: 'b.png' },
    ]);
    expectDocumented(r, 'get', '/api/{domain}/{id}/Files');
  });

  it('FILE-011 Contents is accepted on the listing', async () => {
    const r1 = await h.state('a record with files', {
      files: [
        { fileName: 'a.txt', contentsBase64: 'YQ==' },
        { fileName: 'b.txt', contentsBase64: 'YmI=' },
      ],
    });
    const r = await h.get(`/api/Claim/${r1.id}/Files?columns=FileID,Contents`);
    expect(r.json.List.map((x: any) => x.Contents)).toEqual(['YQ==', 'YmI=']);
  });

  it('QRY-005 FILE-018 take, sort and skip on the listing', async () => {
    const r1 = await h.state('a record with files', {
      files: ['a', 'b', 'c'].map((n) => ({ fileName: `${n}.txt`, contentsBase64: 'YQ==' })),
    });
    const list = (q: string) =>
      h.get(`/api/Claim/${r1.id}/Files?columns=FileName&${q}`).then((r) => r.json.List.map((x: any) => x.FileName));
    expect(await list('take=2')).toEqual(['a.txt', 'b.txt']);
    expect(await list(`sort=${enc('FileName desc')}`)).toEqual(['c.txt', 'b.txt', 'a.txt']);
    expect(await list('skip=1&take=1')).toEqual(['b.txt']);
    expectProblem(await h.get(`/api/Claim/${r1.id}/Files?take=0`), 400, 'MalformedRequest');
  });

  it('works for a custom-domain parent', async () => {
    const r1 = await h.state('a record with files', {
      domain: 'Custom.Inspection',
      files: [{ fileName: 'i.jpg', contentsBase64: 'YQ==' }],
    });
    expect((await h.get(`/api/Custom.Inspection/${r1.id}/Files?columns=FileID`)).json.List).toEqual([
      { FileID: r1.fileIds[0] },
    ]);
  });

  it('DOM-010 REC-003 unknown domain 404, missing parent 404, bad id 400, no View 403', async () => {
    expectProblem(await h.get('/api/claim/1/Files'), 404, 'UnknownDomain');
    expectProblem(await h.get('/api/Claim/99999/Files'), 404, 'RecordNotFound');
    expectProblem(await h.get('/api/Claim/abc/Files'), 400, 'MalformedRequest');
    const r1 = await h.state('a record with files', { files: [] });
    expectProblem(await h.get(`/api/Claim/${r1.id}/Files`, h.userToken({ Claim: ['View'] })), 403, 'Forbidden');
  });
});
