// Crash safety: the real server process on a SQLite file, atomic UpsertMulti batches (50 inserts,
// each row carrying its batch marker) sent by concurrent clients, SIGKILL at a random moment, a
// restart on the same file, many times. After every kill: no batch is partly applied, every batch
// acknowledged with 200 before the kill is fully present, a batch whose atomic rollback was
// acknowledged left nothing, and PRAGMA integrity_check is ok.
//
// Normal run: 20 kills. `npm run test:reliability:long`: 100 (RELIABILITY_KILLS).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createApp } from '../../src/app.js';
import { createUser, issueToken } from '../../src/auth.js';
import { insertProposal } from '../../src/proposals/create.js';
import { PROPOSAL_TYPES } from '../../src/proposals/model.js';
import { integrity, LONG, report, startServer, prng } from './support.js';

const KILLS = Number(process.env.RELIABILITY_KILLS ?? (LONG ? 100 : 20));
const CLIENTS = 4;
const BATCH = 50;
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2_147_483_647);

let dir: string;
let dbFile: string;
let token: string;
let proposalId: number;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-crash-'));
  dbFile = path.join(dir, 'crash.db');
  const boot = createApp({ dbPath: dbFile, bindWorker: false, log: () => {} });
  try {
    // tokens last 30 minutes; the long run stays well within that
    token = issueToken(boot.deps, createUser(boot.deps.db, { name: 'crash-admin' })).token;
    proposalId = insertProposal(boot.deps.db, {
      type: PROPOSAL_TYPES.Quote,
      number: 'CRASH-1',
      applicantName: 'Crash Applicant',
    });
  } finally {
    boot.close();
  }
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Batch {
  id: string;
  /** one item fails validation: the atomic batch must roll back */
  doomed: boolean;
  sent: boolean;
  /** 200 received: all items succeeded (good batch) or the failed item listed (doomed batch) */
  acked: boolean;
}

function batchBody(b: Batch) {
  return {
    Inserts: Array.from({ length: BATCH }, (_, i) => ({
      // the last item of a doomed batch misses its required LocationName
      Fields:
        b.doomed && i === BATCH - 1
          ? { Address1: b.id }
          : { LocationName: `${b.id}-${i}`, Address1: b.id, City: 'Crashville' },
    })),
    Updates: [],
    Deletes: [],
  };
}

describe('crash safety (SIGKILL during atomic UpsertMulti batches)', () => {
  it(
    `${KILLS} kills: no batch partly applied, no acknowledged batch lost, integrity ok`,
    async () => {
      const rnd = prng(SEED);
      const batches = new Map<string, Batch>();
      const t0 = performance.now();
      let restarts = 0;
      let killedBusy = 0;
      const problems: string[] = [];
      for (let round = 0; round < KILLS; round++) {
        const server = await startServer(dbFile, ['--log-level', 'error']);
        restarts++;
        const url = `${server.url}/api/Quotes/Proposals/${proposalId}/Schedules/ProposalLocation/UpsertMulti?isAtomic=true`;
        let stop = false;
        let inFlight = 0;
        const client = async (c: number) => {
          for (let n = 0; !stop; n++) {
            const b: Batch = { id: `r${round}c${c}n${n}`, doomed: rnd() < 0.2, sent: false, acked: false };
            batches.set(b.id, b);
            try {
              b.sent = true;
              inFlight++;
              const res = await fetch(url, {
                method: 'POST',
                headers: { Token: token, 'Content-Type': 'application/json' },
                body: JSON.stringify(batchBody(b)),
                signal: AbortSignal.timeout(10_000),
              });
              const text = await res.text();
              inFlight--;
              if (res.status !== 200) {
                problems.push(`round ${round} batch ${b.id}: status ${res.status} ${text.slice(0, 200)}`);
                return;
              }
              const j = JSON.parse(text) as { Inserts: Array<{ IsSuccessful: boolean; RecordID: number }> };
              if (b.doomed) {
                // an atomic batch with a failure lists only the failed item, and nothing was written
                if (j.Inserts.length !== 1 || j.Inserts[0]!.IsSuccessful)
                  problems.push(`round ${round} doomed batch ${b.id}: ${text.slice(0, 200)}`);
              } else if (j.Inserts.length !== BATCH || !j.Inserts.every((x) => x.IsSuccessful && x.RecordID > 0)) {
                problems.push(`round ${round} batch ${b.id}: not every insert succeeded: ${text.slice(0, 200)}`);
              }
              b.acked = true;
            } catch {
              // the server was killed under this request: its outcome is unknown (0 or all rows)
              inFlight--;
              return;
            }
          }
        };
        const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
        // kill at a random moment: mostly while batches are in flight, sometimes right after start
        const delay = rnd() < 0.15 ? Math.floor(rnd() * 20) : 20 + Math.floor(rnd() * 400);
        await new Promise((r) => setTimeout(r, delay));
        if (inFlight > 0) killedBusy++;
        const exit = await server.stop('SIGKILL');
        stop = true;
        await Promise.all(clients);
        expect(exit.signal, `round ${round}: the server should have been killed`).toBe('SIGKILL');

        // check the file after the crash (opening it recovers the WAL, as the next start would)
        const db = new Database(dbFile);
        try {
          const rows = db
            .prepare(
              `SELECT Address1 AS b, COUNT(*) AS n, COUNT(DISTINCT LocationName) AS names FROM ProposalLocation WHERE ProposalID = ? GROUP BY Address1`,
            )
            .all(proposalId) as Array<{ b: string; n: number; names: number }>;
          const present = new Map(rows.map((r) => [r.b, r]));
          for (const r of rows) {
            const b = batches.get(r.b);
            if (!b) problems.push(`round ${round}: rows of an unknown batch ${r.b}`);
            else if (b.doomed)
              problems.push(`round ${round}: doomed batch ${r.b} left ${r.n} rows (atomic rollback broken)`);
            else if (r.n !== BATCH || r.names !== BATCH)
              problems.push(`round ${round}: batch ${r.b} partly applied: ${r.n} rows, ${r.names} names`);
          }
          for (const b of batches.values()) {
            if (b.acked && !b.doomed && !present.has(b.id))
              problems.push(`round ${round}: acknowledged batch ${b.id} lost`);
          }
          const check = integrity(db);
          if (check.integrity !== 'ok' || check.foreignKeyViolations)
            problems.push(`round ${round}: ${JSON.stringify(check)}`);
        } finally {
          db.close();
        }
        if (problems.length) break;
      }
      // a last clean start on the file: it opens, answers, and shuts down cleanly
      const last = await startServer(dbFile, ['--log-level', 'error']);
      const health = await fetch(`${last.url}/health`);
      expect(health.status).toBe(200);
      expect((await last.stop('SIGTERM')).code).toBe(0);

      const all = [...batches.values()];
      const db = new Database(dbFile, { readonly: true });
      const rowCount = (
        db.prepare(`SELECT COUNT(*) AS n FROM ProposalLocation WHERE ProposalID = ?`).get(proposalId) as { n: number }
      ).n;
      db.close();
      report('crash', {
        seed: SEED,
        kills: KILLS,
        restarts: restarts + 1,
        killedWithRequestsInFlight: killedBusy,
        batchesSent: all.filter((b) => b.sent).length,
        batchesAcknowledged: all.filter((b) => b.acked && !b.doomed).length,
        rollbacksAcknowledged: all.filter((b) => b.acked && b.doomed).length,
        batchesUnknownAtKill: all.filter((b) => b.sent && !b.acked).length,
        rowsOnDisk: rowCount,
        ms: Math.round(performance.now() - t0),
        problems: problems.length,
      });
      expect(problems, `seed ${SEED}`).toEqual([]);
      expect(all.filter((b) => b.acked && !b.doomed).length, 'some batches were acknowledged').toBeGreaterThan(0);
    },
    LONG ? 900_000 : 180_000,
  );
});
