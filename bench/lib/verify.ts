// Checks that file bytes are read only when Contents is asked for: runs the reference app in
// process on an in-memory database and records the SQL of every statement executed per request
// (through the better-sqlite3 Statement prototype, so statement caching cannot hide one).
import { createApp } from '../../reference-server/src/app.js';
import { createUser, issueToken } from '../../reference-server/src/auth.js';
import { insertFile } from '../../reference-server/src/areas/files.js';

export interface VerifyResult {
  name: string;
  ok: boolean;
  detail?: string;
}

type Exec = (this: { source: string }, ...args: unknown[]) => unknown;

export async function verifyNoBytesWithoutContents(): Promise<VerifyResult[]> {
  const created = createApp({ bindWorker: false, log: () => {} });
  const { deps, app } = created;
  const userId = createUser(deps.db, { name: 'verify' });
  const { token } = issueToken(deps, userId);
  const fileId = insertFile(deps, { fileName: 'v.bin', contents: new Uint8Array(1024) });
  const proto = Object.getPrototypeOf(deps.db.prepare('SELECT 1')) as Record<'all' | 'get' | 'iterate', Exec>;
  const saved = { all: proto.all, get: proto.get, iterate: proto.iterate };
  let seen: string[] = [];
  for (const k of ['all', 'get', 'iterate'] as const) {
    const orig = saved[k];
    proto[k] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source);
      return orig.apply(this, args);
    };
  }
  const readsBytes = async (path: string) => {
    seen = [];
    const r = await app.request(path, { headers: { Token: token } });
    const body = (await r.json()) as Record<string, unknown>;
    return { status: r.status, bytes: seen.some((s) => /file_contents/i.test(s)), body };
  };
  const cases: Array<[string, string, boolean]> = [
    ['GET /api/File/{id}, default columns', `/api/File/${fileId}`, false],
    [
      'GET /api/File/{id}?columns=FileID,FileName,FileSize',
      `/api/File/${fileId}?columns=FileID,FileName,FileSize`,
      false,
    ],
    ['GET /api/File/Query, default columns', `/api/File/Query`, false],
    [
      'GET /api/File/{id}?columns=FileID,Contents (control: reads the bytes)',
      `/api/File/${fileId}?columns=FileID,Contents`,
      true,
    ],
  ];
  const out: VerifyResult[] = [];
  try {
    for (const [name, path, expected] of cases) {
      const r = await readsBytes(path);
      out.push({
        name: `file bytes ${expected ? 'read' : 'not read'}: ${name}`,
        ok: r.status === 200 && r.bytes === expected,
        detail: `HTTP ${r.status}, file_contents ${r.bytes ? 'queried' : 'not queried'}`,
      });
    }
  } finally {
    Object.assign(proto, saved);
    created.close();
  }
  return out;
}
