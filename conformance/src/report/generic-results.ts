// The results of the generic checks: one synthetic test per suite file and generic requirement.
import path from 'node:path';
import { relFile } from '../paths.js';
import { GENERIC_REQUIREMENTS } from '../suite-api/generic-checks/checks.js';
import type { TestResult } from './results.js';
import type { ReportedTest } from './test-result.js';

/**
 * GEN-001 / GEN-002 are verified by the generic checks on every exchange: one synthetic test per
 * suite file and requirement (failed when any response of the file violated it). Violations of
 * the reference's choices (level 'implementation-defined', seen by implementation-defined tests
 * only) fail those tests, not GEN-002.
 */
export function genericResults(tests: ReportedTest[]): TestResult[] {
  const byFile = new Map<string, ReportedTest[]>();
  for (const t of tests) {
    const f = relFile(t.file);
    byFile.set(f, [...(byFile.get(f) ?? []), t]);
  }
  const out: TestResult[] = [];
  for (const [file, list] of byFile) {
    for (const code of GENERIC_REQUIREMENTS) {
      const checked = list.reduce((n, t) => n + (t.meta?.checked?.[code] ?? 0), 0);
      const violations = list.flatMap((t) =>
        (t.meta?.violations ?? [])
          // an owned violation (a broken envelope) counts against its owner's tests, one with
          // provenance against the requirements that state the constraint (below), not here
          .filter((v) => v.code === code && v.level !== 'implementation-defined' && !v.owner && !v.requirements?.length)
          .map((v) => ({ v, t })),
      );
      if (checked === 0 && violations.length === 0) continue;
      const base = path.basename(file).replace(/\.test\.ts$/, '');
      const r: TestResult = {
        id: `generic.${code.toLowerCase()}.${base}`,
        title: `generic check ${code} on ${checked} response(s) of ${file}`,
        file,
        profile: 'core',
        requirements: [code],
        result: violations.length ? 'failed' : 'passed',
        durationMs: 0,
        generic: true,
      };
      if (violations.length) {
        r.error = {
          message: violations.map(({ v, t }) => `${v.message} (in test ${t.meta?.id ?? t.name})`).join('\n'),
          exchanges: [],
        };
      }
      out.push(r);
    }
    const stated = statedShapeResult(file, list);
    if (stated) out.push(stated);
  }
  return out;
}

/**
 * The schema violations of a file's responses whose constraint a requirement of its own states
 * (violation-provenance.ts): one failed synthetic test of those requirements, so each fails even
 * where no test of its own met the broken answer. Absent when there is none (it only ever fails:
 * which requirements it would name is known from what broke).
 */
function statedShapeResult(file: string, list: ReportedTest[]): TestResult | undefined {
  const violations = list.flatMap((t) =>
    (t.meta?.violations ?? [])
      .filter((v) => v.level !== 'implementation-defined' && !v.owner && v.requirements?.length)
      .map((v) => ({ v, t })),
  );
  if (violations.length === 0) return undefined;
  const requirements = [...new Set(violations.flatMap(({ v }) => v.requirements!))].sort();
  return {
    id: `generic.stated-shape.${path.basename(file).replace(/\.test\.ts$/, '')}`,
    title: `documented shape stated by ${requirements.join(', ')} on the responses of ${file}`,
    file,
    profile: 'core',
    requirements,
    result: 'failed',
    durationMs: 0,
    generic: true,
    error: {
      message: violations.map(({ v, t }) => `${v.message} (in test ${t.meta?.id ?? t.name})`).join('\n'),
      exchanges: [],
    },
  };
}
