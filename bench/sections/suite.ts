// Section "suite": the core suite against the reference container, one run not counted, then the
// median of SUITE_RUNS runs; its phases come from the run's typed progress events (lib/suite.ts).
import { join } from 'node:path';
import type { Panel } from '../lib/chart.js';
import { mib, table } from '../lib/markdown.js';
import { benchSuite, type SuiteBench } from '../lib/suite.js';
import type { BenchContext } from './context.js';

/** Measured runs of the suite section (after one not counted): the median is reported. */
const SUITE_RUNS = 3;

export async function suiteSection(ctx: BenchContext): Promise<SuiteBench> {
  const { cfg, log, work } = ctx;
  log(
    `\n## Conformance suite (${cfg.suiteInclude ? `subset: ${cfg.suiteInclude.join(', ')}` : 'full core run'} against the reference container)`,
  );
  const once = () =>
    benchSuite({
      reportDir: join(work, 'suite'),
      include: cfg.suiteInclude,
      requirements: cfg.suiteRequirements,
      concurrency: cfg.concurrency,
      // the section measures the container: without an engine the run would fall back to a
      // local process and this section would report that as the container's figure (it did
      // once, on a machine whose Docker engine was not started)
      requireContainer: !cfg.quick,
    });
  // one run not counted (it builds the image when its sources changed, and meets a machine still
  // busy from the section before: one run of 24.3 s, 14.2 s of it the container start, beside
  // 8.1 s when run alone), then SUITE_RUNS runs, the median reported
  const warmup = await once();
  const measured: SuiteBench[] = [];
  for (let i = 0; i < SUITE_RUNS; i++) measured.push(await once());
  const sorted = [...measured].sort((a, b) => a.wallMs - b.wallMs);
  const failed = measured.find((m) => m.exitCode !== 0);
  const r: SuiteBench = {
    ...(failed ?? sorted[Math.floor(sorted.length / 2)]!),
    runs: {
      wallMs: measured.map((m) => m.wallMs),
      warmupWallMs: warmup.wallMs,
      ...(warmup.phases.build !== undefined && warmup.phases.container !== undefined
        ? { warmupImageCheckMs: warmup.phases.container - warmup.phases.build }
        : {}),
    },
  };
  log(
    `${SUITE_RUNS} runs after one not counted (${(warmup.wallMs / 1000).toFixed(1)} s): ${measured.map((m) => `${(m.wallMs / 1000).toFixed(1)} s`).join(', ')}; ${failed ? 'a failed run' : 'the median'}:`,
  );
  const p = r.phases;
  log(
    `wall ${(r.wallMs / 1000).toFixed(1)} s (exit ${r.exitCode}, ${r.verdict ?? 'no verdict'}): ` +
      `CLI start to the image check ${p.build !== undefined ? (p.build / 1000).toFixed(1) : '?'} s, ` +
      `image check ${p.build !== undefined && p.container !== undefined ? ((p.container - p.build) / 1000).toFixed(1) : '?'} s, ` +
      `container start ${p.container !== undefined && p.healthy !== undefined ? ((p.healthy - p.container) / 1000).toFixed(1) : '?'} s, ` +
      `to the first suite file ${p.healthy !== undefined && p.suite !== undefined ? ((p.suite - p.healthy) / 1000).toFixed(1) : '?'} s, ` +
      `suite and reports ${p.suite !== undefined && p.verdict !== undefined ? ((p.verdict - p.suite) / 1000).toFixed(1) : '?'} s, ` +
      `container stop and exit ${p.verdict !== undefined ? ((r.wallMs - p.verdict) / 1000).toFixed(1) : '?'} s; ` +
      `${r.tests} tests summing ${(r.sumTestMs / 1000).toFixed(1)} s; peak RSS tree ${mib(r.treePeakRss)}, largest process ${mib(r.processPeakRss)}, server in container ${mib(r.containerServerPeakRss)}`,
  );
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}

/** The section's part of README.md. */
export function suiteMarkdown(su: SuiteBench): string[] {
  const L: string[] = [];
  const p = su.phases;
  const span = (a: string, b: string) =>
    p[a] !== undefined && p[b] !== undefined ? `${((p[b]! - p[a]!) / 1000).toFixed(1)} s` : 'n/a';
  L.push('## Conformance suite', '');
  L.push(
    `\`node ${su.args.join(' ').replace(/--report-dir \S+/, '--report-dir <tmp>')}\`: exit ${su.exitCode}, ${su.verdict ?? 'no verdict'}; ${su.containersStarted} container(s) started; ` +
      `vitest runs the files in parallel (pool and workers: conformance/src/run/vitest-run.ts).` +
      (su.runs
        ? ` The median of ${su.runs.wallMs.length} runs (${su.runs.wallMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}) after one not counted (${(su.runs.warmupWallMs / 1000).toFixed(1)} s${su.runs.warmupImageCheckMs !== undefined ? `, its image check ${(su.runs.warmupImageCheckMs / 1000).toFixed(1)} s` : ''}); the phases below are the median run's.`
        : ''),
    '',
  );
  L.push(
    table(
      ['phase', 'time'],
      [
        ['CLI start until the image check', p.build !== undefined ? `${(p.build / 1000).toFixed(1)} s` : 'n/a'],
        ['image check (build.sh; a no-op when the source hash is unchanged)', span('build', 'container')],
        ['container start until healthy', span('container', 'healthy')],
        ['suite (vitest) and reports', span('suite', 'verdict')],
        [
          'container stop and exit',
          p.verdict !== undefined ? `${((su.wallMs - p.verdict) / 1000).toFixed(1)} s` : 'n/a',
        ],
        ['**wall time**', `**${(su.wallMs / 1000).toFixed(1)} s**`],
      ],
    ),
  );
  L.push(
    '',
    `${su.tests} tests summing ${(su.sumTestMs / 1000).toFixed(1)} s (vitest's run: ${su.suiteMs !== undefined ? (su.suiteMs / 1000).toFixed(1) + ' s' : 'n/a'}). ` +
      `Peak RSS: conformance process tree ${mib(su.treePeakRss)} (summed, polled every 100 ms), largest single process ${mib(su.processPeakRss)}, reference server in the container ${mib(su.containerServerPeakRss)}.`,
    '',
  );
  L.push(
    table(
      ['suite file', 'tests', 'summed test time'],
      su.perFile.map((f) => [f.file, f.tests, `${(f.ms / 1000).toFixed(2)} s`]),
    ),
  );
  L.push('', 'Slowest tests:', '');
  L.push(
    table(
      ['test', 'file', 'time'],
      su.slowest.map((x) => [
        x.title.slice(0, 100),
        x.file.replace(/^conformance\/suite\//, ''),
        `${(x.ms / 1000).toFixed(2)} s`,
      ]),
    ),
  );
  L.push('');
  return L;
}

/** The section's panel of bench.svg. */
export function suitePanels(suite: SuiteBench): Panel[] {
  const panels: Panel[] = [];
  panels.push({
    title: `Conformance suite: ${(suite.wallMs / 1000).toFixed(1)} s wall; summed test time per file`,
    unit: 's',
    digits: 1,
    groups: suite.perFile.map((f) => ({
      label: f.file.replace(/^conformance\/suite\//, ''),
      bars: [{ name: 'tests (sum)', value: f.ms / 1000 }],
    })),
  });
  return panels;
}
