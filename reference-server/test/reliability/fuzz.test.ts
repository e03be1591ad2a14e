// Generated bad requests against the reference server through app.request (fast): wrong types,
// missing and extra fields, huge numbers and strings, unicode, malformed JSON, oversized bodies and
// URLs, injections through columns, sort, filter, linqFilter, domain names and link match fields
// (fuzz-model.ts, driven by spec/generated/openapi.json). Every answer must be a documented status
// of its operation with a body that passes the generic checks and leaks no stack or SQL; afterwards
// the database passes integrity_check and everything but the sacrificial records is unchanged.
//
// Normal run: ~1,000 requests. `npm run test:reliability:long`: 12,000 (RELIABILITY_FUZZ_RUNS).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { createApp, type CreatedApp } from '../../src/app.js';
import { createUser, issueToken } from '../../src/auth.js';
import { seedDemo } from '../../src/seed.js';
import { Auditor, diffSnapshots, integrity, LONG, report, snapshot } from './support.js';
import {
  fixtureFrom,
  fixtureStates,
  loadOps,
  requestArbitrary,
  templates,
  type Fixture,
  type GenRequest,
} from './fuzz-model.js';

const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? (LONG ? 12_000 : 1_000));
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2_147_483_647);

let dir: string;
let dbFile: string;
let fx: Fixture;
let allowed: Record<string, string>;
let app: CreatedApp;
const serverErrors: string[] = [];

async function setupFixture(): Promise<Fixture> {
  const setup = createApp({ dbPath: dbFile, providerStates: true, bindWorker: false, log: () => {} });
  try {
    seedDemo(setup.deps);
    const state = async (name: string, params: Record<string, unknown> = {}) => {
      const r = await setup.app.request('/_provider-states', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          state: name,
          params: { setupId: `fuzz-${name.replace(/\W/g, '')}-${Math.random().toString(36).slice(2, 8)}`, ...params },
          action: 'setup',
        }),
      });
      expect(r.status, await r.clone().text()).toBe(200);
      return (await r.json()) as Record<string, any>;
    };
    const states = await fixtureStates(state, 'fuzz');
    const { endorsement } = states;
    const expired = await state('an expired token');
    const token = issueToken(setup.deps, createUser(setup.deps.db, { name: 'fuzz-admin' })).token;
    // soft-delete one endorsement location, so that Reinstate has something to reinstate
    const del = await setup.app.request(
      `/api/Quotes/Proposals/${endorsement.proposalId}/Schedules/ProposalLocation/${endorsement.locationIds[1]}`,
      {
        method: 'DELETE',
        headers: { Token: token },
      },
    );
    expect(del.status).toBe(200);
    return fixtureFrom(setup.deps.db, states, { token, expiredToken: expired.token });
  } finally {
    setup.close();
  }
}

/** Rows the generated requests may change: those of the sacrificial records. */
function allowedRows(f: Fixture): Record<string, string> {
  const props = `${f.quote.id}, ${f.endorsement.id}`;
  const byProposal = `ProposalID IN (${props})`;
  const domainId = (name: string) => ({ Claim: 1, Contact: 2, File: 4 })[name as 'Claim'] ?? -1;
  return {
    ProposalLocation: byProposal,
    ProposalVehicle: byProposal,
    PolicyChange: byProposal,
    DataEntryEvent: byProposal,
    Proposal: byProposal,
    bind_jobs: byProposal,
    bind_status: byProposal,
    Member: `MemberID IN (SELECT MemberID FROM Proposal WHERE ${byProposal})`,
    Policy: `PolicyID IN (SELECT PolicyID FROM bind_status WHERE ${byProposal})`,
    links: `(ParentDomainID = ${domainId(f.parent.domain)} AND ParentID = ${f.parent.id}) OR (ChildDomainID = 2 AND ChildID = ${f.contact.id}) OR (ChildDomainID = 4 AND ChildID = ${f.file})`,
  };
}

async function send(a: CreatedApp, r: GenRequest) {
  const res = await a.app.request(r.url, {
    method: r.method,
    headers: r.headers,
    body: r.body as BodyInit | undefined,
  });
  const bodyText = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), bodyText };
}

function requestText(r: GenRequest): string | undefined {
  if (r.body === undefined) return undefined;
  return typeof r.body === 'string' ? r.body.slice(0, 100_000) : Buffer.from(r.body).toString('latin1');
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-fuzz-'));
  dbFile = path.join(dir, 'fuzz.db');
  fx = await setupFixture();
  allowed = allowedRows(fx);
  app = createApp({
    dbPath: dbFile,
    bindWorker: false,
    log: (e) => {
      if (e.level === 'error') serverErrors.push(`${e.method} ${e.path}: ${e.error}`);
    },
  });
}, 60_000);

afterAll(() => {
  app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('generated bad requests (app.request)', () => {
  it('every template is a valid request with a documented answer', async () => {
    const auditor = new Auditor();
    const ops = loadOps();
    for (const t of templates(fx)) {
      const op = ops.get(t.op)!;
      const url =
        op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(t.pathParams[n]!)) +
        (t.query.length ? `?${new URLSearchParams(t.query)}` : '');
      const r: GenRequest = {
        op: t.op,
        method: op.method,
        url,
        headers: { Token: fx.token, ...(t.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: t.body !== undefined ? JSON.stringify(t.body) : undefined,
        mutations: [],
        expect: {},
      };
      const res = await send(app, r);
      const problems = auditor.audit({ method: r.method, url, requestText: requestText(r), ...res });
      expect(problems, `${t.op} ${url}: ${res.status} ${res.bodyText.slice(0, 300)}`).toEqual([]);
      if (t.op === 'authenticate') expect(res.status).toBe(401);
      else if (t.op === 'bindQuote')
        expect(res.status).toBe(409); // unrated: refused, documented
      else expect(res.status, `${t.op} ${url}: ${res.bodyText.slice(0, 300)}`).toBeLessThan(300);
    }
  });

  it(
    `${RUNS} generated bad requests: documented statuses, no leaks, no partial writes`,
    async () => {
      const before = snapshot(app.deps.db, { allowed });
      const auditor = new Auditor();
      const mutationCounts = new Map<string, number>();
      let clientRejected = 0;
      let expectedChecks = 0;
      let badRequests = 0;
      const t0 = performance.now();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(fx), async (r) => {
          for (const m of r.mutations) {
            const k = m
              .split(':')
              .slice(0, 2)
              .join(':')
              .replace(/\(required\)$/, '');
            mutationCounts.set(k, (mutationCounts.get(k) ?? 0) + 1);
          }
          let res;
          try {
            res = await send(app, r);
          } catch (e) {
            // the client refused to build the request (e.g. a header value fetch does not allow)
            if (e instanceof TypeError && !(e.message || '').includes('Hono')) {
              clientRejected++;
              return;
            }
            throw e;
          }
          if (r.expect.exact || r.expect.refuse) expectedChecks++;
          if (r.mutations.length && !r.mutations.includes('none')) badRequests++;
          auditor.audit({ method: r.method, url: r.url, requestText: requestText(r), ...res }, r.expect);
        }),
        { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: LONG ? 900_000 : 120_000, markInterruptAsFailure: false },
      );
      const ms = Math.round(performance.now() - t0);
      const after = snapshot(app.deps.db, { allowed });
      const diff = diffSnapshots(before, after);
      const check = integrity(app.deps.db);
      report('fuzz', {
        seed: SEED,
        requests: auditor.count,
        badRequests,
        clientRejected,
        withStrictExpectation: expectedChecks,
        ms,
        perSecond: Math.round((auditor.count / ms) * 1000),
        statuses: auditor.statusTotals(),
        byOperation: auditor.statusTable(),
        mutations: Object.fromEntries([...mutationCounts].sort((a, b) => b[1] - a[1])),
        failures: auditor.failureCount,
        knownSpecGaps: Object.fromEntries(auditor.knownGaps),
        serverErrors: serverErrors.length,
        integrity: check,
        snapshotDiffs: diff.length,
      });
      expect(auditor.count, 'requests sent').toBeGreaterThanOrEqual(Math.min(RUNS, 500) - clientRejected);
      expect(badRequests, 'every generated request carries at least one mutation').toBe(auditor.count);
      expect(auditor.failures, `seed ${SEED}: ${auditor.failureCount} bad answers`).toEqual([]);
      expect(serverErrors, 'unhandled errors logged by the server').toEqual([]);
      expect(check).toEqual({ integrity: 'ok', foreignKeyViolations: 0 });
      expect(diff, 'data outside the sacrificial records changed').toEqual([]);
      // the file on disk is consistent for another connection as well
      const other = new Database(dbFile, { readonly: true });
      try {
        expect((other.pragma('integrity_check') as Array<{ integrity_check: string }>)[0]!.integrity_check).toBe('ok');
      } finally {
        other.close();
      }
    },
    LONG ? 1_200_000 : 180_000,
  );
});
