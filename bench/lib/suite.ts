// The conformance suite as a benchmark: wall time of a conformance run in a process of its own
// (image build check, container start, suite, teardown), its phases from the run's typed progress
// events (runConformance's onEvent, conformance-child.ts), per-test durations
// from results.json, peak RSS of the conformance process tree (polled from /proc) and of the
// reference server inside the container.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceOptions, ProgressEvent } from '../../conformance/src/run/run-conformance.js';
import { commandLine, spawnConformance } from './conformance-child.js';
import { memoryOf, processTree } from './proc.js';

interface SuiteTest {
  id: string;
  file: string;
  title: string;
  ms: number;
  result: string;
}

export interface SuiteBench {
  exitCode: number | null;
  verdict?: string;
  wallMs: number;
  /** ms from spawn to each phase mark */
  phases: Record<string, number>;
  /** the suite run as vitest measured it (results.json durationMs) */
  suiteMs?: number;
  tests: number;
  sumTestMs: number;
  slowest: SuiteTest[];
  perFile: Array<{ file: string; tests: number; ms: number }>;
  /** peak of the summed VmRSS of the conformance process tree, bytes */
  treePeakRss: number;
  /** largest single-process peak (VmHWM) in the tree, bytes */
  processPeakRss: number;
  /** VmHWM of the server process in the container, bytes (when readable) */
  containerServerPeakRss?: number;
  /** containers the run started (one per run expected) */
  containersStarted: number;
  args: string[];
  outputTail: string;
  /** When the section ran it several times: every measured run's wall time (this one the median),
   * and the run before them, not counted (it builds the image when its sources changed). */
  runs?: { wallMs: number[]; warmupWallMs: number; warmupImageCheckMs?: number };
}

/** The phase marks (ms from spawn) and the events that set them. */
function markOf(e: ProgressEvent): string | undefined {
  if (e.type === 'target-phase') return e.phase === 'image-check' ? 'build' : 'container';
  if (e.type === 'target-ready') return 'healthy';
  if (e.type === 'suite-started') return 'suite';
  if (e.type === 'run-finished') return 'verdict';
  if (e.type === 'target-stopped') return 'stopped';
  return undefined;
}

/** The PID (on this host) of the server of the container published on the port of `baseUrl`. */
function containerPidAt(baseUrl: string): number | undefined {
  const port = new URL(baseUrl).port;
  const id = spawnSync('docker', ['ps', '-q', '--filter', `publish=${port}`], { encoding: 'utf8' }).stdout?.trim();
  if (!id) return undefined;
  const r = spawnSync('docker', ['inspect', '-f', '{{.State.Pid}}', id.split('\n')[0]!], { encoding: 'utf8' });
  const pid = Number(r.stdout?.trim());
  return pid > 0 ? pid : undefined;
}

export async function benchSuite(o: {
  reportDir: string;
  include?: string[];
  requirements?: string;
  concurrency?: number;
  requireContainer?: boolean;
}): Promise<SuiteBench> {
  const options: ConformanceOptions = {
    reportDir: o.reportDir,
    ...(o.requirements ? { requirements: o.requirements } : {}),
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    ...(o.requireContainer ? { requireContainer: true } : {}),
    ...(o.include?.length ? { include: o.include.join(',') } : {}),
  };
  const args = commandLine(options);
  const t0 = performance.now();
  const phases: Record<string, number> = {};
  let containerPid: number | undefined;
  let containersStarted = 0;
  // the phases from the run's typed progress events, as they arrive
  const run = spawnConformance(options, (e) => {
    if (e.type === 'target-phase' && e.phase === 'container-start') containersStarted++;
    const mark = markOf(e);
    if (mark && phases[mark] === undefined) phases[mark] = performance.now() - t0;
    if (e.type === 'target-ready' && e.kind === 'container' && containerPid === undefined)
      containerPid = containerPidAt(e.baseUrl);
  });
  const child = run.child;
  let treePeak = 0;
  let procPeak = 0;
  let containerPeak: number | undefined;
  const poll = () => {
    let sum = 0;
    for (const pid of processTree(child.pid!)) {
      const m = memoryOf(pid);
      if (!m) continue;
      sum += m.rss || 0;
      procPeak = Math.max(procPeak, m.hwm || 0);
    }
    treePeak = Math.max(treePeak, sum);
    if (containerPid !== undefined) {
      const m = memoryOf(containerPid);
      if (m) containerPeak = Math.max(containerPeak ?? 0, m.hwm || 0);
    }
  };
  const timer = setInterval(poll, 100);
  const exitCode = await run.done;
  clearInterval(timer);
  const wallMs = performance.now() - t0;

  const out: SuiteBench = {
    exitCode,
    wallMs,
    phases,
    tests: 0,
    sumTestMs: 0,
    slowest: [],
    perFile: [],
    treePeakRss: treePeak,
    processPeakRss: procPeak,
    containerServerPeakRss: containerPeak,
    containersStarted,
    args,
    outputTail: run.tail(),
  };
  const file = join(o.reportDir, 'results.json');
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8')) as {
      verdict?: string;
      durationMs?: number;
      requirements: Array<{
        tests?: Array<{
          id: string;
          file: string;
          title: string;
          durationMs?: number;
          result: string;
          generic?: boolean;
        }>;
      }>;
    };
    out.verdict = r.verdict;
    out.suiteMs = r.durationMs;
    const byId = new Map<string, SuiteTest>();
    for (const req of r.requirements) {
      for (const t of req.tests ?? []) {
        if (t.generic) continue;
        byId.set(t.id, { id: t.id, file: t.file, title: t.title, ms: t.durationMs ?? 0, result: t.result });
      }
    }
    const tests = [...byId.values()];
    out.tests = tests.length;
    out.sumTestMs = tests.reduce((a, t) => a + t.ms, 0);
    out.slowest = [...tests].sort((a, b) => b.ms - a.ms).slice(0, 10);
    const files = new Map<string, { file: string; tests: number; ms: number }>();
    for (const t of tests) {
      const f = files.get(t.file) ?? { file: t.file, tests: 0, ms: 0 };
      f.tests++;
      f.ms += t.ms;
      files.set(t.file, f);
    }
    out.perFile = [...files.values()].sort((a, b) => b.ms - a.ms);
  }
  return out;
}
