// `npm run bench:same-answers -- --a <bin> --b <bin>`: the proof that a change made for speed
// changed no answer. Two reference servers (two checkouts' `reference-server/bin/reference-server.mjs`)
// on copies of one seeded database with the same tokens get the same requests, sent as raw request
// targets; status, headers (Date aside) and body are compared byte for byte. Exit 1 when any differs.
//
// The requests: record reads over users with different grants, column lists (dotted, aliased,
// unknown, reserved names such as `Custom2Code.constructor`), `resolveAssociationNames` values,
// targets (IDs valid and not, other domains, File, a wrong-case and an unknown domain, literal
// routes) and methods; then paths of the routing and query parsing (trailing and doubled slashes,
// encoded, non-ASCII and NUL segments; duplicated, encoded, empty and hash-cut parameters; long URLs).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../reference-server/src/app.js';
import { createUser, issueToken, type NewUser } from '../reference-server/src/auth.js';
import { seedDemo } from '../reference-server/src/seed.js';
import { startReferenceProcess } from '../conformance/src/targets/reference-process.js';

const HELP = `usage: npm run bench:same-answers -- --a <bin> --b <bin> [--b-args '<json array>']

  --a <bin>        one reference server (a checkout's reference-server/bin/reference-server.mjs)
  --b <bin>        the other
  --b-args <json>  extra command-line arguments of the second server, as a JSON array; e.g.
                   '["--enhanced-session-security","off"]' shows that the comparison sees a change
  -h, --help       this text

Exit 0 when every answer is the same, 1 when any differs (the first 5 are printed).
`;

interface Answer {
  status: number;
  headers: string;
  body: Buffer;
}

/** One request with `target` as the request target, exactly as given (no URL normalisation). */
function send(base: string, method: string, target: string, token: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const u = new URL(base);
    const req = http.request(
      { host: u.hostname, port: u.port, path: target, method, headers: { Token: token }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const h: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (res.rawHeaders[i]!.toLowerCase() !== 'date') h.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          done({ status: res.statusCode!, headers: h.join('\n'), body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', fail);
    req.end();
  });
}

const COLUMNS = [
  undefined,
  '',
  'ClaimNumber',
  'ClaimNumber,Location.Name',
  'Location.Name,Location.City,ClaimNumber',
  'ClaimNumber as N,Location.Name as L',
  'Custom2Code.constructor',
  'Custom2Code.Description',
  'Custom2Code.__proto__',
  'toString',
  'Nope',
  'ClaimNumber,,',
  'Location.Nope',
  'ClaimID,ClaimNumber,ClaimantName,Status,LossDate,ReserveAmount',
  'FileID,FileName,Contents',
  'FileName,DownloadURL',
  'Name,City',
  'Severity.Description,InspectionID',
];
const RESOLVES = [undefined, 'true', 'maybe'];
const METHODS = ['GET', 'HEAD', 'POST', 'DELETE'];
const TARGETS = (fileId: number) => [
  ...[1, 2, 3, 999999, 0, -1, 'abc', '1.5', '9007199254740993'].map((id) => `Claim/${id}`),
  'Location/1',
  'Custom.Inspection/1',
  `File/${fileId}`,
  'claim/1',
  'Nope/1',
  'Link/Upsert',
];
const RAW_PATHS = [
  '/api/Claim/1/',
  '/api/Claim//1',
  '//api/Claim/1',
  '/api/Claim/1/Files',
  '/api/Claim/1/Files/',
  '/api/Claim/Query',
  '/api/Claim/Query/',
  '/api/Claim/Query?take=2&skip=1',
  '/api/Claim/Query?take=2&take=3',
  '/api/Claim/Query?take=%32',
  '/api/Claim/Query?ta%6Be=2',
  '/api/Claim/Query?take=2#x',
  '/api/Claim/Query?filter=Status:eq:Open&sort=ClaimNumber%20desc&take=3',
  '/api/Claim/Query?columns=ClaimNumber&columns=Status&take=2',
  '/api/Claim/1?columns=ClaimNumber&columns=Status',
  '/api/Claim/1?columns=Claim%4Eumber',
  '/api/Claim/1?columns=ClaimNumber+',
  '/api/Claim/1?resolveAssociationNames',
  '/api/Claim/1?=x',
  '/api/Claim/1?&&',
  '/api/Claim/%31',
  '/api/Cl%61im/1',
  '/api/Claim/1%2F',
  '/api/Claim/%C3%A9',
  '/api/%00/1',
  '/api/Domains',
  '/api/Domains/',
  '/api/Link/Upsert',
  '/api/Link/Query',
  '/api/Link/Query?parentDomain=Claim&parentId=1',
  '/api/Quotes/Proposals/1/BindStatus',
  '/api/Quotes/Proposals/1/Schedules/ProposalLocation/UpsertMulti',
  '/api/Quotes/Proposals/1/Schedules/ProposalLocation/5',
  '/api',
  '/api/',
  '/health',
  '/health/',
  '/nope',
  `/api/Claim/1?columns=${'ClaimNumber,'.repeat(90)}ClaimNumber`,
  `/api/Claim/1?columns=${'ClaimNumber,'.repeat(900)}Status`,
  `/api/Claim/1?columns=${'%C3%A9'.repeat(1200)}`,
];

/** The comparison; the exit code. */
async function main(): Promise<number> {
  const { values: argv } = parseArgs({
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      'b-args': { type: 'string', default: '[]' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (argv.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!argv.a || !argv.b) {
    process.stderr.write(`bench:same-answers: --a and --b are required\n${HELP}`);
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rflps-same-answers-'));
  try {
    const file = join(dir, 'seed.db');
    const c = createApp({ dbPath: file, bindWorker: false, log: () => {} });
    seedDemo(c.deps);
    const expires = new Date(Date.now() + 86400_000);
    const token = (name: string, grants?: NewUser['grants']) =>
      issueToken(c.deps, createUser(c.deps.db, { name, grants }), { expires }).token;
    const users: Record<string, string> = {
      admin: token('same-admin'),
      viewClaim: token('same-vc', { Claim: ['View'] }),
      viewClaimLoc: token('same-vcl', { Claim: ['View'], Location: ['View'] }),
      editOnly: token('same-edit', { Claim: ['Edit'] }),
      restricted: token('same-rd', { '*': ['View'], File: ['View', 'RestrictDownload'] }),
      bad: 'not-a-token',
    };
    const fileId = (c.deps.db.prepare('SELECT min(FileID) AS id FROM "File"').get() as { id: number }).id;
    c.close();
    for (const side of ['a', 'b'])
      for (const suffix of ['', '-wal'])
        try {
          copyFileSync(file + suffix, join(dir, `${side}.db${suffix}`));
        } catch {
          // no WAL file: the database is whole in the main file
        }
    const A = await startReferenceProcess({
      bin: resolve(argv.a),
      db: join(dir, 'a.db'),
      args: ['--log-level', 'warn'],
    });
    const B = await startReferenceProcess({
      bin: resolve(argv.b),
      db: join(dir, 'b.db'),
      args: ['--log-level', 'warn', ...(JSON.parse(argv['b-args']) as string[])],
    });
    let n = 0;
    let differ = 0;
    const statuses = new Map<number, number>();
    const compare = async (method: string, target: string, user: string) => {
      const [a, b] = await Promise.all([
        send(A.url, method, target, users[user]!),
        send(B.url, method, target, users[user]!),
      ]);
      n++;
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (a.status === b.status && a.headers === b.headers && a.body.equals(b.body)) return;
      differ++;
      if (differ <= 5)
        console.log(
          `DIFFER ${method} ${target.slice(0, 120)} (${user}): ${a.status} vs ${b.status}\n${a.headers}\n--\n${b.headers}\n` +
            `${a.body.toString().slice(0, 200)}\n--\n${b.body.toString().slice(0, 200)}\n`,
        );
    };
    try {
      for (const t of TARGETS(fileId))
        for (const col of COLUMNS)
          for (const r of RESOLVES)
            for (const user of Object.keys(users))
              for (const m of METHODS) {
                // other methods once, as the admin with no parameters; 'maybe' as the admin only
                if (m !== 'GET' && (user !== 'admin' || col !== undefined || r !== undefined)) continue;
                if (r === 'maybe' && user !== 'admin') continue;
                const q = new URLSearchParams();
                if (col !== undefined) q.set('columns', col);
                if (r !== undefined) q.set('resolveAssociationNames', r);
                await compare(m, `/api/${t}${q.size ? '?' + q.toString() : ''}`, user);
              }
      for (const target of RAW_PATHS)
        for (const user of Object.keys(users))
          for (const m of [...METHODS, 'PUT']) if (m === 'GET' || user === 'admin') await compare(m, target, user);
    } finally {
      await A.stop();
      await B.stop();
    }
    console.log(`${n} requests, ${differ} differ; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    return differ === 0 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
