// The server over a real HTTP port (@hono/node-server on port 0) with a real SQLite file (WAL).
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { createApp, type CreatedApp } from '../src/app.js';
import { readResponse } from './support/response.js';

let dir: string;
let dbFile: string;
let created: CreatedApp;
let server: ReturnType<typeof serve>;
let base: string;

async function req(path: string, init: RequestInit & { token?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('Token', init.token);
  const r = await fetch(base + path, { ...init, headers });
  return readResponse(r);
}
const state = async (name: string, params: Record<string, unknown>, action = 'setup') =>
  (
    await req('/_provider-states', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ state: name, params: { setupId: `h-${name}`, ...params }, action }),
    })
  ).json;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rflps-http-'));
  dbFile = join(dir, 'reference.db');
  created = createApp({ dbPath: dbFile, providerStates: true, log: () => {} });
  server = await new Promise((resolve) => {
    const s = serve({ fetch: created.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  created.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('real HTTP + SQLite file', () => {
  it('the database file is in WAL mode', () => {
    expect(existsSync(dbFile)).toBe(true);
    expect(created.deps.db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('VER-001 GET /health', async () => {
    const r = await req('/health');
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('ok');
  });

  it('AUTH-001 REC-001 COL-004 a provider-state record is read through the wire with the column language', async () => {
    const u = await state('a user', {});
    const rec = await state('a record with associations', {});
    const r = await req(
      `/api/Claim/${rec.id}?columns=${encodeURIComponent(`${rec.textField} as N, Location.City, Custom2Code.Code`)}`,
      { token: u.token },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.json).toEqual({
      Record: { N: rec.textValue, 'Location.City': rec.associatedPropertyValue, 'Custom2Code.Code': rec.codedCode },
      Domain: 'Claim',
      Id: rec.id,
    });
    // The write is on disk: a second connection sees it.
    const other = new Database(dbFile, { readonly: true });
    expect(other.prepare('SELECT ClaimNumber FROM Claim WHERE ClaimID = ?').get(rec.id)).toEqual({
      ClaimNumber: rec.textValue,
    });
    other.close();
  });

  it('AUTH-011 401 problem through the wire', async () => {
    const r = await req('/api/Domains');
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.json.code).toBe('Unauthenticated');
  });

  it('LINK-013 a link upsert and query over HTTP', async () => {
    const u = await state('a user', {});
    const c = await state('a contact', {});
    const p = await state('a link parent', {});
    const up = await req('/api/Link/Upsert', {
      method: 'POST',
      token: u.token,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ParentDomain: 'Claim',
        ParentRecordID: p.id,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
        Relationship: 'ADJ',
      }),
    });
    expect(up.json.IsSuccessful).toBe(true);
    const q = await req(`/api/Link/Query?childDomain=Contact&childRecordID=${c.contactId}&columns=ParentID`, {
      token: u.token,
    });
    expect(q.json.List).toEqual([{ ParentID: p.id }]);
  });

  it('FILE-010 Contents round-trips binary bytes over HTTP', async () => {
    const u = await state('a user', { grants: { File: ['View'] } });
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const f = await state('a file', {
      kind: 'internal',
      linked: false,
      fileName: 'all.bin',
      contentsBase64: bytes.toString('base64'),
    });
    const r = await req(`/api/File/${f.fileId}?columns=Contents,FileSize,MimeType`, { token: u.token });
    expect(r.json.Record).toEqual({ Contents: bytes.toString('base64'), FileSize: 256, MimeType: '.bin' });
  });

  it('LIM-001 414 for a long URL and 413 for a large body through node:http', async () => {
    const u = await state('a user', {});
    const long = await req('/api/Claim/Query?columns=' + 'A'.repeat(10_050), { token: u.token });
    expect(long.status).toBe(414);
    expect(long.json.code).toBe('UriTooLong');
    const big = await req('/api/Link/Upsert', {
      method: 'POST',
      token: u.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{"x":"' + 'y'.repeat(10 * 1024 * 1024 + 10) + '"}',
    });
    expect(big.status).toBe(413);
    expect(big.json.code).toBe('PayloadTooLarge');
  });

  it('GEN-004 malformed JSON over HTTP is 400', async () => {
    const u = await state('a user', {});
    const r = await req('/api/Link/Remove', {
      method: 'POST',
      token: u.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{nope',
    });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('MalformedRequest');
  });
});
