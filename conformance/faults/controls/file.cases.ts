// The canned cases of the FILE controls (file.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { makeResponse } from '../exchange.js';
import { type Case, get, json, ok, status } from './canned-cases.js';

const fileRecord = (rec: Record<string, unknown>) => ok({ Record: rec, Domain: 'File', Id: 5 });

export const FILE_CONTROL_CASES: Record<string, Case[]> = {
  'server-error-body-object': [
    {
      req: get('/api/File/5?columns=FileID,DownloadURL'),
      upstream: makeResponse(500, 'Object reference not set to an instance of an object.'),
      expect(out) {
        expect(out.status).toBe(500);
        expect(json(out)).toMatchObject({ message: 'Object reference not set.' });
      },
    },
    { req: get('/api/File/5'), upstream: fileRecord({ FileID: 5 }), expect: status(200) },
  ],
  'server-error-body-empty': [
    {
      req: get('/api/File/5?columns=FileID,DownloadURL'),
      upstream: makeResponse(500, 'Object reference not set to an instance of an object.'),
      expect(out) {
        expect(out.status).toBe(500);
        expect(out.body.length).toBe(0);
      },
    },
    { req: get('/api/File/5'), upstream: fileRecord({ FileID: 5 }), expect: status(200) },
  ],
  'file-user-ids-as-strings': [
    {
      req: get('/api/File/5?columns=EntryUserID as U,ModifiedUserID'),
      upstream: fileRecord({ U: 3, ModifiedUserID: null }),
      expect: (out) => expect(json(out).Record).toEqual({ U: 'user-3', ModifiedUserID: null }),
    },
    {
      req: get('/api/Claim/5?columns=EntryUserID'),
      upstream: ok({ Record: { EntryUserID: 3 }, Domain: 'Claim', Id: 5 }),
      expect: (out) => expect(json(out).Record.EntryUserID).toBe(3),
    },
  ],
  'file-dates-with-zone': [
    {
      req: get('/api/File/Query?columns=ModifiedDate,EntryDate'),
      upstream: ok({ List: [{ ModifiedDate: '2026-01-01T00:00:00.000', EntryDate: '2026-01-01T00:00:00.000' }] }),
      expect: (out) =>
        expect(json(out).List[0]).toEqual({
          ModifiedDate: '2026-01-01T00:00:00.000Z',
          EntryDate: '2026-01-01T00:00:00.000',
        }),
    },
  ],
  'file-dates-seven-fraction-digits': [
    {
      req: get('/api/Claim/5/Files?columns=EntryDate'),
      upstream: ok({ List: [{ EntryDate: '2026-01-01T00:00:00.123' }] }),
      expect: (out) => expect(json(out).List[0].EntryDate).toBe('2026-01-01T00:00:00.1230000'),
    },
  ],
  'file-entry-date-short-fraction': [
    {
      req: get('/api/File/Query?columns=EntryDate'),
      upstream: ok({
        List: ['.500', '.160', '.000', '.100', '.016', '.345', '.010'].map((f) => ({
          EntryDate: `2026-01-01T00:00:00${f}`,
        })),
      }),
      expect: (out) =>
        expect(json(out).List.map((r: { EntryDate: string }) => r.EntryDate.slice(19))).toEqual([
          '.5',
          '.16',
          '.0',
          '.1',
          '.016',
          '.345',
          '.01',
        ]),
    },
  ],
  'document-status-as-code': [
    {
      req: get('/api/File/5?columns=DocumentStatusID'),
      upstream: fileRecord({ DocumentStatusID: 2 }),
      expect: (out) => expect(json(out).Record.DocumentStatusID).toBe('DS2'),
    },
  ],
  'unlinked-access-mode-as-name': [
    {
      req: get('/api/File/5?columns=UnlinkedAccessMode'),
      upstream: fileRecord({ UnlinkedAccessMode: 0 }),
      expect: (out) => expect(json(out).Record.UnlinkedAccessMode).toBe('Mode0'),
    },
  ],
  'download-url-other-shape': [
    {
      req: get('/api/File/5?columns=DownloadURL'),
      upstream: fileRecord({ DownloadURL: 'Download.aspx?FileID=5&SessionToken=abc' }),
      expect: (out) => expect(json(out).Record.DownloadURL).toMatch(/^Documents\/Download\/5\?s=/),
    },
    {
      req: get('/api/File/5?columns=DownloadURL'),
      upstream: fileRecord({ DownloadURL: '' }),
      expect: (out) => expect(json(out).Record.DownloadURL).toBe(''),
    },
  ],
  'external-columns-unknown': [
    {
      req: get('/api/File/5?columns=FileID,ExternalDirectURL'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
  ],
  'attached-files-without-sort-skip': [
    {
      req: get('/api/Claim/1/Files?sort=FileID&skip=1&take=2'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('take=2'),
    },
  ],
  'attached-files-newest-first': [
    {
      req: get('/api/Claim/1/Files?take=2'),
      upstream: ok({ List: [{ FileID: 1 }, { FileID: 2 }, { FileID: 3 }] }),
      expect: (out, f) => {
        expect(f[0]!.query.get('take')).toBe('100');
        expect(json(out).List).toEqual([{ FileID: 3 }, { FileID: 2 }]);
      },
    },
    { req: get('/api/Claim/1/Files?take=0'), expect: (_out, f) => expect(f[0]!.query.get('take')).toBe('0') },
  ],
};
