// Data-class coverage (issue 32): for each type of spec/data-classes.yaml, each of its classes on
// each (requirement, operation) the type applies to, whether a test exercises it. A test declares
// the classes it exercises as `REQ-ID:<type>.<class>` (`classes:` of its conformance() record); a
// row is exercised when a test naming the requirement declares the class and called the operation
// in the run judged (without a run: when a test declares it). A row no test exercises is exempt
// when the catalogue gives the reason (`untested:`), else a gap, which fails the gate.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SPEC_DIR } from '../paths.js';
import type { Catalogue } from '../spec/catalogue.js';
import type { RunRecord } from './operations.js';
import { classTable, md } from './class-table.js';

interface DataType {
  name: string;
  from: string;
  classes: Record<string, string>;
  /** requirement -> operations */
  applies: Record<string, string[]>;
  /** `REQ-ID:<class>`, `REQ-ID <operationId>` or `REQ-ID` -> reason */
  untested: Record<string, string>;
  /** requirement -> the classes its statement is (every test of it exercises them; no declaration) */
  stated: Record<string, string[]>;
  /** Why no requirement is mapped to the type yet. */
  pending?: string;
}

export interface DataClassCatalogue {
  version: string;
  types: Map<string, DataType>;
}

const DATA_CLASSES_FILE = path.join(SPEC_DIR, 'data-classes.yaml');

const strings = (o: unknown): Record<string, string> =>
  o && typeof o === 'object' ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)])) : {};

/** spec/data-classes.yaml, or undefined where it is not there (a package without it). */
export function loadDataClasses(file = DATA_CLASSES_FILE): DataClassCatalogue | undefined {
  if (!fs.existsSync(file)) return undefined;
  const doc = parseYaml(fs.readFileSync(file, 'utf8')) as { version?: unknown; types?: Record<string, any> };
  const types = new Map<string, DataType>();
  for (const [name, t] of Object.entries(doc?.types ?? {})) {
    types.set(name, {
      name,
      from: String(t?.from ?? '').trim(),
      classes: strings(t?.classes),
      applies: Object.fromEntries(
        Object.entries((t?.applies ?? {}) as Record<string, unknown>).map(([r, ops]) => [
          r,
          Array.isArray(ops) ? ops.map(String) : [],
        ]),
      ),
      untested: strings(t?.untested),
      stated: Object.fromEntries(
        Object.entries((t?.stated ?? {}) as Record<string, unknown>).map(([r, cs]) => [
          r,
          Array.isArray(cs) ? cs.map(String) : [],
        ]),
      ),
      ...(t?.pending !== undefined ? { pending: String(t.pending) } : {}),
    });
  }
  return { version: String(doc?.version ?? ''), types };
}

/** Whether `name` (`<type>.<class>`, the part after `REQ-ID:`) names a data class of the catalogue. */
export function isDataClassName(dc: DataClassCatalogue | undefined, name: string): boolean {
  const dot = name.indexOf('.');
  return dc !== undefined && dot > 0 && dc.types.has(name.slice(0, dot));
}

type RowStatus = 'exercised' | 'exempt' | 'gap';

interface DataClassRow {
  type: string;
  class: string;
  requirement: string;
  operation: string;
  status: RowStatus;
  reason?: string;
  tests: string[];
}

export interface DataClassCoverage {
  version: string;
  rows: DataClassRow[];
  /** Types no requirement is mapped to yet, with their classes and why. */
  pending: Array<{ type: string; classes: string[]; reason: string }>;
  counts: { rows: number; exercised: number; exempt: number; gaps: number; types: number; pendingClasses: number };
  /** Whether operations were judged from a run (else a declaration alone exercises a row). */
  fromRun: boolean;
  problems: string[];
}

interface ClassTest {
  id: string;
  requirements: string[];
  classes?: string[];
}

export function buildDataClasses(
  dc: DataClassCatalogue,
  cat: Catalogue,
  tests: ClassTest[],
  run?: RunRecord,
): DataClassCoverage {
  const problems: string[] = [];
  // who declares what: `REQ:type.class` -> tests
  const declared = new Map<string, ClassTest[]>();
  for (const t of tests)
    for (const c of t.classes ?? []) {
      const i = c.indexOf(':');
      const [req, name] = [c.slice(0, i), c.slice(i + 1)];
      if (!isDataClassName(dc, name)) continue;
      const [type, cls] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
      const ty = dc.types.get(type)!;
      if (!(cls in ty.classes))
        problems.push(`test ${t.id} declares ${c}: ${cls} is not a class of type ${type} in spec/data-classes.yaml`);
      else if (!(req in ty.applies))
        problems.push(
          `test ${t.id} declares ${c}: type ${type} does not apply to ${req} (applies: in spec/data-classes.yaml)`,
        );
      else declared.set(c, [...(declared.get(c) ?? []), t]);
    }
  const rows: DataClassRow[] = [];
  const pending: DataClassCoverage['pending'] = [];
  const usedExemptions = new Set<string>();
  for (const ty of dc.types.values()) {
    if (ty.pending !== undefined) {
      pending.push({ type: ty.name, classes: Object.keys(ty.classes), reason: ty.pending });
      if (Object.keys(ty.applies).length)
        problems.push(`data type ${ty.name} is pending and applies to requirements: drop one of the two`);
      continue;
    }
    for (const [req, cs] of Object.entries(ty.stated))
      for (const cls of cs)
        if (!(req in ty.applies) || !(cls in ty.classes))
          problems.push(
            `data type ${ty.name}: stated.${req} names ${cls}, not a class of it on a requirement it applies to`,
          );
    for (const [req, ops] of Object.entries(ty.applies)) {
      const r = cat.byId.get(req);
      if (!r || r.retired) {
        problems.push(`data type ${ty.name} applies to ${req}, which is not a requirement of the catalogue`);
        continue;
      }
      for (const op of ops)
        if (!(r.operations ?? []).includes(op))
          problems.push(`data type ${ty.name} applies to ${req} x ${op}, which is not among ${req}'s operations`);
      for (const cls of Object.keys(ty.classes))
        for (const op of ops) {
          // a class the requirement's statement is: every test of the requirement exercises it
          const stated = (ty.stated[req] ?? []).includes(cls);
          const claimed = stated ? tests.filter((t) => t.requirements.includes(req)) : [];
          const who = [...(declared.get(`${req}:${ty.name}.${cls}`) ?? []), ...claimed].filter(
            (t) => !run || (run.tests[t.id]?.operations ?? []).includes(op),
          );
          const base = { type: ty.name, class: cls, requirement: req, operation: op, tests: who.map((t) => t.id) };
          const key = [`${req}:${cls}`, `${req} ${op}`, req].find((k) => k in ty.untested);
          if (who.length) {
            rows.push({ ...base, status: 'exercised' });
            if (key === `${req}:${cls}`)
              problems.push(
                `${req}:${ty.name}.${cls} is exercised (${base.tests.join(', ')}): remove untested.${key} of ${ty.name} from spec/data-classes.yaml`,
              );
          } else if (key !== undefined) {
            usedExemptions.add(`${ty.name} ${key}`);
            rows.push({ ...base, status: 'exempt', reason: ty.untested[key] });
          } else rows.push({ ...base, status: 'gap' });
        }
    }
    for (const key of Object.keys(ty.untested))
      if (!usedExemptions.has(`${ty.name} ${key}`) && !key.includes(':'))
        problems.push(
          `data type ${ty.name}: untested.${key} exempts no row (every row it names is exercised, or it names none): remove it`,
        );
      else if (!usedExemptions.has(`${ty.name} ${key}`) && !rows.some((x) => `${x.requirement}:${x.class}` === key))
        problems.push(`data type ${ty.name}: untested.${key} names no row of its classes`);
  }
  const n = (s: RowStatus) => rows.filter((x) => x.status === s).length;
  for (const x of rows)
    if (x.status === 'gap')
      problems.push(
        `${x.requirement} x ${x.operation}: data class ${x.type}.${x.class} is exercised by no test naming ${x.requirement}${run ? ' that calls the operation' : ''} (declare \`${x.requirement}:${x.type}.${x.class}\` in the test's classes, or say why not in untested of spec/data-classes.yaml)`,
      );
  return {
    version: dc.version,
    rows,
    pending,
    counts: {
      rows: rows.length,
      exercised: n('exercised'),
      exempt: n('exempt'),
      gaps: n('gap'),
      types: dc.types.size,
      pendingClasses: pending.reduce((k, p) => k + p.classes.length, 0),
    },
    fromRun: run !== undefined,
    problems,
  };
}

/** The count line of the coverage summary. */
export function dataClassesSummary(c: DataClassCoverage): string {
  const k = c.counts;
  return `- data classes (spec/data-classes.yaml ${c.version}): ${k.rows} (requirement, operation, class) rows over ${k.types - c.pending.length} types; exercised: ${k.exercised}; exempt: ${k.exempt}; gaps: ${k.gaps}; ${c.pending.length} types (${k.pendingClasses} classes) pending`;
}

export function dataClassesMarkdown(c: DataClassCoverage): string[] {
  const out: string[] = ['', '## Data classes', ''];
  out.push(
    `The value classes the spec's types admit (spec/data-classes.yaml), on every (requirement, operation) each type applies to. "Exercised" means a test naming the requirement declares \`REQ-ID:<type>.<class>\`${c.fromRun ? ' and called the operation in the run judged' : ''}.`,
  );
  out.push('');
  const byType = new Map<string, DataClassRow[]>();
  for (const x of c.rows) byType.set(x.type, [...(byType.get(x.type) ?? []), x]);
  out.push('| type | rows | exercised | exempt | gaps |');
  out.push('|---|---|---|---|---|');
  for (const [type, rs] of byType)
    out.push(
      `| ${type} | ${rs.length} | ${rs.filter((x) => x.status === 'exercised').length} | ${rs.filter((x) => x.status === 'exempt').length} | ${rs.filter((x) => x.status === 'gap').length} |`,
    );
  for (const p of c.pending) out.push(`| ${p.type} | pending: ${p.classes.length} classes | | | |`);
  out.push('');
  out.push(
    ...classTable(['requirement', 'operation', 'class'], c.rows, (x) => [
      x.requirement,
      x.operation,
      `${x.type}.${x.class}`,
    ]),
  );
  if (c.pending.length) {
    out.push('');
    out.push('Types no requirement is mapped to yet:');
    out.push('');
    for (const p of c.pending) out.push(`- ${p.type} (${p.classes.join(', ')}): ${md(p.reason)}`);
  }
  return out;
}
