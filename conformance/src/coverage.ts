// The coverage gate: which tests verify which requirement (from a real collection of the suite).
import fs from 'node:fs';
import path from 'node:path';
import type { Catalogue, RequirementLevel } from './catalogue.js';
import { areaOf } from './catalogue.js';

export interface CollectedTest {
  id: string;
  title: string;
  file: string;
  requirements: string[];
  profile: 'core' | 'implementation-defined';
  mutates: boolean;
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
}

/** Requirements verified by the generic checks on every exchange, not by named tests. */
const GENERIC_REQUIREMENTS = new Set(['GEN-001', 'GEN-002']);

export function buildCoverage(
  cat: Catalogue,
  collected: CollectedTest[],
  collectionErrors: string[] = [],
  now = new Date(),
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
          : GENERIC_REQUIREMENTS.has(r.id)
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
  out.push('');
  return out.join('\n');
}

/** Writes both files; `stale` says the table (coverage.md, which has no timestamp) was there and differed. */
export function writeCoverage(r: CoverageReport, dir: string): { md: string; json: string; stale: boolean } {
  fs.mkdirSync(dir, { recursive: true });
  const mdFile = path.join(dir, 'coverage.md');
  const jsonFile = path.join(dir, 'coverage.json');
  const md = coverageMarkdown(r);
  const before = fs.existsSync(mdFile) ? fs.readFileSync(mdFile, 'utf8') : undefined;
  fs.writeFileSync(mdFile, md);
  fs.writeFileSync(jsonFile, `${JSON.stringify(r, null, 2)}\n`);
  return { md: mdFile, json: jsonFile, stale: before !== undefined && before !== md };
}
