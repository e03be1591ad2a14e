// The speed targets of the bench and what each run measured for them (README.md's "Speed targets"
// table is rendered from them: scripts/readme-figures.ts).
import type { BenchConfig } from './config.js';
import type { CiBench } from './lib/ci.js';
import type { LatencyRun } from './lib/latency.js';
import { int, label, ms, pct, type Target } from './lib/markdown.js';
import type { MutationBench } from './lib/mutation.js';
import type { SuiteBench } from './lib/suite.js';
import type { ScaleRow } from './sections/scale.js';
import type { ThroughputSection } from './sections/throughput.js';

export type { Target };

export function targets(
  cfg: BenchConfig,
  t?: ThroughputSection,
  s?: ScaleRow[],
  suite?: SuiteBench,
  lat?: LatencyRun[],
  mut?: MutationBench,
  ci?: CiBench,
): Target[] {
  const out: Target[] = [];
  const full = !cfg.suiteInclude;
  const far = lat?.find((r) => r.delayMs === 200);
  if (far) {
    out.push({
      name: 'core suite through a proxy adding 200 ms to every response, wall time',
      goal: '<= 30 s',
      measured:
        `${(far.wallMs / 1000).toFixed(1)} s (critical path ${(far.criticalPathMs / 1000).toFixed(1)} s; ${far.verdict ?? 'no verdict'})` +
        (full ? '' : ' (quick subset: not judged)'),
      met: full ? far.wallMs <= 30_000 && far.exitCode === 0 : undefined,
    });
  }
  if (suite) {
    out.push({
      name: 'core suite against the reference container, wall time, container start included',
      goal: '<= 8 s',
      measured: `${(suite.wallMs / 1000).toFixed(1)} s${suite.runs ? ` (median of ${suite.runs.wallMs.length} runs after one not counted)` : ''}${full ? '' : ' (quick subset: not judged)'}`,
      met: full ? suite.wallMs <= 8_000 && suite.exitCode === 0 : undefined,
    });
  }
  if (mut) {
    const whole = !mut.only;
    out.push({
      name: 'mutation run: every fault and every control, each on its own reference server, wall time',
      goal: '<= 3 min',
      measured:
        `${(mut.wallMs / 1000).toFixed(0)} s (${mut.faults.caught}/${mut.faults.total} caught, ${mut.controls.falseAlarms}/${mut.controls.total} false alarms; machine CPU ${((mut.machineCpuMs ?? NaN) / 1000).toFixed(0)} s; exit ${mut.exitCode ?? '?'})` +
        (whole ? '' : ' (quick subset: not judged)'),
      met: whole ? mut.wallMs <= 180_000 && mut.exitCode === 0 : undefined,
    });
  }
  if (ci) {
    // how long each phase of .ci/run took, the ones of 5 s or more, by the first words of its line
    const phases = ci.phases
      .map((p, i) => ({
        name: p.phase.split(/[:(,]/)[0]!.trim(),
        s: (ci.phases[i + 1]?.atS ?? Math.round(ci.wallMs / 1000)) - p.atS,
      }))
      .filter((p) => p.s >= 5)
      .map((p) => `${p.name} ${p.s} s`)
      .join('; ');
    out.push({
      name: 'CI: `bash .ci/run` on a fresh clone, wall time (installs included)',
      goal: '<= 8 min',
      measured: `${(ci.wallMs / 1000).toFixed(0)} s (commit ${ci.commit ?? '?'}, exit ${ci.exitCode}${phases ? `; ${phases}` : ''})`,
      met: ci.wallMs <= 480_000 && ci.exitCode === 0,
    });
  }
  for (const id of ['record', 'record-excl']) {
    const rec = t?.rows.find((r) => r.id === id);
    if (!rec) continue;
    // judged on server CPU per request (capacity), which a busy machine does not skew; the wall
    // clock req/s ratio is shown beside it
    out.push({
      name: `one record by ID vs bare Hono, server CPU per request${id === 'record-excl' ? ', --exclusive-db' : ''} (req/s ratio in brackets)`,
      goal: '>= 40% of the ceiling',
      measured: `${pct(rec.cpuRatio)}: ${int(rec.load.cpuUsPerReq ?? NaN)} vs ${int(rec.bareLoad.cpuUsPerReq ?? NaN)} µs (req/s ${pct(rec.ratio)})`,
      met: rec.cpuRatio >= 0.4,
    });
  }
  if (s && s.length >= 1) {
    const hi = s[s.length - 1]!;
    out.push({
      name: `Query deep page (skip ${int(hi.deepSkip)}, 90% of the matches) p50 on ${label(hi.rows)} rows`,
      goal: '<= 5 ms',
      measured: `${ms(hi.deep.p50)} ms (server CPU ${int(hi.deep.cpuUsPerReq ?? NaN)} µs/req; the first request of that page, nothing remembered: ${ms(hi.deepFirstMs)} ms)`,
      met: hi.rows >= 1e6 ? hi.deep.p50 <= 5 : undefined,
    });
  }
  if (s && s.length >= 2) {
    const lo = s[0]!;
    const hi = s[s.length - 1]!;
    const growth = hi.first.p50 / lo.first.p50;
    out.push({
      name: `guard: Query p50 on ${label(hi.rows)} rows`,
      goal: '<= 5 ms',
      measured: `${ms(hi.first.p50)} ms`,
      met: hi.first.p50 <= 5,
    });
    out.push({
      name: `guard: Query p50 growth ${label(lo.rows)} -> ${label(hi.rows)}`,
      goal: '<= 2x',
      measured: `${growth.toFixed(2)}x`,
      met: growth <= 2,
    });
  }
  const up = t?.rows.find((r) => r.id === 'upsert');
  if (up)
    out.push({
      name: `guard: atomic UpsertMulti of ${cfg.upsertItems} items p50 (1 connection)`,
      goal: '<= 20 ms',
      measured: `${ms(up.single.p50)} ms`,
      met: up.single.p50 <= 20,
    });
  return out;
}
