// Concurrency over real HTTP: parallel clients write to the same proposal (atomic and non-atomic
// UpsertMulti, updates of shared rows, single and batch deletes, contested deletes of the same
// rows) while readers read the same records and another SQLite connection takes the write lock
// now and then. Every answer must be well-formed and documented, no SQLITE_BUSY or lock error may
// leak out, and the final state must match exactly what was acknowledged.
//
// Normal run: 6 writers x 40 operations + 3 readers. Long run: 10 writers x 300 operations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import {
  Auditor,
  http,
  integrity,
  LONG,
  providerState,
  report,
  sleep,
  startServer,
  type HttpResult,
  type SpawnedServer,
  prng,
} from './support.js';

const WRITERS = LONG ? 10 : 6;
const OPS = Number(process.env.RELIABILITY_CONCURRENCY_OPS ?? (LONG ? 300 : 40));
const READERS = 3;
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2_147_483_647);

let dir: string;
let dbFile: string;
let server: SpawnedServer;
let token: string;
let P: number;
let initial: number[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-conc-'));
  dbFile = path.join(dir, 'conc.db');
  server = await startServer(dbFile, ['--provider-states', '--log-level', 'warn']);
  token = (await providerState(server.url, 'a user')).token;
  const p = await providerState(server.url, 'a proposal', { type: 'Quote', locations: 3 + 12 });
  P = p.proposalId;
  initial = p.locationIds;
}, 60_000);

afterAll(async () => {
  const e = await server?.stop('SIGTERM');
  if (e) expect(e.code).toBe(0);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('concurrent clients on one proposal', () => {
  it(
    `${WRITERS} writers x ${OPS} operations, ${READERS} readers, an outside write lock: documented answers, exact final state`,
    async () => {
      const auditor = new Auditor();
      const base = `/api/Quotes/Proposals/${P}/Schedules/ProposalLocation`;
      const shared = initial.slice(0, 3);
      const victims = initial.slice(3);
      const rnd = prng(SEED);

      // what the acknowledgements say
      const alive = new Set(initial);
      const cityOf = new Map<number, string>(); // own rows: last acknowledged City (sequential per writer)
      const sharedValues = new Map<number, Set<string>>(shared.map((id) => [id, new Set<string>()]));
      const victimWins = new Map<number, number>(victims.map((id) => [id, 0]));
      const doomedMarkers: string[] = [];
      const transportErrors: string[] = [];
      let requests = 0;

      const call = async (method: string, url: string, body?: unknown): Promise<HttpResult | undefined> => {
        requests++;
        try {
          const text = body === undefined ? undefined : JSON.stringify(body);
          const r = await http(server.url, url, { method, token, body: text, timeoutMs: 30_000 });
          auditor.audit(
            { method, url, requestText: text, status: r.status, contentType: r.contentType, bodyText: r.text },
            { exact: method === 'GET' ? [200, 404] : [200] },
          );
          return r;
        } catch (e) {
          transportErrors.push(`${method} ${url}: ${(e as Error).message}`);
          return undefined;
        }
      };

      const writer = async (w: number) => {
        const mine: number[] = [];
        for (let n = 0; n < OPS; n++) {
          const x = rnd();
          const marker = `w${w}-${n}`;
          if (x < 0.25) {
            // atomic batch; one in four is doomed by an invalid item and must leave nothing
            const doomed = rnd() < 0.25;
            const k = 1 + Math.floor(rnd() * 5);
            const inserts = Array.from({ length: k }, (_, i) => ({
              Fields: { LocationName: `${marker}-${i}`, Address1: doomed ? `doomed-${marker}` : marker },
            }));
            if (doomed) inserts.push({ Fields: { Address1: `doomed-${marker}` } as never });
            if (doomed) doomedMarkers.push(`doomed-${marker}`);
            const r = await call('POST', `${base}/UpsertMulti?isAtomic=true`, {
              Inserts: inserts,
              Updates: [],
              Deletes: [],
            });
            if (r?.status === 200 && !doomed)
              for (const it of r.json.Inserts)
                if (it.IsSuccessful) {
                  mine.push(it.RecordID);
                  alive.add(it.RecordID);
                }
            if (r?.status === 200 && doomed)
              expect(
                r.json.Inserts.every((it: any) => !it.IsSuccessful),
                r.text,
              ).toBe(true);
          } else if (x < 0.45) {
            // non-atomic batch: the valid items stay, the invalid ones fail alone
            const inserts = [
              { Fields: { LocationName: `${marker}-a`, Address1: marker } },
              { Fields: { LocationName: '', Address1: marker } },
              { Fields: { LocationName: `${marker}-b`, Address1: marker, Nope: 1 } },
              { Fields: { LocationName: `${marker}-c`, Address1: marker } },
            ];
            const r = await call('POST', `${base}/UpsertMulti?isAtomic=false`, {
              Inserts: inserts,
              Updates: [],
              Deletes: [],
            });
            if (r?.status === 200) {
              const ok = r.json.Inserts.filter((it: any) => it.IsSuccessful);
              expect(ok.length, r.text).toBe(2);
              for (const it of ok) {
                mine.push(it.RecordID);
                alive.add(it.RecordID);
              }
            }
          } else if (x < 0.6 && mine.length) {
            const id = mine[Math.floor(rnd() * mine.length)]!;
            const city = `${marker}-city`;
            const r = await call('POST', `${base}/UpsertMulti?isAtomic=${rnd() < 0.5}`, {
              Inserts: [],
              Updates: [{ ID: id, Fields: { City: city } }],
              Deletes: [],
            });
            if (r?.status === 200 && r.json.Updates[0]?.IsSuccessful) cityOf.set(id, city);
          } else if (x < 0.72) {
            const id = shared[Math.floor(rnd() * shared.length)]!;
            const city = `${marker}-shared`;
            const r = await call('POST', `${base}/UpsertMulti`, {
              Inserts: [],
              Updates: [{ ID: id, Fields: { City: city } }],
              Deletes: [],
            });
            if (r?.status === 200 && r.json.Updates[0]?.IsSuccessful) sharedValues.get(id)!.add(city);
          } else if (x < 0.82 && mine.length) {
            const id = mine.splice(Math.floor(rnd() * mine.length), 1)[0]!;
            const viaBatch = rnd() < 0.5;
            const r = viaBatch
              ? await call('POST', `${base}/UpsertMulti?isAtomic=true`, {
                  Inserts: [],
                  Updates: [],
                  Deletes: [{ ID: id }],
                })
              : await call('DELETE', `${base}/${id}`);
            const okDel = viaBatch ? r?.json?.Deletes?.[0]?.IsSuccessful : r?.json?.IsSuccessful;
            if (r?.status === 200) expect(okDel, r.text).toBe(true);
            if (okDel) alive.delete(id);
          } else if (x < 0.92) {
            // contested: several writers delete the same victims; exactly one may succeed per row
            const id = victims[Math.floor(rnd() * victims.length)]!;
            const r =
              rnd() < 0.5
                ? await call('DELETE', `${base}/${id}`)
                : await call('POST', `${base}/UpsertMulti`, { Inserts: [], Updates: [], Deletes: [{ ID: id }] });
            const okDel = r?.json?.Deletes ? r.json.Deletes[0]?.IsSuccessful : r?.json?.IsSuccessful;
            if (okDel) {
              victimWins.set(id, victimWins.get(id)! + 1);
              alive.delete(id);
            }
          } else {
            await call(
              'GET',
              `/api/ProposalLocation/Query?filter=${encodeURIComponent(`ProposalID:eq:${P}`)}&take=100&includeTotalCount=true&columns=LocationName,City`,
            );
          }
        }
      };

      let readersStop = false;
      let reads = 0;
      const isolation: string[] = [];
      const reader = async (i: number) => {
        while (!readersStop) {
          reads++;
          const which = (reads + i) % 4;
          if (which === 0) {
            const r = await call(
              'GET',
              `/api/ProposalLocation/Query?filter=${encodeURIComponent('Address1:startswith:doomed-')}&take=100`,
            );
            if (r?.status === 200 && r.json.List.length)
              isolation.push(`rows of a rolled-back batch were visible: ${r.text.slice(0, 200)}`);
          } else if (which === 1)
            await call(
              'GET',
              `/api/ProposalLocation/${shared[reads % shared.length]}?columns=LocationName,City,ProposalID`,
            );
          else if (which === 2) await call('GET', `/api/Quotes/Proposals/${P}/BindStatus`);
          else
            await call(
              'GET',
              `/api/ProposalLocation/Query?filter=${encodeURIComponent(`ProposalID:eq:${P}`)}&sort=City%20desc&take=100&skip=${reads % 20}`,
            );
        }
      };

      // another connection takes the write lock now and then (the server waits, busy_timeout)
      let lockerStop = false;
      let locks = 0;
      const locker = async () => {
        const db = new Database(dbFile);
        try {
          while (!lockerStop) {
            await sleep(50 + Math.floor(rnd() * 150));
            db.exec('BEGIN IMMEDIATE');
            locks++;
            await sleep(20 + Math.floor(rnd() * 200));
            db.exec('COMMIT');
          }
        } finally {
          db.close();
        }
      };

      const t0 = performance.now();
      const lockTask = locker();
      const readerTasks = Array.from({ length: READERS }, (_, i) => reader(i));
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      readersStop = true;
      lockerStop = true;
      await Promise.all([...readerTasks, lockTask]);
      const ms = Math.round(performance.now() - t0);

      // the final state, read directly from the file
      const db = new Database(dbFile, { readonly: true });
      const rows = db
        .prepare(`SELECT ProposalLocationID AS id, City, Address1 FROM ProposalLocation WHERE ProposalID = ?`)
        .all(P) as Array<{ id: number; City: string | null; Address1: string | null }>;
      const check = integrity(db);
      db.close();
      const onDisk = new Map(rows.map((r) => [r.id, r]));
      const problems: string[] = [...transportErrors, ...isolation];
      for (const id of alive)
        if (!onDisk.has(id)) problems.push(`row ${id}: acknowledged (inserted, not deleted) but missing`);
      for (const id of onDisk.keys())
        if (!alive.has(id)) problems.push(`row ${id}: present but never acknowledged, or acknowledged as deleted`);
      for (const [id, city] of cityOf)
        if (onDisk.has(id) && onDisk.get(id)!.City !== city)
          problems.push(`row ${id}: City ${onDisk.get(id)!.City}, last acknowledged ${city}`);
      for (const [id, values] of sharedValues) {
        const city = onDisk.get(id)?.City;
        if (values.size && !values.has(city ?? ''))
          problems.push(`shared row ${id}: City ${city} is none of the ${values.size} acknowledged values`);
      }
      for (const [id, wins] of victimWins) if (wins > 1) problems.push(`row ${id} was deleted ${wins} times`);
      for (const r of rows)
        if (r.Address1?.startsWith('doomed-')) problems.push(`row ${r.id} of a rolled-back batch ${r.Address1} exists`);

      report('concurrency', {
        seed: SEED,
        writers: WRITERS,
        operationsPerWriter: OPS,
        readers: READERS,
        requests,
        reads,
        outsideWriteLocks: locks,
        statuses: auditor.statusTotals(),
        rowsAtEnd: rows.length,
        contestedDeletes: [...victimWins.values()].reduce((a, b) => a + b, 0),
        ms,
        failures: auditor.failureCount,
        problems: problems.length,
      });
      expect(auditor.failures, `seed ${SEED}`).toEqual([]);
      expect(problems, `seed ${SEED}`).toEqual([]);
      expect(check).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
      expect(server.output()).not.toMatch(/"unhandled error"|SQLITE_BUSY|database is locked/);
    },
    LONG ? 900_000 : 120_000,
  );
});
