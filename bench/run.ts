// `npm run bench [-- options]`: the benchmarks of the reference server and the conformance suite.
// Prints the figures and writes reports/bench/{bench.json, bench.svg, README.md}.
// Every throughput figure is measured side by side with the bare Hono ceiling in the same run, so
// the ratio holds on a noisy machine. See docs/benchmarks.md.
//
// One module per section (bench/sections/*.ts: its measurement, its part of README.md, its panels
// of bench.svg); the options are parsed in main (config.ts); the report is report.ts, the targets
// targets.ts, and the Markdown renderer bench/lib/markdown.ts, shared with the README figures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../spec/paths.js';
import { HELP, configOf, parseOptions, type BenchConfig } from './config.js';
import type { CiBench } from './lib/ci.js';
import type { LatencyRun } from './lib/latency.js';
import type { MutationBench } from './lib/mutation.js';
import { hasTaskset, pin as pinProcess, unpin } from './lib/proc.js';
import type { SuiteBench } from './lib/suite.js';
import { verifyNoBytesWithoutContents, type VerifyResult } from './lib/verify.js';
import { writeReports, type Results } from './report.js';
import { ciSection } from './sections/ci.js';
import type { BenchContext } from './sections/context.js';
import { latencySection } from './sections/latency.js';
import { mutationSection } from './sections/mutation.js';
import { scaleSection, type ScaleRow } from './sections/scale.js';
import { suiteSection } from './sections/suite.js';
import { throughputSection, type ThroughputSection } from './sections/throughput.js';
import { targets } from './targets.js';

const log = (s = '') => process.stdout.write(s + '\n');
/** The load generator's CPU when pinned (the servers get CPU 1). */
const LOAD_CPU = 0;

/** README.md and bench.svg again from the bench.json of `out`, with the configuration of its run. */
function render(out: string): number {
  const file = join(out, 'bench.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as Results;
  const cfg = { ...configOf(r.meta.config), out };
  r.targets = targets(
    cfg,
    r.throughput,
    r.scale,
    r.suite,
    r.latency as LatencyRun[] | undefined,
    r.mutation as MutationBench | undefined,
    r.ci as CiBench | undefined,
  );
  writeReports(r, cfg);
  log(`rendered ${relative(ROOT, out)}/{bench.json,bench.svg,README.md} from the figures of ${r.meta.date}`);
  return 0;
}

/** Measures the sections of `cfg` and writes the report; the exit code. */
async function measure(cfg: BenchConfig, pin: boolean): Promise<number> {
  const quick = cfg.quick;
  const pinned = pin && cpus().length >= 2 && hasTaskset();
  if (pinned) pinProcess(process.pid, LOAD_CPU);
  const serverCpu = pinned ? 1 : undefined;
  const t0 = performance.now();
  const loadStart = loadavg();
  log(
    `# rflps benchmarks${quick ? ' (quick)' : ''}: ${cpus().length} CPUs, Node ${process.version}, load average ${loadStart.map((x) => x.toFixed(1)).join('/')}` +
      `${pinned ? '; load generator on CPU 0, servers on CPU 1' : '; no CPU pinning'}`,
  );
  const work = mkdtempSync(join(tmpdir(), 'rflps-bench-'));
  const ctx: BenchContext = { cfg, log, serverCpu, work };
  let throughput: ThroughputSection | undefined;
  let scale: ScaleRow[] | undefined;
  let suite: SuiteBench | undefined;
  let latency: LatencyRun[] | undefined;
  let mutation: MutationBench | undefined;
  let ci: CiBench | undefined;
  const verify: VerifyResult[] = [];
  try {
    verify.push(...(await verifyNoBytesWithoutContents()));
    for (const v of verify) log(`check: ${v.ok ? 'ok' : 'FAILED'}: ${v.name}${v.detail ? ` (${v.detail})` : ''}`);
    if (cfg.sections.has('throughput')) throughput = await throughputSection(ctx);
    if (cfg.sections.has('scale')) scale = await scaleSection(ctx);
    // The suite runs below are judged on the whole machine ("on 2 cores"): the pin of the load
    // generator would be inherited by every process they start (until this line it was, and the
    // latency, container and mutation runs of earlier reports ran on one core).
    if (pinned && ['latency', 'suite', 'mutation', 'ci'].some((s) => cfg.sections.has(s))) {
      unpin(process.pid, cpus().length);
      log(`\n(the load generator's CPU pin lifted: the suite runs below use all ${cpus().length} CPUs)`);
    }
    if (cfg.sections.has('latency')) latency = await latencySection(ctx);
    if (cfg.sections.has('suite')) suite = await suiteSection(ctx);
    if (cfg.sections.has('mutation')) mutation = await mutationSection(ctx);
    if (cfg.sections.has('ci')) ci = await ciSection(ctx);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const results: Results = {
    meta: {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '?',
      loadavgStart: loadStart,
      loadavgEnd: loadavg(),
      pinned,
      commit:
        spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() || undefined,
      config: { ...cfg, sections: [...cfg.sections] },
    },
    verify,
    throughput,
    scale,
    suite,
    latency: latency?.map(({ outputTail: _tail, ...r }) => r),
    mutation: mutation && (({ outputTail: _tail, ...r }) => r)(mutation),
    ci: ci && (({ outputTail: _tail, ...r }) => r)(ci),
    targets: targets(cfg, throughput, scale, suite, latency, mutation, ci),
    totalMs: 0,
  };
  results.totalMs = performance.now() - t0;
  writeReports(results, cfg);
  log('\n## Targets');
  for (const t of results.targets)
    log(`${t.met === undefined ? 'n/a ' : t.met ? 'MET ' : 'MISS'}  ${t.name}: ${t.measured} (goal ${t.goal})`);
  log(
    `\nwrote ${relative(ROOT, cfg.out)}/{bench.json,bench.svg,README.md} in ${(results.totalMs / 1000).toFixed(0)} s`,
  );
  return verify.every((v) => v.ok) &&
    (!suite || suite.exitCode === 0) &&
    (!ci || ci.exitCode === 0) &&
    (latency ?? []).every((r) => r.exitCode === 0)
    ? 0
    : 1;
}

/** The bench from its command-line arguments; the exit code (2: a bad option). */
export async function main(args: string[]): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(args);
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message} (npm run bench -- --help)\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  return options.render ? render(options.cfg.out) : measure(options.cfg, !options.noPin);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url)
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`bench: error: ${(err as Error)?.stack ?? err}\n`);
      process.exit(2);
    },
  );
