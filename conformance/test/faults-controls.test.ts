// The control catalogue (behaviours the spec allows but the reference does not show) and each
// control's rewrite on canned exchanges: the request the upstream receives and the answer the
// client gets change as the control intends. The cases are filed beside each area's controls
// (conformance/faults/controls/<area>.cases.ts), the harness is controls/canned-cases.ts. No network:
// `next` and side requests are stubs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAULTS } from '../faults/catalogue/index.js';
import { CONTROLS, controlByName } from '../faults/controls/index.js';
import { run, type Case, type ScriptedCase } from '../faults/controls/canned-cases.js';
import { AUTH_CONTROL_CASES } from '../faults/controls/auth.cases.js';
import { BIND_CONTROL_CASES, BIND_CONTROL_SCRIPTS } from '../faults/controls/bind.cases.js';
import { COL_CONTROL_CASES } from '../faults/controls/col.cases.js';
import { DOM_CONTROL_CASES } from '../faults/controls/dom.cases.js';
import { FILE_CONTROL_CASES } from '../faults/controls/file.cases.js';
import { GEN_CONTROL_CASES, GEN_CONTROL_SCRIPTS } from '../faults/controls/gen.cases.js';
import { LINK_CONTROL_CASES, LINK_CONTROL_SCRIPTS } from '../faults/controls/link.cases.js';
import { MEM_CONTROL_CASES } from '../faults/controls/mem.cases.js';
import { PROP_CONTROL_CASES } from '../faults/controls/prop.cases.js';
import { QRY_CONTROL_CASES } from '../faults/controls/qry.cases.js';
import { REC_CONTROL_CASES } from '../faults/controls/rec.cases.js';
import { SCHED_CONTROL_CASES } from '../faults/controls/sched.cases.js';
import type { Area } from '../faults/fault.js';
import { resolveBindings } from '../src/model/bindings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CONTROLS_DIR = path.join(ROOT, 'conformance/faults/controls');

/** Every area's canned cases (by control name), under the area of the controls they are filed beside. */
const CASES_BY_AREA: Partial<Record<Area, Record<string, Case[]>>> = {
  GEN: GEN_CONTROL_CASES,
  DOM: DOM_CONTROL_CASES,
  REC: REC_CONTROL_CASES,
  COL: COL_CONTROL_CASES,
  QRY: QRY_CONTROL_CASES,
  FILE: FILE_CONTROL_CASES,
  LINK: LINK_CONTROL_CASES,
  PROP: PROP_CONTROL_CASES,
  BIND: BIND_CONTROL_CASES,
  MEM: MEM_CONTROL_CASES,
  SCHED: SCHED_CONTROL_CASES,
  AUTH: AUTH_CONTROL_CASES,
};
// Every control with a rewrite has at least one case here (checked below).
const CASES: Record<string, Case[]> = Object.assign({}, ...Object.values(CASES_BY_AREA));
/** Cases written out step by step (one memory across several exchanges), with the area they are filed under. */
const SCRIPTS: Array<[Area, ScriptedCase]> = [
  ...BIND_CONTROL_SCRIPTS.map((s): [Area, ScriptedCase] => ['BIND', s]),
  ...GEN_CONTROL_SCRIPTS.map((s): [Area, ScriptedCase] => ['GEN', s]),
  ...LINK_CONTROL_SCRIPTS.map((s): [Area, ScriptedCase] => ['LINK', s]),
];

describe('control rewrites on canned exchanges', () => {
  it.each(Object.entries(CASES))('%s', async (name, cases) => {
    for (const c of cases) await run(name, c);
  });

  it.each(SCRIPTS.map(([, s]) => [`${s.control} ${s.title}`, s] as const))('%s', async (_t, s) => {
    await s.run();
  });

  it('runs every <area>.cases.ts of the controls, each beside its <area>.ts', () => {
    const files = fs.readdirSync(CONTROLS_DIR).filter((f) => f.endsWith('.cases.ts'));
    expect(files.map((f) => f.replace(/\.cases\.ts$/, '').toUpperCase()).sort()).toEqual(
      Object.keys(CASES_BY_AREA).sort(),
    );
    for (const f of files)
      expect(fs.existsSync(path.join(CONTROLS_DIR, f.replace(/\.cases\.ts$/, '.ts'))), f).toBe(true);
  });

  it.each(Object.entries(CASES_BY_AREA))('the cases filed under %s name only controls of that area', (area, cases) => {
    for (const name of Object.keys(cases))
      expect(controlByName(name)?.area, `${name} in ${area.toLowerCase()}.cases.ts`).toBe(area);
    for (const [a, s] of SCRIPTS) if (a === area) expect(controlByName(s.control)?.area, s.control).toBe(area);
  });
});

// ------------------------------------------------------------------------------------ catalogue

const openapi = parse(fs.readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8'));

/** JSON pointers (without the leading slash) of every `x-implementation-defined: true` in the OpenAPI document. */
function markers(): string[] {
  const out: string[] = [];
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  (function walk(v: unknown, p: string[]) {
    if (!v || typeof v !== 'object') return;
    if (!Array.isArray(v) && (v as Record<string, unknown>)['x-implementation-defined'] === true) out.push(p.join('/'));
    for (const [k, x] of Object.entries(v)) walk(x, [...p, esc(k)]);
  })(openapi, []);
  return out;
}

/** Markers no control exercises yet, each with the reason. */
// Answers of the HTTP layer before routing (spec/openapi.yaml, "Answers before routing"): the suite
// sends no request that draws them (a head that stalls, an Expect other than 100-continue, a head
// over 60 KB), so a control answering them otherwise could change nothing core judges.
const BEFORE_ROUTING =
  'answered before routing to requests the suite never sends; no control can reach what core judges';
const NOT_YET: Record<string, string> = {
  'components/responses/RequestTimeout': BEFORE_ROUTING,
  'components/responses/ExpectationFailed': BEFORE_ROUTING,
  'components/responses/RequestHeadersTooLarge': BEFORE_ROUTING,
};

describe('control catalogue', () => {
  it('has at least 40 controls with unique kebab-case names, none shared with a fault', () => {
    expect(CONTROLS.length).toBeGreaterThanOrEqual(40);
    const names = [...CONTROLS.map((c) => c.name), ...FAULTS.map((f) => f.name)];
    expect(new Set(names).size).toBe(names.length);
    for (const c of CONTROLS) expect(c.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it.each(CONTROLS.map((c) => [c.name, c] as const))('%s is documented, quoted and runnable', (_n, c) => {
    expect(c.description).toMatch(/\S/);
    expect(c.description).not.toMatch(/\n/);
    expect(c.allowedBy, 'names the section that allows it').toMatch(/Sections? \d/);
    expect(c.rewrite || c.serverFlags?.length, 'a rewrite or a server flag').toBeTruthy();
    if (c.rewrite)
      expect(CASES[c.name] ?? SCRIPTS.find(([, s]) => s.control === c.name), 'a canned case').toBeDefined();
    // the bindings are ones the suite knows (a typo would fail every run of the control)
    if (c.config) expect(() => resolveBindings(c.config!.bindings)).not.toThrow();
  });

  it('exercises every x-implementation-defined marker of spec/openapi.yaml (or says why not yet)', () => {
    const all = markers();
    const named = new Set(CONTROLS.flatMap((c) => c.markers ?? []));
    for (const m of named) expect(all, `marker ${m} exists`).toContain(m);
    const missing = all.filter((m) => !named.has(m) && !(m in NOT_YET));
    expect(missing).toEqual([]);
  });
});
