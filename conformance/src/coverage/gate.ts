// The coverage gate: which tests verify which requirement (from a real collection of the suite).
import fs from 'node:fs';
import path from 'node:path';
import type { Catalogue, Requirement, RequirementLevel } from '../spec/catalogue.js';
import { areaOf } from '../spec/catalogue.js';
import { GENERIC_REQUIREMENTS } from '../suite-api/generic-checks/checks.js';
import type { RunRecord } from './operations.js';
import { governedByRequirement, type Governed } from './derive.js';
import { loadOpenApi } from '../spec/openapi.js';
import { buildPartitions, partitionsMarkdown, type PartitionCoverage } from './partitions.js';
import {
  buildFeaturePairs,
  featurePairsMarkdown,
  featurePairsSummary,
  type FeaturePairCoverage,
} from './feature-pairs.js';
import {
  buildDataClasses,
  dataClassesMarkdown,
  dataClassesSummary,
  isDataClassName,
  type DataClassCatalogue,
  type DataClassCoverage,
} from './data-classes.js';

export interface CollectedTest {
  id: string;
  title: string;
  file: string;
  requirements: string[];
  profile: 'core' | 'implementation-defined';
  mutates: boolean;
  /** Equivalence classes the test declares (`REQ-ID:class`). */
  classes?: string[];
}

type CoverageStatus = 'covered' | 'generic-checks' | 'untested' | 'not-testable';

interface CoverageRow {
  id: string;
  area: string;
  section: string;
  level: RequirementLevel;
  testable: boolean;
  status: CoverageStatus;
  reason?: string;
  statement: string;
  tests: Array<{ id: string; file: string; profile: string }>;
}

/**
 * One (requirement, operation) pair of the catalogue (`operations:` of the requirement):
 * - exercised: a test naming the requirement called the operation in the run of the suite judged;
 * - generic-checks: GEN-001/GEN-002, checked on every exchange: some test called the operation;
 * - exempt: the catalogue says why no test exercises it (`untestedOperations:`);
 * - not-testable: the requirement as a whole is not testable;
 * - gap: none of these (a gate problem).
 */
type PairStatus = 'exercised' | 'generic-checks' | 'exempt' | 'not-testable' | 'gap';

interface PairRow {
  requirement: string;
  operation: string;
  level: RequirementLevel;
  status: PairStatus;
  reason?: string;
  /** The operation is derived from what the requirement governs (`governs:`), not entered by hand. */
  derived?: boolean;
  /** Tests naming the requirement that called the operation (for generic-checks: how many tests called it). */
  tests: string[];
  genericTestCount?: number;
}

/** What the pair coverage is judged from: a run of the whole suite against the reference. */
export interface OperationsInput {
  /** The operations each test called in the run (its results.json). */
  run: RunRecord;
  /** Files under conformance/suite changed after the run started (suiteFilesChangedAfter). */
  changedSinceRun?: string[];
  /** Count the feature pairs of the suite's listings in the run (feature-pairs.ts); the CLI does. */
  featurePairs?: boolean;
  /** The operations each requirement governs (default: derived from spec/generated/openapi.json). */
  governed?: Map<string, Governed>;
}

export interface CoverageReport {
  schema: 'rflps-conformance-coverage/1';
  generatedAt: string;
  catalogueVersion: string;
  testCount: number;
  rows: CoverageRow[];
  counts: {
    requirements: number;
    testable: number;
    covered: number;
    untested: number;
    notTestable: number;
    coreTestable: number;
    coreCovered: number;
    coreUntested: number;
  };
  /** Tests naming requirement IDs that are not in the catalogue (or retired). */
  unknownReferences: Array<{ test: string; file: string; ids: string[] }>;
  duplicateTestIds: Array<{ id: string; files: string[] }>;
  /** Suite files that failed to collect. */
  collectionErrors: string[];
  /** Requirement x operation pairs (absent when no operations input was given). */
  pairs?: PairRow[];
  pairCounts?: {
    pairs: number;
    exercised: number;
    exempt: number;
    notTestable: number;
    gaps: number;
    /** Pairs derived from `governs:` that the hand-entered `operations:` lists did not name. */
    derived: number;
  };
  /** Problems of the run judged and of the exemptions (a partial or failing run, unknown exemptions ...). */
  pairProblems?: string[];
  /** Equivalence classes of the requirements and the tests that exercise them. */
  partitions?: PartitionCoverage;
  /** Data classes of spec/data-classes.yaml per (requirement, operation) and the tests that exercise them. */
  dataClasses?: DataClassCoverage;
  /** Pairs of query and column features per listing, from the run judged. */
  featurePairs?: FeaturePairCoverage;
  /** The run the operations come from. */
  operationsSource?: { file: string; target: string; profile: string; seed?: number; startedAt?: string };
}

/** Requirements verified by the generic checks on every exchange, not by named tests. */
const GENERIC_CHECKED = new Set<string>(GENERIC_REQUIREMENTS);

export function buildCoverage(
  cat: Catalogue,
  collected: CollectedTest[],
  collectionErrors: string[] = [],
  now = new Date(),
  operations?: OperationsInput,
  /** spec/data-classes.yaml (loadDataClasses); absent: no data-class coverage. */
  dataClasses?: DataClassCatalogue,
): CoverageReport {
  // Collection order depends on the pool; sort so the table is the same from run to run.
  const tests = [...collected].sort((a, b) => a.file.localeCompare(b.file) || a.id.localeCompare(b.id));
  const byReq = new Map<string, CollectedTest[]>();
  const unknownReferences: CoverageReport['unknownReferences'] = [];
  for (const t of tests) {
    const unknown: string[] = [];
    for (const id of t.requirements) {
      const r = cat.byId.get(id);
      if (!r || r.retired) unknown.push(id);
      byReq.set(id, [...(byReq.get(id) ?? []), t]);
    }
    if (unknown.length) unknownReferences.push({ test: t.id, file: t.file, ids: unknown });
  }
  const idFiles = new Map<string, string[]>();
  for (const t of tests) idFiles.set(t.id, [...(idFiles.get(t.id) ?? []), t.file]);
  const duplicateTestIds = [...idFiles].filter(([, f]) => f.length > 1).map(([id, files]) => ({ id, files }));

  const rows: CoverageRow[] = cat.requirements
    .filter((r) => !r.retired)
    .map((r) => {
      const ts = byReq.get(r.id) ?? [];
      const status: CoverageStatus = !r.testable
        ? 'not-testable'
        : ts.length > 0
          ? 'covered'
          : GENERIC_CHECKED.has(r.id)
            ? 'generic-checks'
            : 'untested';
      return {
        id: r.id,
        area: areaOf(r.id),
        section: r.section,
        level: r.level,
        testable: r.testable,
        status,
        reason: r.testable ? undefined : r.reason,
        statement: r.statement,
        tests: ts.map((t) => ({ id: t.id, file: t.file, profile: t.profile })),
      };
    });
  const testable = rows.filter((r) => r.testable);
  const core = testable.filter((r) => r.level === 'core');
  const isCovered = (r: CoverageRow) => r.status === 'covered' || r.status === 'generic-checks';
  const pairPart = operations ? buildPairs(cat, tests, operations) : {};
  return {
    schema: 'rflps-conformance-coverage/1',
    generatedAt: now.toISOString(),
    catalogueVersion: cat.version,
    testCount: tests.length,
    rows,
    counts: {
      requirements: rows.length,
      testable: testable.length,
      covered: testable.filter(isCovered).length,
      untested: testable.filter((r) => !isCovered(r)).length,
      notTestable: rows.length - testable.length,
      coreTestable: core.length,
      coreCovered: core.filter(isCovered).length,
      coreUntested: core.filter((r) => !isCovered(r)).length,
    },
    unknownReferences,
    duplicateTestIds,
    collectionErrors,
    partitions: buildPartitions(cat, tests, (name) => isDataClassName(dataClasses, name)),
    ...(dataClasses ? { dataClasses: buildDataClasses(dataClasses, cat, tests, operations?.run) } : {}),
    ...pairPart,
    ...(operations?.featurePairs ? { featurePairs: buildFeaturePairs(operations.run) } : {}),
  };
}

/** The pairs of one requirement that are in scope: testable or not, every listed operation. */
function pairOf(r: Requirement, op: string, callers: Map<string, string[]>, opCallers: Map<string, string[]>): PairRow {
  const base = { requirement: r.id, operation: op, level: r.level };
  if (!r.testable) return { ...base, status: 'not-testable', reason: r.reason, tests: [] };
  const tests = callers.get(`${r.id} ${op}`) ?? [];
  if (tests.length) return { ...base, status: 'exercised', tests };
  if (GENERIC_CHECKED.has(r.id) && (opCallers.get(op) ?? []).length)
    return { ...base, status: 'generic-checks', tests: [], genericTestCount: opCallers.get(op)!.length };
  const exemption = r.untestedOperations?.[op];
  if (exemption !== undefined) return { ...base, status: 'exempt', reason: exemption, tests: [] };
  return { ...base, status: 'gap', tests: [] };
}

/** Why the run cannot vouch for the suite as it is: a part of it, another profile, tests it did not run or pass. */
function runProblems(run: RunRecord, tests: CollectedTest[], changed: string[]): string[] {
  const rerun = 'run `npm run test:conformance` (or give --results a run of the whole suite)';
  const p: string[] = [];
  if (run.profile !== 'all')
    p.push(`${run.file} is a run of profile ${run.profile}; the coverage needs a run of profile all: ${rerun}`);
  if (run.partial.length)
    p.push(
      `${run.file} is a run of a part of the suite (${run.partial.join(' ')}); the coverage needs the whole suite: ${rerun}`,
    );
  if (changed.length) p.push(`${changed.join(', ')} changed after the run in ${run.file} started: ${rerun}`);
  const missing = tests.filter((t) => !run.tests[t.id]).map((t) => t.id);
  if (missing.length) p.push(`test(s) ${missing.join(', ')} are not in the run in ${run.file}: ${rerun}`);
  const notPassed = Object.entries(run.tests)
    // a test that ended not-applicable as its last step, after every request it makes (a timing it
    // could not arrange on a loaded machine; t.notApplicable's afterEveryRequest), called every
    // operation it calls: the run vouches for it as for one that passed
    .filter(([, t]) => t.result !== 'passed' && !(t.result === 'not-applicable' && t.afterEveryRequest))
    .map(([id, t]) => `${id} (${t.result})`);
  if (notPassed.length)
    p.push(
      `${run.file}: test(s) did not pass against the reference, so their operations are not all known: ${notPassed.join(', ')}`,
    );
  return p;
}

function buildPairs(
  cat: Catalogue,
  tests: CollectedTest[],
  input: OperationsInput,
): Pick<CoverageReport, 'pairs' | 'pairCounts' | 'pairProblems' | 'operationsSource'> {
  const run = input.run;
  const problems = runProblems(run, tests, input.changedSinceRun ?? []);
  // who calls what: by (requirement, operation) over the tests that name the requirement
  const callers = new Map<string, string[]>();
  const opCallers = new Map<string, string[]>();
  for (const t of tests) {
    const ops = run.tests[t.id]?.operations ?? [];
    for (const op of ops) opCallers.set(op, [...(opCallers.get(op) ?? []), t.id]);
    for (const id of t.requirements)
      for (const op of ops) callers.set(`${id} ${op}`, [...(callers.get(`${id} ${op}`) ?? []), t.id]);
  }
  const governed = input.governed ?? governedByRequirement(cat.requirements, loadOpenApi().doc);
  const pairs: PairRow[] = [];
  for (const r of cat.requirements) {
    if (r.retired) continue;
    const g = governed.get(r.id);
    const ops = g?.operations ?? r.operations ?? [];
    for (const u of g?.unmatched ?? [])
      problems.push(`${r.id}: governs ${u}, which no operation of spec/openapi.yaml carries`);
    for (const op of Object.keys(r.untestedOperations ?? {})) {
      if (!ops.includes(op)) problems.push(`${r.id}: untestedOperations names ${op}, which is not in its operations`);
      else if (!r.testable)
        problems.push(
          `${r.id}: untestedOperations.${op} on a not-testable requirement (its reason covers every operation)`,
        );
      else if ((callers.get(`${r.id} ${op}`) ?? []).length)
        problems.push(
          `${r.id} x ${op} is exercised (${callers.get(`${r.id} ${op}`)!.join(', ')}): remove untestedOperations.${op} from the catalogue`,
        );
    }
    for (const op of ops) {
      const row = pairOf(r, op, callers, opCallers);
      pairs.push((r.operations ?? []).includes(op) ? row : { ...row, derived: true });
    }
  }
  const n = (s: PairStatus) => pairs.filter((p) => p.status === s).length;
  return {
    pairs,
    pairCounts: {
      pairs: pairs.length,
      exercised: n('exercised') + n('generic-checks'),
      exempt: n('exempt'),
      notTestable: n('not-testable'),
      gaps: n('gap'),
      derived: pairs.filter((p) => p.derived).length,
    },
    pairProblems: problems,
    operationsSource: {
      file: run.file,
      target: run.target,
      profile: run.profile,
      seed: run.seed,
      startedAt: run.startedAt,
    },
  };
}

/** The gate: problems that make `conformance coverage --check` exit 1 (empty = pass). */
export function coverageProblems(r: CoverageReport): string[] {
  const p: string[] = [];
  for (const row of r.rows) {
    if (row.level === 'core' && row.testable && row.status === 'untested')
      p.push(`${row.id} (core, testable) has no test`);
  }
  for (const u of r.unknownReferences)
    p.push(`test ${u.test} (${u.file}) names unknown requirement ID(s) ${u.ids.join(', ')}`);
  for (const d of r.duplicateTestIds) p.push(`test id ${d.id} is used more than once (${d.files.join(', ')})`);
  for (const e of r.collectionErrors) p.push(`collection error: ${e}`);
  p.push(...(r.pairProblems ?? []));
  p.push(...(r.partitions?.problems ?? []));
  p.push(...(r.dataClasses?.problems ?? []));
  p.push(...(r.featurePairs?.problems ?? []));
  for (const x of r.pairs ?? [])
    if (x.status === 'gap')
      p.push(
        `${x.requirement} x ${x.operation}: no test naming ${x.requirement} calls ${x.operation} (test it, or say why not in untestedOperations)`,
      );
  return p;
}

function md(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function coverageMarkdown(r: CoverageReport): string {
  const c = r.counts;
  const out: string[] = [];
  out.push('# Requirement coverage of the conformance suite');
  out.push('');
  out.push(
    `Generated by \`conformance coverage\` from a collection of \`conformance/suite\` (${r.testCount} tests) against catalogue ${r.catalogueVersion}. Do not edit.`,
  );
  out.push('');
  out.push(`- requirements: ${c.requirements} (${c.testable} testable, ${c.notTestable} not testable)`);
  out.push(`- testable and covered: ${c.covered} of ${c.testable}; untested: ${c.untested}`);
  out.push(`- core testable covered: ${c.coreCovered} of ${c.coreTestable}; core untested: ${c.coreUntested}`);
  if (r.pairCounts) {
    const pc = r.pairCounts;
    out.push(
      `- requirement x operation pairs: ${pc.pairs} (${pc.derived} derived from \`governs:\` beyond the hand-entered lists); exercised: ${pc.exercised}; exempt: ${pc.exempt}; not testable: ${pc.notTestable}; gaps: ${pc.gaps}`,
    );
  }
  if (r.partitions) {
    const k = r.partitions.counts;
    out.push(
      `- equivalence classes: ${k.classes}; exercised: ${k.exercised}; exempt: ${k.exempt}; not testable: ${k.notTestable}; gaps: ${k.gaps}`,
    );
  }
  if (r.dataClasses) out.push(dataClassesSummary(r.dataClasses));
  if (r.featurePairs) out.push(featurePairsSummary(r.featurePairs));
  const problems = coverageProblems(r);
  out.push(`- gate: ${problems.length === 0 ? 'PASS' : `FAIL (${problems.length} problem(s))`}`);
  if (problems.length) {
    out.push('');
    out.push('## Gate problems');
    out.push('');
    for (const p of problems) out.push(`- ${md(p)}`);
  }
  out.push('');
  out.push('## Requirements');
  out.push('');
  out.push('| ID | level | section | status | tests |');
  out.push('|---|---|---|---|---|');
  for (const row of r.rows) {
    const tests =
      row.status === 'generic-checks'
        ? 'generic checks on every response'
        : row.status === 'not-testable'
          ? md(row.reason ?? '')
          : row.tests.map((t) => `\`${t.id}\``).join(', ');
    out.push(`| ${row.id} | ${row.level} | ${row.section} | ${row.status} | ${tests} |`);
  }
  if (r.pairs) out.push(...pairsMarkdown(r));
  if (r.partitions?.rows.length) out.push(...partitionsMarkdown(r.partitions));
  if (r.dataClasses) out.push(...dataClassesMarkdown(r.dataClasses));
  if (r.featurePairs) out.push(...featurePairsMarkdown(r.featurePairs));
  out.push('');
  return out.join('\n');
}

function pairsMarkdown(r: CoverageReport): string[] {
  const out: string[] = [''];
  out.push('## Requirement x operation pairs');
  out.push('');
  const src = r.operationsSource;
  out.push(
    `Each requirement against each operation it governs: derived from spec/openapi.yaml where the catalogue says which fields or parameters the requirement is about (\`governs:\`; such pairs are marked "derived" when the hand-entered \`operations:\` list does not name them), and the hand-entered \`operations:\` of spec/requirements.yaml. "Exercised" means a test naming the requirement called the operation in the run of the whole suite (profile ${src?.profile ?? 'all'}) against ${md(src?.target ?? 'the reference')} (\`${src?.file ?? 'results.json'}\`; \`npm test\` makes that run with \`npm run test:conformance\` and judges it right after).`,
  );
  out.push('');
  out.push('| requirement | operation | status | tests or reason |');
  out.push('|---|---|---|---|');
  for (const p of r.pairs ?? []) {
    const detail =
      p.status === 'exercised'
        ? p.tests.map((t) => `\`${t}\``).join(', ')
        : p.status === 'generic-checks'
          ? `generic checks on the exchanges of ${p.genericTestCount} test(s)`
          : p.status === 'gap'
            ? '**no test**'
            : md(p.reason ?? '');
    out.push(`| ${p.requirement} | ${p.operation}${p.derived ? ' (derived)' : ''} | ${p.status} | ${detail} |`);
  }
  return out;
}

/** Writes both files (a table for readers, not a record the gate compares against). */
export function writeCoverage(r: CoverageReport, dir: string): { md: string; json: string } {
  fs.mkdirSync(dir, { recursive: true });
  const mdFile = path.join(dir, 'coverage.md');
  const jsonFile = path.join(dir, 'coverage.json');
  fs.writeFileSync(mdFile, coverageMarkdown(r));
  fs.writeFileSync(jsonFile, `${JSON.stringify(r, null, 2)}\n`);
  return { md: mdFile, json: jsonFile };
}
