// npm run test:mutation:server — StrykerJS mutation testing of the reference server's own code
// (reference-server/src), with the black-box conformance core suite as the test.
//
// A full run (every mutant x the whole core suite, ~15 s each) takes many hours on two cores, so this
// script runs a seeded random sample of mutants per area, in up to four Stryker passes per area:
//   1. enumerate: Stryker instruments the area's files and runs `exit 0` for every mutant (seconds):
//      the result is the full list of the area's mutants with Stryker's ids;
//   2. area pass: a seeded sample of those ids is run with the conformance core profile restricted to
//      the area's suite files and requirement prefixes (fast: the server and one or two suite files);
//   3. confirmation: the survivors of pass 2 are run again against the WHOLE core suite, so that a
//      survivor is a mutant no core test kills, not only the area's tests.
//   4. triage aid: the final survivors run against the area's implementation-defined profile: a
//      survivor that those tests kill changes behaviour the reference chose where the spec is silent.
// Stryker 9 has no sampling of its own. Passes 2 and 3 mutate the same files with the same options as
// pass 1 (so the ids are the same: the script checks each sampled id still names the same mutant), and
// the command is wrapped in a gate: a mutant outside the sample exits 0 at once (Stryker counts it as
// survived; this script ignores it), a sampled one runs the suite. The gate also logs each sampled
// run's exit code (1: a test failed, 3: the server did not start or the harness failed).
//
// Writes reports/server-mutation/{<area>.json,summary.json,summary.md,triage.md} (mutation-server-report.ts);
// triage.md joins the survivors with reports/server-mutation/triage.yaml (the verdict on each survivor).
//
//   --area a,b      areas to run (default: the five target areas); --list-areas shows them
//   --sample N      mutants per area (default 40; 0 = all of them)
//   --seed S        sampling seed (default 12)
//   --no-confirm    skip pass 3 (survivors are then survivors of the area's tests only)
//   --impl-only     only pass 4 on the survivors already in <area>.json (see below)
//   --recheck       run again, against the whole core suite, the kills in <area>.json whose run shows
//                   no failed test, precondition or server start (tests cut off or timed out only: on
//                   a busy machine that can be the machine); then pass 4 on any new survivor
//   --no-impl       skip pass 4
//   --report-only   do not run: rebuild summary.{json,md} and triage.md from the area JSON files
//   --out DIR       output directory (default reports/server-mutation)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Stryker } from '@stryker-mutator/core';
import { type AreaReport, type MutantRecord, writeReports } from './mutation-server-report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG_FILE = 'stryker.config.mjs';
// Request and test timeouts well above the defaults (10 s, 90 s): on a shared, overloaded machine a
// correct run's slow test must not be cut off and counted as a kill (see --recheck).
const CLI =
  'node conformance/bin/conformance.mjs run --local-process --profile core --bail 1 --timeout 30000 --test-timeout 240000 --report-dir .stryker-run';

interface Area {
  title: string;
  /** Files mutated, relative to the repository root. */
  files: string[];
  /** Pass 2: the requirement prefixes and suite files that exercise the area. */
  requirements: string;
  suite: string[];
  /** One of the areas issue 12 sets the 90% target for. */
  target: boolean;
}

const src = (f: string) => `reference-server/src/${f}`;
const suite = (f: string) => `conformance/suite/${f}.test.ts`;

const AREAS: Record<string, Area> = {
  schedules: {
    title: 'Schedules',
    files: [src('areas/schedules.ts')],
    requirements: 'SCHED-,PROP-',
    suite: [suite('schedules'), suite('proposals')],
    target: true,
  },
  proposals: {
    title: 'Proposals',
    // The proposal rules (areas/proposals.ts until main split it). Left out as tooling, not behaviour
    // of the interface (docs/server-mutation.md, "Scope"): proposals/seed.ts (the demo seed),
    // proposals/cascade.ts (provider-state teardown) and the fixture inserts of proposals/create.ts;
    // only its insertMember, the insert of CreateMember, is kept (a Stryker line range: keep it on
    // the function when create.ts changes).
    files: [
      ...['model', 'lookup', 'modifiability', 'tables'].map((f) => src(`proposals/${f}.ts`)),
      src('proposals/create.ts:52-66'),
    ],
    requirements: 'PROP-,SCHED-,BIND-,MEM-',
    suite: [suite('proposals'), suite('schedules'), suite('binding'), suite('members')],
    target: true,
  },
  links: {
    title: 'Links',
    files: [src('areas/links.ts')],
    requirements: 'LINK-',
    suite: [suite('links'), suite('auth')],
    target: true,
  },
  files: {
    title: 'Files',
    files: [src('areas/files.ts')],
    requirements: 'FILE-',
    suite: [suite('files')],
    target: true,
  },
  query: {
    title: 'Column/query engine',
    // the column/query engine: columns-engine.ts until it was split into src/columns/ (the kept query
    // run, commit 84d7934, mutated columns-engine.ts)
    files: [
      ...[
        'column-list',
        'select-builder',
        'request-context',
        'output-columns',
        'download-url',
        'record-read',
        'select-records',
        'sort-list',
        'paging',
        'empty-columns',
      ].map((f) => src(`columns/${f}.ts`)),
      src('filter-parser.ts'),
      src('areas/query.ts'),
    ],
    requirements: 'QRY-,COL-,FILE-,LINK-',
    suite: [suite('query'), suite('columns'), suite('files'), suite('links')],
    target: true,
  },
  binding: {
    title: 'Binding',
    files: [src('areas/binding.ts')],
    requirements: 'BIND-,PROP-',
    suite: [suite('binding'), suite('proposals')],
    target: false,
  },
  records: {
    title: 'Records, members, domains, validation',
    // validation.ts without its last section, the validation of provider-state params (fixture
    // tooling, docs/server-mutation.md "Scope"): a Stryker line range, to keep on that section.
    files: [src('areas/records.ts'), src('areas/members.ts'), src('areas/domains.ts'), src('validation.ts:1-338')],
    requirements: 'REC-,MEM-,DOM-,GEN-,LIM-',
    suite: [suite('records'), suite('members'), suite('domains'), suite('generic'), suite('limits')],
    target: false,
  },
};
const DEFAULT_AREAS = Object.keys(AREAS).filter((a) => AREAS[a].target);

type StrykerOptions = ConstructorParameters<typeof Stryker>[0];
type StrykerResult = Awaited<ReturnType<Stryker['runMutationTest']>>[number];

// ----------------------------------------------------------------------------------- sampling

/** mulberry32: a small seeded PRNG, so that a sample is reproducible from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sample<T>(items: T[], n: number, seed: number): T[] {
  const a = [...items];
  const r = rng(seed);
  const k = n <= 0 ? a.length : Math.min(n, a.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(r() * (a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
}

// ------------------------------------------------------------------------------------ stryker

const rel = (f: string) => path.relative(ROOT, path.resolve(ROOT, f));

function mutantKey(m: StrykerResult): string {
  const l = m.location;
  return `${rel(m.fileName)}@${l.start.line}:${l.start.column}-${l.end.line}:${l.end.column} ${m.mutatorName} ${oneLine(m.replacement ?? '')}`;
}

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

const sourceCache = new Map<string, string[]>();
function originalText(file: string, l: StrykerResult['location']): string {
  let lines = sourceCache.get(file);
  if (!lines) {
    lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    sourceCache.set(file, lines);
  }
  // Stryker's report locations: lines 1-based, columns 1-based
  const out: string[] = [];
  for (let i = l.start.line; i <= l.end.line; i++) {
    const s = lines[i - 1] ?? '';
    const from = i === l.start.line ? l.start.column - 1 : 0;
    const to = i === l.end.line ? l.end.column - 1 : s.length;
    out.push(s.slice(from, to));
  }
  return oneLine(out.join('\n'));
}

async function runStryker(files: string[], command: string, quiet = true): Promise<StrykerResult[]> {
  const stryker = new Stryker({
    configFile: CONFIG_FILE,
    mutate: files,
    commandRunner: { command },
    reporters: [],
    logLevel: (quiet ? 'error' : 'info') as StrykerOptions['logLevel'],
    fileLogLevel: 'off' as StrykerOptions['fileLogLevel'],
    // Timeout = dry-run time x 2 + timeoutMS. On a shared 2-core machine one mutant's run can take
    // several times the dry run's; a slow but correct run must not be counted as a (detected) timeout.
    timeoutMS: 120_000,
    allowConsoleColors: false,
  });
  return stryker.runMutationTest();
}

/** The gate around the suite command: mutants outside `idsFile` pass at once; the dry run (no active mutant) runs the suite. */
function gated(idsFile: string, logFile: string, command: string): string {
  const outDir = path.join(path.dirname(logFile), path.basename(logFile, '.log'));
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    `M="$__STRYKER_ACTIVE_MUTANT__"`,
    `if [ -n "$M" ] && ! grep -qxF "$M" ${q(idsFile)}; then exit 0; fi`,
    `T0=$(date +%s%3N)`,
    `mkdir -p ${q(outDir)}`,
    `${command} > ${q(outDir)}/"\${M:-dry-run}".out 2>&1`,
    `RC=$?`,
    `[ -n "$M" ] && echo "$M $RC $(( $(date +%s%3N) - T0 ))" >> ${q(logFile)}`,
    `exit $RC`,
  ].join('; ');
}

function statusOf(s: string): string {
  switch (s) {
    case 'Killed':
      return 'killed';
    case 'Survived':
      return 'survived';
    case 'Timeout':
      return 'timeout';
    case 'Ignored':
      return 'ignored';
    default:
      return 'error';
  }
}

/** The first failed requirement in a conformance run's output, with the line that says why. */
function killedBy(outFile: string): string | undefined {
  if (!fs.existsSync(outFile)) return undefined;
  const lines = fs.readFileSync(outFile, 'utf8').split('\n');
  const i = lines.findIndex((l) => /^\s+[A-Z]+-\d{3}\s+(failed|precondition-failed)\b/.test(l));
  if (i >= 0) return oneLine(`${lines[i].trim().split(/\s+/)[0]}: ${lines[i + 1]?.trim() ?? ''}`, 300);
  const e = lines.findIndex((l) => l.startsWith('Run errors:'));
  if (e >= 0) return oneLine(lines.slice(e + 1, e + 3).join(' '), 300);
  return oneLine(lines.filter(Boolean).slice(-2).join(' '), 300);
}

/**
 * What a kill rests on, from the run's output: 'test' (a requirement failed), 'server' (the mutant
 * server did not start), 'precondition' (only a provider state failed: the mutant broke a fixture),
 * or 'none' (only tests cut off or timed out: on a busy machine, possibly the machine's doing).
 */
function killEvidence(outFile: string): MutantRecord['killEvidence'] {
  if (!fs.existsSync(outFile)) return undefined;
  const text = fs.readFileSync(outFile, 'utf8');
  // the counts line ("Requirements: N selected: ... F failed, ... P precondition-failed") and the
  // per-file lines ("✗ file  3 passed, 1 failed"); the list of root failures may be cut short
  const count = (what: string) =>
    [...text.matchAll(new RegExp(`(\\d+) ${what}\\b`, 'g'))].reduce((n, m) => n + Number(m[1]), 0);
  if (count('failed') > 0) return 'test';
  if (/did not become healthy|before listening|exited with code/.test(text)) return 'server';
  if (count('precondition-failed') > 0) return 'precondition';
  return 'none';
}

interface RunLogEntry {
  exitCode: number;
  durationMs: number;
}

function readRunLog(file: string): Map<string, RunLogEntry> {
  const out = new Map<string, RunLogEntry>();
  if (!fs.existsSync(file)) return out;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [id, rc, ms] = line.trim().split(' ');
    if (id) out.set(id, { exitCode: Number(rc), durationMs: Number(ms) });
  }
  return out;
}

/** Prints each sampled mutant's outcome as the gate logs it (Stryker's own progress counts the skipped ones). */
function watch(logFile: string, label: string, total: number, keys: Map<string, string>): () => void {
  let seen = 0;
  const tick = () => {
    const runs = [...readRunLog(logFile)];
    for (const [id, r] of runs.slice(seen)) {
      seen++;
      const verdict = r.exitCode === 0 ? 'SURVIVED' : `killed (exit ${r.exitCode})`;
      console.log(
        `  [${label} ${seen}/${total}] #${id} ${verdict} in ${(r.durationMs / 1000).toFixed(1)} s  ${keys.get(id) ?? ''}`,
      );
    }
  };
  const t = setInterval(tick, 3000);
  return () => {
    clearInterval(t);
    tick();
  };
}

async function runArea(
  name: string,
  n: number,
  seed: number,
  confirm: boolean,
  out: string,
  implOnly = false,
  impl = true,
  recheck = false,
): Promise<AreaReport> {
  const area = AREAS[name];
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  // Taken before the first pass: every pass copies the working tree as it is when the pass starts.
  const commit = serverCommit();
  console.log(`\n== ${name}: ${area.files.join(', ')}`);

  const work = path.join(out, '.work');
  fs.mkdirSync(work, { recursive: true });
  const records = new Map<string, MutantRecord>();
  let population: StrykerResult[] = [];
  let byMutator: Record<string, number> = {};
  let picked: Array<{ id: string }>;
  let expected = new Map<string, string>();
  const previous =
    implOnly || recheck
      ? (JSON.parse(fs.readFileSync(path.join(out, `${name}.json`), 'utf8')) as AreaReport)
      : undefined;

  if (previous) {
    // --impl-only, --recheck: the sample and its verdicts come from the earlier run's report
    for (const m of previous.mutants) records.set(m.id, m);
    picked = previous.mutants;
    expected = new Map(previous.mutants.map((m) => [m.id, m.key]));
    byMutator = previous.populationByMutator;
  } else {
    // 1. enumerate
    const all = await runStryker(area.files, 'exit 0');
    population = all.filter((m) => m.status !== 'Ignored' && m.status !== 'CompileError');
    for (const m of population) byMutator[m.mutatorName] = (byMutator[m.mutatorName] ?? 0) + 1;
    picked = sample(population, n, seed).sort((a, b) => Number(a.id) - Number(b.id));
    expected = new Map(picked.map((m) => [m.id, mutantKey(m as StrykerResult)]));
    console.log(`${name}: ${population.length} mutants; sample of ${picked.length} (seed ${seed})`);
  }

  const pass = async (ids: string[], label: 'area' | 'core' | 'impl' | 'recheck') => {
    const idsFile = path.join(work, `${name}-${label}.ids`);
    const logFile = path.join(work, `${name}-${label}.log`);
    const outDir = path.join(work, `${name}-${label}`);
    fs.writeFileSync(idsFile, ids.join('\n') + '\n');
    fs.rmSync(logFile, { force: true });
    fs.rmSync(outDir, { recursive: true, force: true });
    const areaOnly = `--requirements ${area.requirements} --include ${area.suite.join(',')}`;
    const command =
      label === 'area'
        ? `${CLI} ${areaOnly}`
        : label === 'impl'
          ? `${CLI.replace('--profile core', '--profile implementation-defined')} ${areaOnly}`
          : CLI;
    console.log(`${name}: ${label} pass over ${ids.length} mutants: ${command}`);
    const stop = watch(logFile, `${name} ${label}`, ids.length, expected);
    let results: StrykerResult[];
    try {
      results = await runStryker(area.files, gated(idsFile, logFile, command));
    } finally {
      stop();
    }
    const runs = readRunLog(logFile);
    const want = new Set(ids);
    for (const m of results) {
      if (!want.has(m.id)) continue;
      if (mutantKey(m) !== expected.get(m.id)) {
        throw new Error(`mutant #${m.id} is not the one sampled (${expected.get(m.id)} vs ${mutantKey(m)})`);
      }
      if (label === 'impl') {
        // a triage aid, not a verdict: does the area's implementation-defined profile see this survivor?
        const r = records.get(m.id)!;
        r.implDefinedKills = m.status === 'Killed' || m.status === 'Timeout';
        r.implDefinedKilledBy = m.status === 'Killed' ? killedBy(path.join(outDir, `${m.id}.out`)) : undefined;
        continue;
      }
      const l = m.location;
      records.set(m.id, {
        id: m.id,
        key: mutantKey(m),
        file: rel(m.fileName),
        line: l.start.line,
        column: l.start.column,
        endLine: l.end.line,
        endColumn: l.end.column,
        mutator: m.mutatorName,
        original: originalText(rel(m.fileName), l),
        replacement: oneLine(m.replacement ?? ''),
        status: statusOf(m.status),
        decidedBy: label === 'area' ? 'area' : 'core',
        rechecked: label === 'recheck' || undefined,
        exitCode: runs.get(m.id)?.exitCode,
        durationMs: runs.get(m.id)?.durationMs,
        killedBy: m.status === 'Killed' ? killedBy(path.join(outDir, `${m.id}.out`)) : undefined,
        killEvidence: m.status === 'Killed' ? killEvidence(path.join(outDir, `${m.id}.out`)) : undefined,
      });
    }
    const missing = ids.filter((id) =>
      label === 'impl'
        ? records.get(id)?.implDefinedKills === undefined
        : label === 'recheck'
          ? !records.get(id)?.rechecked
          : records.get(id)?.decidedBy !== label,
    );
    if (missing.length) throw new Error(`${name}: Stryker did not report sampled mutants ${missing.join(', ')}`);
  };

  if (!previous) {
    // 2. the area's suite files
    await pass(
      picked.map((m) => m.id),
      'area',
    );
    // 3. survivors against the whole core suite
    const survivors = [...records.values()].filter((r) => r.status === 'survived').map((r) => r.id);
    if (confirm && survivors.length) await pass(survivors, 'core');
  }
  if (previous && recheck) {
    // --recheck: a kill whose run shows no failed test, no failed precondition and no server failure
    // (only tests cut off or timed out) is run again against the whole core suite.
    for (const r of records.values()) {
      if (r.status === 'killed' && !r.rechecked) {
        r.killEvidence = killEvidence(path.join(work, `${name}-${r.decidedBy}`, `${r.id}.out`));
      }
    }
    const suspects = [...records.values()].filter((r) => r.status === 'killed' && r.killEvidence === 'none');
    console.log(`${name}: ${suspects.length} kills rest on no failed test: ${suspects.map((r) => r.id).join(', ')}`);
    if (suspects.length) {
      await pass(
        suspects.map((r) => r.id),
        'recheck',
      );
    }
  }
  // 4. triage aid: the final survivors against the area's implementation-defined profile (with
  // --recheck, only those not yet run against it)
  const survivors = [...records.values()]
    .filter((r) => r.status === 'survived' && !(recheck && r.implDefinedKills !== undefined))
    .map((r) => r.id);
  if (impl && survivors.length) await pass(survivors, 'impl');

  const report: AreaReport = {
    area: name,
    title: area.title,
    files: area.files,
    requirements: area.requirements,
    suite: area.suite,
    seed: previous?.seed ?? seed,
    commit: previous ? previous.commit : commit,
    population: previous?.population ?? population.length,
    populationByMutator: byMutator,
    sampled: picked.length,
    confirmed: previous?.confirmed ?? confirm,
    startedAt: previous?.startedAt ?? startedAt,
    finishedAt: new Date().toISOString(),
    // wall clock: with --impl-only or --recheck, from the first pass of the run to the last recheck
    durationS: Math.round((Date.now() - (previous ? Date.parse(previous.startedAt) : t0)) / 1000),
    mutants: [...records.values()].sort((a, b) => Number(a.id) - Number(b.id)),
  };
  fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
  return report;
}

/** HEAD, marked +dirty when reference-server/src has uncommitted changes (what the sandbox copies). */
function serverCommit(): string | undefined {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    return git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', 'reference-server/src') ? '+dirty' : '');
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      area: { type: 'string' },
      sample: { type: 'string', default: '40' },
      seed: { type: 'string', default: '12' },
      'no-confirm': { type: 'boolean', default: false },
      'report-only': { type: 'boolean', default: false },
      'impl-only': { type: 'boolean', default: false },
      recheck: { type: 'boolean', default: false },
      'no-impl': { type: 'boolean', default: false },
      'list-areas': { type: 'boolean', default: false },
      out: { type: 'string', default: 'reports/server-mutation' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    const head = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    console.log(
      // the file's opening comment only
      head
        .slice(
          0,
          head.findIndex((l) => !l.startsWith('//')),
        )
        .map((l) => l.replace(/^\/\/ ?/, ''))
        .join('\n'),
    );
    return 0;
  }
  if (values['list-areas']) {
    for (const [k, a] of Object.entries(AREAS)) {
      console.log(
        `${k.padEnd(10)} ${a.target ? 'target' : '      '} ${a.files.join(', ')}  (area tests: ${a.requirements})`,
      );
    }
    return 0;
  }
  const out = path.resolve(ROOT, values.out!);
  fs.mkdirSync(out, { recursive: true });
  if (values['report-only']) {
    writeReports(out, Object.keys(AREAS), new Set(DEFAULT_AREAS));
    return 0;
  }
  const areas = values.area ? values.area.split(',').map((s) => s.trim()) : DEFAULT_AREAS;
  const unknown = areas.filter((a) => !AREAS[a]);
  if (unknown.length) {
    console.error(`unknown area(s): ${unknown.join(', ')}; known: ${Object.keys(AREAS).join(', ')}`);
    return 2;
  }
  const n = Number(values.sample);
  const seed = Number(values.seed);
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(seed)) {
    console.error('--sample and --seed take integers');
    return 2;
  }
  process.chdir(ROOT);
  // Two cores shared with others: lower our priority (Stryker, the suite and the server inherit it).
  os.setPriority(Math.max(os.getPriority(), 15));
  try {
    execFileSync('sh', ['-c', 'command -v grep && command -v date'], { stdio: 'ignore' });
  } catch {
    console.error('the gate needs a POSIX shell with grep and date');
    return 3;
  }
  for (const a of areas) {
    await runArea(a, n, seed, !values['no-confirm'], out, values['impl-only'], !values['no-impl'], values.recheck);
  }
  writeReports(out, Object.keys(AREAS), new Set(DEFAULT_AREAS));
  return 0;
}

process.exitCode = await main();
