// Each fault's rewrite on canned exchanges (table-driven): the request the upstream receives and the
// answer the client gets are changed as the fault intends. The cases are filed beside each area's
// faults (conformance/faults/catalogue/<area>.cases.ts), the harness is catalogue/canned-cases.ts.
// No network: `next` and the side requests of the fault context are stubs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAULTS, faultByName } from '../faults/catalogue/index.js';
import { context, runCase, type Case } from '../faults/catalogue/canned-cases.js';
import { AUTH_FAULT_CASES } from '../faults/catalogue/auth.cases.js';
import { BIND_FAULT_CASES } from '../faults/catalogue/bind.cases.js';
import { COL_FAULT_CASES } from '../faults/catalogue/col.cases.js';
import { DOM_FAULT_CASES } from '../faults/catalogue/dom.cases.js';
import { FILE_FAULT_CASES } from '../faults/catalogue/file.cases.js';
import { GEN_FAULT_CASES } from '../faults/catalogue/gen.cases.js';
import { LINK_FAULT_CASES } from '../faults/catalogue/link.cases.js';
import { MEM_FAULT_CASES } from '../faults/catalogue/mem.cases.js';
import { PROP_FAULT_CASES } from '../faults/catalogue/prop.cases.js';
import { QRY_FAULT_CASES } from '../faults/catalogue/qry.cases.js';
import { REC_FAULT_CASES } from '../faults/catalogue/rec.cases.js';
import { SCHED_FAULT_CASES } from '../faults/catalogue/sched.cases.js';
import type { Area } from '../faults/fault.js';
import { makeRequest, makeResponse, type ProxyRequest } from '../faults/exchange.js';

const CATALOGUE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../faults/catalogue');

/** Every area's canned cases, under the area of the faults they are filed beside. */
const CASES_BY_AREA: Partial<Record<Area, Case[]>> = {
  GEN: GEN_FAULT_CASES,
  DOM: DOM_FAULT_CASES,
  REC: REC_FAULT_CASES,
  COL: COL_FAULT_CASES,
  QRY: QRY_FAULT_CASES,
  FILE: FILE_FAULT_CASES,
  LINK: LINK_FAULT_CASES,
  PROP: PROP_FAULT_CASES,
  BIND: BIND_FAULT_CASES,
  MEM: MEM_FAULT_CASES,
  SCHED: SCHED_FAULT_CASES,
  AUTH: AUTH_FAULT_CASES,
};
const CASES: Case[] = Object.values(CASES_BY_AREA).flat();

describe('fault rewrites on canned exchanges', () => {
  it('every fault of the catalogue has a case', () => {
    const covered = new Set(CASES.map((c) => c.fault));
    expect(FAULTS.map((f) => f.name).filter((n) => !covered.has(n))).toEqual([]);
    for (const c of CASES) expect(faultByName(c.fault), c.fault).toBeDefined();
  });

  it('runs every <area>.cases.ts of the catalogue, each beside its <area>.ts', () => {
    const files = fs.readdirSync(CATALOGUE).filter((f) => f.endsWith('.cases.ts'));
    expect(files.map((f) => f.replace(/\.cases\.ts$/, '').toUpperCase()).sort()).toEqual(
      Object.keys(CASES_BY_AREA).sort(),
    );
    for (const f of files) expect(fs.existsSync(path.join(CATALOGUE, f.replace(/\.cases\.ts$/, '.ts'))), f).toBe(true);
  });

  it.each(Object.entries(CASES_BY_AREA))('the cases filed under %s name only faults of that area', (area, cases) => {
    for (const c of cases)
      expect(faultByName(c.fault)?.area, `${c.fault} in ${area.toLowerCase()}.cases.ts`).toBe(area);
  });

  it.each(CASES.map((c) => [`${c.fault}: ${c.title}`, c] as const))('%s', async (_t, c) => {
    await runCase(c);
  });

  it.each(FAULTS.map((f) => [f.name, f] as const))('%s passes unrelated exchanges through', async (_n, f) => {
    // A health check and a provider-state-free record read of an unrelated shape.
    const req = makeRequest('GET', '/health');
    const forwarded: ProxyRequest[] = [];
    const res = makeResponse(200, { status: 'ok' });
    const out = await f.rewrite(
      req,
      context({ fault: f.name, title: '', steps: [] }, []),
      async (r) => (forwarded.push(r), res),
    );
    expect(forwarded).toEqual([req]);
    expect(out).toBe(res);
  });
});
