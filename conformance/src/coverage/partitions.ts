// Partition coverage: for each requirement, the equivalence classes the spec distinguishes that it
// must hold on (`classes:` in spec/requirements.yaml: each proposal type and the Endorsement path,
// each cause of non-modifiability, each kind of user permission, atomic and non-atomic, ...), and
// whether a test exercises each. A test says which classes it exercises (`classes: ['REQ-ID:class']`
// in its conformance() record); a class no test exercises is a gap unless the catalogue says why
// (`untestedClasses:`). The input is the collected tests, so this does not depend on how the
// operations a test calls are recorded.
import type { Catalogue, RequirementLevel } from '../spec/catalogue.js';
import { classTable, md } from './class-table.js';

type ClassStatus = 'exercised' | 'exempt' | 'not-testable' | 'gap';

interface ClassRow {
  requirement: string;
  class: string;
  /** What the class is, from the catalogue. */
  description: string;
  level: RequirementLevel;
  status: ClassStatus;
  reason?: string;
  /** Tests naming the requirement that declare the class. */
  tests: string[];
}

interface ClassTest {
  id: string;
  requirements: string[];
  classes?: string[];
}

export interface PartitionCoverage {
  rows: ClassRow[];
  counts: { classes: number; exercised: number; exempt: number; notTestable: number; gaps: number };
  problems: string[];
}

/**
 * `isDataClass`: whether a declared class name (after `REQ-ID:`) is a data class of
 * spec/data-classes.yaml, counted by coverage/data-classes.ts instead of here.
 */
export function buildPartitions(
  cat: Catalogue,
  tests: ClassTest[],
  isDataClass: (name: string) => boolean = () => false,
): PartitionCoverage {
  const problems: string[] = [];
  const declared = new Map<string, string[]>();
  for (const t of tests)
    for (const c of t.classes ?? []) {
      const [req, name] = [c.slice(0, c.indexOf(':')), c.slice(c.indexOf(':') + 1)];
      const r = cat.byId.get(req);
      if (t.requirements.includes(req) && isDataClass(name)) continue;
      if (!t.requirements.includes(req))
        problems.push(`test ${t.id} declares class ${c} of a requirement it does not name`);
      else if (!r?.classes || !(name in r.classes))
        problems.push(`test ${t.id} declares class ${c}, which is not a class of ${req} in the catalogue`);
      else declared.set(c, [...(declared.get(c) ?? []), t.id]);
    }
  const rows: ClassRow[] = [];
  for (const r of cat.requirements) {
    if (r.retired || !r.classes) continue;
    for (const [name, description] of Object.entries(r.classes)) {
      const tests = declared.get(`${r.id}:${name}`) ?? [];
      const base = { requirement: r.id, class: name, description, level: r.level, tests };
      const exemption = r.untestedClasses?.[name];
      if (!r.testable) rows.push({ ...base, status: 'not-testable', reason: r.reason });
      else if (tests.length) {
        rows.push({ ...base, status: 'exercised' });
        if (exemption !== undefined)
          problems.push(
            `${r.id}:${name} is exercised (${tests.join(', ')}): remove untestedClasses.${name} from the catalogue`,
          );
      } else if (exemption !== undefined) rows.push({ ...base, status: 'exempt', reason: exemption });
      else rows.push({ ...base, status: 'gap' });
    }
    for (const name of Object.keys(r.untestedClasses ?? {}))
      if (!(name in r.classes))
        problems.push(`${r.id}: untestedClasses names ${name}, which is not one of its classes`);
  }
  const n = (s: ClassStatus) => rows.filter((x) => x.status === s).length;
  for (const x of rows)
    if (x.status === 'gap')
      problems.push(
        `${x.requirement}:${x.class} (${x.description}): no test naming ${x.requirement} exercises this class (declare it in the test's classes, or say why not in untestedClasses)`,
      );
  return {
    rows,
    counts: {
      classes: rows.length,
      exercised: n('exercised'),
      exempt: n('exempt'),
      notTestable: n('not-testable'),
      gaps: n('gap'),
    },
    problems,
  };
}

export function partitionsMarkdown(p: PartitionCoverage): string[] {
  const out: string[] = ['', '## Equivalence classes', ''];
  out.push(
    'The classes the spec distinguishes that a requirement must hold on (`classes:` in spec/requirements.yaml). "Exercised" means a test naming the requirement declares the class (`classes:` of its conformance() record).',
  );
  out.push('');
  out.push(...classTable(['requirement', 'class', 'what'], p.rows, (x) => [x.requirement, x.class, md(x.description)]));
  return out;
}
