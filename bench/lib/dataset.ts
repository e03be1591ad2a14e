// Builds the benchmark databases before any server starts: the schema comes from the reference
// server itself (createApp against the file, then closed), the rows are bulk-loaded with
// better-sqlite3 directly (one transaction, one prepared statement per table).
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { createApp } from '../../reference-server/src/app.js';
import { createUser, issueToken } from '../../reference-server/src/auth.js';
import { insertFile } from '../../reference-server/src/areas/files.js';
import { insertProposal } from '../../reference-server/src/proposals/create.js';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

const STATUSES = ['Open', 'Closed', 'Pending', 'Reopened', 'Denied'] as const;

export interface Dataset {
  file: string;
  token: string;
  claims: number;
  /** claims with Status = 'Open' (the Query scenario's filter) */
  openClaims: number;
  locations: number;
  /** FileID of the file with `fileBytes` of contents (0 when none) */
  fileId: number;
  fileBytes: number;
  /** a Quote proposal used only by the UpsertMulti scenario (0 when none) */
  proposalId: number;
  loadMs: number;
  dbBytes: number;
}

/** A seeded random number in [0, 1): pure-rand's xoroshiro128+, so runs replay from their seed. */
function prng(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  return () => uniformFloat64(rng);
}

const FIRST = ['Jane', 'John', 'Maria', 'Sam', 'Ana', 'Li', 'Omar', 'Eva', 'Raj', 'Kim', 'Tom', 'Zoe'];
const LAST = ['Doe', 'Roe', 'Lopez', 'Lee', 'Silva', 'Chen', 'Haddad', 'Berg', 'Patel', 'Park', 'Nash', 'Ito'];
const DAY0 = Date.UTC(2000, 0, 1);
const DAYS = 9131; // 2000-01-01 .. 2024-12-31

export interface BuildOptions {
  file: string;
  claims: number;
  locations?: number;
  /** bytes of the one stored file (0: no file) */
  fileBytes?: number;
  /** also create the UpsertMulti proposal */
  proposal?: boolean;
}

export function buildDataset(o: BuildOptions): Dataset {
  const t0 = performance.now();
  for (const suffix of ['', '-wal', '-shm']) rmSync(o.file + suffix, { force: true });
  // 1. schema, user, token, file and proposal through the server's own code
  const created = createApp({ dbPath: o.file, bindWorker: false, log: () => {} });
  const { deps } = created;
  const userId = createUser(deps.db, { account: 'bench', name: 'bench', password: 'bench' });
  const { token } = issueToken(deps, userId, { clientName: 'bench', expires: new Date(Date.now() + 7 * 86400_000) });
  let fileId = 0;
  const fileBytes = o.fileBytes ?? 0;
  if (fileBytes > 0) {
    const bytes = new Uint8Array(fileBytes);
    const rnd = prng(7);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (rnd() * 256) | 0;
    fileId = insertFile(deps, { fileName: 'bench-1mb.bin', description: 'benchmark file', contents: bytes });
  }
  const proposalId = o.proposal
    ? insertProposal(deps.db, { type: 'N', number: 'BENCH-UPSERT', applicantName: 'Bench' })
    : 0;
  created.close();

  // 2. bulk rows, directly
  const db = new Database(o.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144'); // 256 MiB while loading
  const nLoc = o.locations ?? 100;
  const rnd = prng(42);
  let open = 0;
  // the server's Claim indexes are dropped for the load and built again after it (from their own
  // SQL text, so the schema stays the server's): building an index over sorted keys once is much
  // faster than keeping it up to date row by row
  const claimIndexes = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Claim' AND sql IS NOT NULL`)
    .all() as Array<{ name: string; sql: string }>;
  for (const ix of claimIndexes) db.exec(`DROP INDEX "${ix.name.replace(/"/g, '""')}"`);
  db.transaction(() => {
    const loc = db.prepare(
      'INSERT INTO "Location" ("Name", "Address1", "City", "StateCode", "ZipCode") VALUES (?, ?, ?, ?, ?)',
    );
    for (let i = 1; i <= nLoc; i++)
      loc.run(`Location ${i}`, `${i} Main Street`, `City ${i % 37}`, 'OR', String(97000 + i));
    const claim = db.prepare(
      `INSERT INTO "Claim" ("ClaimNumber", "ClaimantName", "LossDate", "ReserveAmount", "Status", "LocationID", "Notes", "EntryDate")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 1; i <= o.claims; i++) {
      const status = STATUSES[(rnd() * STATUSES.length) | 0]!;
      if (status === 'Open') open++;
      const day = new Date(DAY0 + ((rnd() * DAYS) | 0) * 86400_000).toISOString();
      claim.run(
        `CLM-${String(i).padStart(8, '0')}`,
        `${FIRST[(rnd() * FIRST.length) | 0]} ${LAST[(rnd() * LAST.length) | 0]}`,
        day.slice(0, 10),
        Math.round(rnd() * 5_000_000) / 100,
        status,
        1 + ((rnd() * nLoc) | 0),
        i % 3 === 0 ? null : `claim note ${i}`,
        day.slice(0, 10) + 'T09:00:00.000',
      );
    }
  })();
  for (const ix of claimIndexes) db.exec(ix.sql);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const dbBytes = (
    db.prepare('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get() as { n: number }
  ).n;
  db.close();
  return {
    file: o.file,
    token,
    claims: o.claims,
    openClaims: open,
    locations: nLoc,
    fileId,
    fileBytes,
    proposalId,
    loadMs: performance.now() - t0,
    dbBytes,
  };
}

/** Deletes what the UpsertMulti scenario wrote (between runs, while the server is idle). */
export function resetUpsertProposal(file: string, proposalId: number): number {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  const n = db.prepare('DELETE FROM "ProposalLocation" WHERE "ProposalID" = ?').run(proposalId).changes;
  db.close();
  return n;
}
