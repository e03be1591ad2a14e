// `npm run docs:figures`: the figures of README.md ("What the suite is worth" and "Speed targets"),
// rendered from the committed reports, never typed. It rewrites the two tables between their
// markers; docs/test/readme-figures.test.ts fails while README.md differs from this render.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { targetsTable, type Target } from '../bench/lib/markdown.js';

/** The reports a figure comes from, relative to the repository root. */
export const SOURCES = {
  reference: 'reports/reference/results.json',
  coverage: 'reports/coverage.json',
  mutation: 'reports/mutation.json',
  diagnosis: 'reports/diagnosis/mutation.json',
  serverMutation: 'reports/server-mutation/summary.json',
  bench: 'reports/bench/bench.json',
} as const;

type Json = Record<string, any>;

function read(root: string, rel: string): Json | undefined {
  const file = path.join(root, rel);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Json) : undefined;
}

function need(root: string, rel: string): Json {
  const j = read(root, rel);
  if (!j) throw new Error(`${rel} is missing: the README figures are rendered from it`);
  return j;
}

const pctOf = (x: number) => `${Math.round(x * 100)}%`;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

function referenceRow(r: Json): string {
  const reqs = r.requirements as Array<{ level: string; result: string }>;
  const by = (level: string, result: string) => reqs.filter((q) => q.level === level && q.result === result).length;
  const passed = reqs.filter((q) => q.result === 'passed').length;
  const testable = reqs.filter((q) => q.result !== 'not-testable').length;
  const notTestable = reqs.length - testable;
  return `| the reference server's conformance | ${passed} of ${testable} testable requirements pass (${by('core', 'passed')} core, ${by('implementation-defined', 'passed')} implementation-defined); ${notTestable} not testable, each with its reason | [reports/reference/](reports/reference/report.html) |`;
}

function coverageRow(c: Json): string {
  const { pairs: total, ...rest } = (c.pairCounts ?? {}) as Record<string, number>;
  const words = (k: string) => k.replace(/[A-Z]/g, (x) => ' ' + x.toLowerCase());
  const pairs = Object.entries(rest)
    .map(([k, v]) => `${v} ${words(k)}`)
    .join(', ');
  const { classes: classTotal, ...classes } = (c.partitions?.counts ?? {}) as Record<string, number>;
  const classText =
    classTotal !== undefined
      ? `, and every equivalence class a requirement names is exercised by a test or exempted (${classTotal} classes: ${Object.entries(
          classes,
        )
          .map(([k, v]) => `${v} ${words(k)}`)
          .join(', ')})`
      : '';
  return `| coverage gate | every testable requirement has a test, every (requirement, operation) pair (the operations derived from the fields and parameters a requirement governs, plus those listed by hand) is exercised in the run of the suite against the reference that \`npm test\` makes, or exempted with a reason (${c.testCount} tests; ${total} pairs: ${pairs})${classText} | [reports/coverage.md](reports/coverage.md) |`;
}

function mutationRows(m: Json, d: Json | undefined): string[] {
  const runs = (m.planned?.faults ?? 0) + (m.planned?.controls ?? 0);
  const f = m.failedPerFault as Json;
  const selected =
    f.median === null
      ? 'not measured'
      : `${f.median} (max ${f.max}) over ${f.scope === 'whole-suite' || f.scope === 'operations' ? 'the whole core suite' : f.scope === 'whole-files' ? "each fault's whole suite files" : "each fault's selected requirements"} in the latest mutation run, ${(f.unnamed as string[] | undefined)?.length ?? 0} faults fail a requirement they do not name`;
  let whole = '';
  // the diagnosis run is the check of a figure the mutation run already gives over the whole suite
  const overWholeSuite = f.scope === 'whole-suite' || f.scope === 'operations';
  if (!overWholeSuite && d?.failedPerFault?.median !== null && d?.failedPerFault?.median !== undefined) {
    const df = d.failedPerFault as Json;
    whole = `; over the whole core suite (\`npm run bench:diagnosis\`, ${String(d.startedAt).slice(0, 10)}, ${d.score.total} faults): median ${df.median}, max ${df.max}, ${(df.unnamed as string[]).length} faults fail a requirement they do not name`;
  }
  return [
    `| mutation score: injected implementation bugs (faults) the core suite catches | ${m.score.caught}/${m.score.total}, each on its own reference server (${duration(m.wallMs)} for the ${runs} runs on ${m.cpus} cores) | [reports/mutation.md](reports/mutation.md) |`,
    `| false-alarm rate: controls (behaviours the spec allows that the reference does not show) core fails | ${m.falseAlarms.failed} of ${m.falseAlarms.total} | [reports/mutation.md](reports/mutation.md), [conformance/faults/README.md](conformance/faults/README.md) |`,
    `| requirements one fault fails (median) | ${selected}${whole} | [reports/mutation.md](reports/mutation.md)${whole ? ', [reports/diagnosis/mutation.md](reports/diagnosis/mutation.md)' : ''} |`,
  ];
}

function serverMutationRow(s: Json): string {
  const t = s.targetAreas as Json;
  const n = (s.areas as Json[]).filter((a) => a.target).length;
  const ne = t.nonEquivalent as Json;
  const doc = t.documented as Json;
  const met = ne.rate >= s.target;
  return `| mutation of the reference server's own code (StrykerJS, ${t.sampled} sampled mutants in ${n} target areas) | core kills ${pctOf(ne.rate)} of the non-equivalent mutants (95% interval ${pctOf(ne.low)}-${pctOf(ne.high)}), ${met ? 'meeting' : 'short of'} the ${pctOf(s.target)} target, and ${doc.detected} of ${doc.of} mutants of documented behaviour (95% interval ${pctOf(doc.low)}-${pctOf(doc.high)}); every survivor triaged | [docs/server-mutation.md](docs/server-mutation.md) |`;
}

/** The "What the suite is worth" table. */
export function worthTable(root: string): string {
  return [
    '| measure | figure | where |',
    '|---|---|---|',
    referenceRow(need(root, SOURCES.reference)),
    coverageRow(need(root, SOURCES.coverage)),
    ...mutationRows(need(root, SOURCES.mutation), read(root, SOURCES.diagnosis)),
    serverMutationRow(need(root, SOURCES.serverMutation)),
    "| reliability: bad input, crashes, concurrency, a hostile target, vendors' data | see the page | [docs/reliability.md](docs/reliability.md) |",
    '| speed (`npm run bench`, quiet 2-core machine) | see the table below | [docs/benchmarks.md](docs/benchmarks.md), [reports/bench/](reports/bench/README.md) |',
  ].join('\n');
}

/** The "Speed targets" table: the targets of the latest `npm run bench` (guards left to its report). */
export function speedTable(root: string): string {
  const b = need(root, SOURCES.bench);
  // the bench's own table of targets (bench/lib/markdown.ts), its guards left to its report
  const targets = (b.targets as Target[]).filter((t) => !String(t.name).startsWith('guard:'));
  return [
    `Measured by \`npm run bench\` on ${String(b.meta.date).slice(0, 10)} (commit ${b.meta.commit}, ${b.meta.cpus} cores); why a target is not met, measured, is in [docs/benchmarks.md](docs/benchmarks.md).`,
    '',
    targetsTable(targets, 'left'),
  ].join('\n');
}

const MARK = (name: string, end: boolean) =>
  end
    ? `<!-- figures:${name}:end -->`
    : `<!-- figures:${name}:begin (npm run docs:figures renders this from reports/; do not edit) -->`;

/** README.md with both tables rendered between their markers. */
export function withFigures(readme: string, root: string): string {
  let out = readme;
  for (const [name, body] of [
    ['worth', worthTable(root)],
    ['speed', speedTable(root)],
  ] as const) {
    const begin = out.indexOf(`<!-- figures:${name}:begin`);
    const end = out.indexOf(MARK(name, true));
    if (begin < 0 || end < begin) throw new Error(`README.md has no figures:${name} markers`);
    out = out.slice(0, begin) + MARK(name, false) + '\n' + body + '\n' + out.slice(end);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.join(import.meta.dirname, '..');
  const file = path.join(root, 'README.md');
  const before = fs.readFileSync(file, 'utf8');
  const after = withFigures(before, root);
  fs.writeFileSync(file, after);
  process.stdout.write(after === before ? 'README figures: up to date\n' : 'README figures: rewritten from reports/\n');
}
