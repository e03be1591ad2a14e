// The reports of the server mutation run (scripts/mutation-server.ts, docs/server-mutation.md):
// summary.{json,md} and triage.md, built from the area JSON files and the hand-written triage.yaml.
// Kept apart from the runner so that `--report-only` needs nothing of Stryker.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export interface MutantRecord {
  id: string;
  key: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  mutator: string;
  original: string;
  replacement: string;
  /** killed | survived | timeout | error (Stryker's RuntimeError/CompileError) */
  status: string;
  /** Which pass decided: 'area' (the area's suite files) or 'core' (the whole core suite). */
  decidedBy: 'area' | 'core';
  /** Exit code of the conformance run (1 test failed, 3 harness/server start failed), if it ended. */
  exitCode?: number;
  durationMs?: number;
  /** For a killed mutant: the first requirement the suite failed and why (from the run's output). */
  killedBy?: string;
  /** For a kill: what it rests on (see killEvidence in mutation-server.ts). */
  killEvidence?: 'test' | 'server' | 'precondition' | 'none';
  /** Run again by --recheck (its first kill rested on no failed test). */
  rechecked?: boolean;
  /** For a survivor: whether the area's implementation-defined tests kill it (pass 4). */
  implDefinedKills?: boolean;
  implDefinedKilledBy?: string;
}

export interface AreaReport {
  area: string;
  title: string;
  files: string[];
  requirements: string;
  suite: string[];
  seed: number;
  /** The commit whose reference-server/src was mutated ('+dirty' with uncommitted server changes). */
  commit?: string;
  population: number;
  populationByMutator: Record<string, number>;
  sampled: number;
  confirmed: boolean;
  startedAt: string;
  finishedAt: string;
  durationS: number;
  mutants: MutantRecord[];
}

interface TriageEntry {
  /** equivalent | undocumented (behaviour the spec does not document or the interface cannot show) | weak-test */
  kind: 'equivalent' | 'undocumented' | 'weak-test';
  why: string;
  /** For weak tests: the requirement whose test should kill it. */
  requirement?: string;
}

function loadTriage(out: string): Record<string, TriageEntry> {
  const f = path.join(out, 'triage.yaml');
  if (!fs.existsSync(f)) return {};
  const doc = YAML.parse(fs.readFileSync(f, 'utf8')) as { survivors?: Record<string, TriageEntry> } | null;
  return doc?.survivors ?? {};
}

/** The issue's target (issue 12 item 6): this share of non-equivalent mutants killed. */
const TARGET = 0.9;

/** A proportion with its 95% Wilson score interval (sound for samples of 20 and rates near 100%). */
interface Rate {
  detected: number;
  of: number;
  rate: number;
  low: number;
  high: number;
}

function rate(k: number, n: number): Rate {
  if (n === 0) return { detected: 0, of: 0, rate: 0, low: 0, high: 1 };
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { detected: k, of: n, rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

interface Counts {
  population: number;
  sampled: number;
  killedByArea: number;
  killedByCore: number;
  timeout: number;
  error: number;
  survived: number;
  equivalent: number;
  undocumented: number;
  weakTest: number;
  untriaged: number;
  /** Non-equivalent survivors of core that the area's implementation-defined tests kill (pass 4). */
  killedByImplDefined: number;
  /** Kills that rest only on a failed provider state (the mutant broke a fixture, no test failed). */
  killedViaPreconditionOnly: number;
  /** Kills that rest on no failed test, precondition or server start (see --recheck). */
  killedWithoutEvidence: number;
  /** Kills whose evidence was not recorded (runs made before it was). */
  killedEvidenceUnknown: number;
}

interface Figures extends Counts {
  /** (killed + timeout + error) / sampled */
  killRate: Rate;
  /** (a) the issue's figure: detected by core / (sampled - equivalent) */
  nonEquivalent: Rate;
  /** (b) detected by core / (sampled - equivalent - undocumented): mutants of documented behaviour */
  documented: Rate;
  /** (c) (detected by core + killed by the implementation-defined profile) / (sampled - equivalent) */
  wholeSuite: Rate;
}

interface AreaFigures extends Figures {
  area: string;
  title: string;
  target: boolean;
  commit?: string;
}

function count(r: AreaReport, triage: Record<string, TriageEntry>): Counts {
  const c = (p: (m: MutantRecord) => boolean) => r.mutants.filter(p).length;
  const survivors = r.mutants.filter((m) => m.status === 'survived');
  const kind = (k: TriageEntry['kind']) => survivors.filter((m) => triage[m.key]?.kind === k).length;
  return {
    population: r.population,
    sampled: r.sampled,
    killedByArea: c((m) => m.status === 'killed' && m.decidedBy === 'area'),
    killedByCore: c((m) => m.status === 'killed' && m.decidedBy === 'core'),
    timeout: c((m) => m.status === 'timeout'),
    error: c((m) => m.status === 'error'),
    survived: survivors.length,
    equivalent: kind('equivalent'),
    undocumented: kind('undocumented'),
    weakTest: kind('weak-test'),
    untriaged: survivors.filter((m) => !triage[m.key]).length,
    killedByImplDefined: survivors.filter((m) => m.implDefinedKills && triage[m.key]?.kind !== 'equivalent').length,
    killedViaPreconditionOnly: c((m) => m.status === 'killed' && m.killEvidence === 'precondition'),
    killedWithoutEvidence: c((m) => m.status === 'killed' && m.killEvidence === 'none'),
    killedEvidenceUnknown: c((m) => m.status === 'killed' && m.killEvidence === undefined),
  };
}

function figures(c: Counts): Figures {
  // a kill that rests on no failed test is counted as detected; summary.md shows how many there are
  const detected = c.killedByArea + c.killedByCore + c.timeout + c.error;
  const nonEquivalent = c.sampled - c.equivalent;
  return {
    ...c,
    killRate: rate(detected, c.sampled),
    nonEquivalent: rate(detected, nonEquivalent),
    documented: rate(detected, nonEquivalent - c.undocumented),
    wholeSuite: rate(detected + c.killedByImplDefined, nonEquivalent),
  };
}

const COUNT_KEYS: Array<keyof Counts> = [
  'population',
  'sampled',
  'killedByArea',
  'killedByCore',
  'timeout',
  'error',
  'survived',
  'equivalent',
  'undocumented',
  'weakTest',
  'untriaged',
  'killedByImplDefined',
  'killedViaPreconditionOnly',
  'killedWithoutEvidence',
  'killedEvidenceUnknown',
];

function addCounts(rows: Counts[]): Counts {
  return Object.fromEntries(COUNT_KEYS.map((k) => [k, rows.reduce((s, r) => s + r[k], 0)])) as unknown as Counts;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const whole = (x: number) => `${Math.round(100 * x)}%`;
const fmt = (r: Rate) =>
  r.of ? `${pct(r.rate)} (${r.detected}/${r.of}; 95% CI ${whole(r.low)}–${whole(r.high)})` : '–';

/** Plain words on one figure against the 90% target, the interval included. */
function verdict(r: Rate): string {
  if (!r.of) return 'no data';
  if (r.rate < TARGET) return r.high < TARGET ? '**not met**' : '**not met** (the interval reaches 90%)';
  return r.low >= TARGET ? '**met**' : '**met** by the estimate (the interval reaches below 90%)';
}

export function writeReports(out: string, areaOrder: string[], targets: Set<string>): void {
  const reports = areaOrder
    .map((a) => path.join(out, `${a}.json`))
    .filter((f) => fs.existsSync(f))
    .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as AreaReport);
  if (!reports.length) {
    console.log(`no area reports in ${out}`);
    return;
  }
  const triage = loadTriage(out);
  for (const r of reports) {
    for (const m of r.mutants) {
      if (m.status === 'survived' && m.implDefinedKills && triage[m.key]?.kind === 'equivalent') {
        console.warn(`warning: ${m.key} is triaged equivalent, yet the implementation-defined tests kill it`);
      }
    }
  }
  // Verdicts that name no survivor of the kept runs (the code or the sample changed): to be pruned.
  const survivorKeys = new Set(
    reports.flatMap((r) => r.mutants.filter((m) => m.status === 'survived').map((m) => m.key)),
  );
  for (const key of Object.keys(triage)) {
    if (!survivorKeys.has(key)) console.warn(`warning: triage.yaml names no survivor of the kept runs: ${key}`);
  }
  const rows: AreaFigures[] = reports.map((r) => ({
    area: r.area,
    title: r.title,
    target: targets.has(r.area),
    commit: r.commit,
    ...figures(count(r, triage)),
  }));
  const targetRows = rows.filter((r) => r.target);
  const together = targetRows.length ? figures(addCounts(targetRows)) : undefined;
  fs.writeFileSync(
    path.join(out, 'summary.json'),
    JSON.stringify(
      { tool: 'StrykerJS 9.6.1 (command runner)', target: TARGET, areas: rows, targetAreas: together },
      null,
      2,
    ) + '\n',
  );

  const md: string[] = [
    '# Mutation of the reference server: summary',
    '',
    'Generated by `npm run test:mutation:server` (scripts/mutation-server.ts); see docs/server-mutation.md.',
    'StrykerJS 9.6.1, command runner, the conformance **core** profile as the test. A seeded random sample',
    "of each area's mutants; each is run first against the area's suite files, the survivors again",
    "against the whole core suite, and the final survivors against the area's implementation-defined",
    'tests. Survivor verdicts: triage.md (from triage.yaml). The demo seeds and the provider-state',
    'fixtures are not mutated (tooling, not the interface).',
    '',
    '## Counts',
    '',
    '| Area | Server of commit | Mutants | Sampled | Killed (area tests) | Killed (rest of core) | Timeout | Error | Survived | Equivalent | Undocumented | Weak test | Untriaged | Survivors killed by the impl.-defined tests | Kills through a failed provider state only | Kills with no failed test |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const countRow = (title: string, commit: string, c: Counts) =>
    `| ${title} | ${commit} | ${c.population} | ${c.sampled} | ${c.killedByArea} | ${c.killedByCore} | ${c.timeout} | ${c.error} | ${c.survived} | ${c.equivalent} | ${c.undocumented} | ${c.weakTest} | ${c.untriaged} | ${c.killedByImplDefined} | ${evidence(c, c.killedViaPreconditionOnly)} | ${evidence(c, c.killedWithoutEvidence)} |`;
  // runs made before the evidence was recorded: how many of their kills are not known
  const evidence = (c: Counts, n: number) =>
    c.killedEvidenceUnknown ? `${n} (${c.killedEvidenceUnknown} kills not recorded)` : `${n}`;
  for (const r of rows) md.push(countRow(`${r.title}${r.target ? ' (target)' : ''}`, r.commit ?? '?', r));
  if (together) md.push(countRow('**Target areas together**', '', together));
  md.push(
    '',
    '## Kill rates',
    '',
    "(a) the issue's figure: non-equivalent mutants killed by core. (b) mutants of documented behaviour",
    'killed by core (survivors triaged "undocumented" left out). (c) non-equivalent mutants killed by the',
    "whole suite: core plus the area's implementation-defined tests. Intervals: 95% Wilson score.",
    '',
    '| Area | (a) non-equivalent, core | 90% on (a) | (b) documented behaviour, core | 90% on (b) | (c) non-equivalent, core + impl.-defined | 90% on (c) |',
    '| --- | ---: | --- | ---: | --- | ---: | --- |',
  );
  const rateRow = (title: string, f: Figures, target: boolean) =>
    `| ${title} | ${fmt(f.nonEquivalent)} | ${target ? verdict(f.nonEquivalent) : '(no target)'} | ${fmt(f.documented)} | ${target ? verdict(f.documented) : '(no target)'} | ${fmt(f.wholeSuite)} | ${target ? verdict(f.wholeSuite) : '(no target)'} |`;
  for (const r of rows) md.push(rateRow(`${r.title}${r.target ? ' (target)' : ''}`, r, r.target));
  if (together) md.push(rateRow('**Target areas together**', together, true));
  md.push(
    '',
    'By file:',
    '',
    '| File | Sampled | Detected by core | Survived | Equivalent | Undocumented | (a) non-equivalent, core |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const r of reports) {
    for (const f of r.files) {
      // a file may carry a Stryker line range (file.ts:52-66)
      const ms = r.mutants.filter((m) => m.file === f.replace(/:[\d:-]+$/, ''));
      const det = ms.filter((m) => m.status !== 'survived').length;
      const kind = (k: string) => ms.filter((m) => m.status === 'survived' && triage[m.key]?.kind === k).length;
      md.push(
        `| ${f} | ${ms.length} | ${det} | ${ms.length - det} | ${kind('equivalent')} | ${kind('undocumented')} | ${ms.length - kind('equivalent') ? pct(det / (ms.length - kind('equivalent'))) : '–'} |`,
      );
    }
  }
  if (together) {
    md.push(
      '',
      `Target areas together (schedules, proposals, links, files, column/query engine; pooled over the ${together.sampled} sampled mutants, not weighted by area size): ` +
        `(a) ${fmt(together.nonEquivalent)}: the issue's 90% target ${verdict(together.nonEquivalent)}. ` +
        `(b) ${fmt(together.documented)}: ${verdict(together.documented)}. ` +
        `(c) ${fmt(together.wholeSuite)}: ${verdict(together.wholeSuite)}. ` +
        `${together.weakTest} weak-test survivors (weak-tests.md), ${together.untriaged} untriaged.`,
    );
  }
  md.push(
    '',
    'Runs:',
    '',
    ...reports.map(
      (r) =>
        `- ${r.area}: ${r.files.join(', ')}; area tests \`--requirements ${r.requirements}\` on ${r.suite.length} suite files; seed ${r.seed}; sample ${r.sampled} of ${r.population}; server of commit ${r.commit ?? 'not recorded'}; ${r.confirmed ? 'survivors confirmed against the whole core suite' : 'NOT confirmed against the whole core suite'}; ${r.startedAt} – ${r.finishedAt} (${r.durationS} s)`,
    ),
    '',
  );
  fs.writeFileSync(path.join(out, 'summary.md'), md.join('\n'));
  fs.writeFileSync(path.join(out, 'triage.md'), triageMarkdown(reports, triage));

  const from = md.indexOf('## Kill rates');
  console.log(`\n${md.slice(from, from + 8 + rows.length + (together ? 1 : 0)).join('\n')}\n`);
  console.log(`reports in ${out}/ (summary.md, summary.json, triage.md, <area>.json)`);
}

function triageMarkdown(reports: AreaReport[], triage: Record<string, TriageEntry>): string {
  const tm: string[] = [
    '# Mutation of the reference server: triage of every survivor',
    '',
    'Generated from the area reports and `triage.yaml` (edit the YAML, then `npm run test:mutation:server -- --report-only`).',
    'Kinds: **equivalent** (no program can tell the mutant from the original), **undocumented** (the',
    'behaviour changed is one the spec does not document, or implementation-defined, or not observable',
    'through the interface: core must not test it), **weak-test** (the spec documents the behaviour and',
    'core should have failed: a finding for the suite, detailed in weak-tests.md).',
    '',
  ];
  for (const r of reports) {
    const survivors = r.mutants.filter((m) => m.status === 'survived');
    tm.push(`## ${r.title} (${survivors.length} survivors of ${r.sampled}; server of commit ${r.commit ?? '?'})`, '');
    for (const m of survivors) {
      const t = triage[m.key];
      tm.push(
        `- \`${m.file}:${m.line}:${m.column}\` ${m.mutator}: \`${m.original}\` → \`${m.replacement}\`  `,
        t ? `  **${t.kind}**${t.requirement ? ` (${t.requirement})` : ''}: ${t.why.trim()}` : '  **UNTRIAGED**',
      );
      if (m.implDefinedKills !== undefined) {
        tm.push(
          m.implDefinedKills
            ? `  _The implementation-defined tests of the area kill it: ${m.implDefinedKilledBy ?? 'timeout'}_`
            : `  _The implementation-defined tests of the area do not kill it either._`,
        );
      }
    }
    tm.push('');
  }
  return tm.join('\n');
}
