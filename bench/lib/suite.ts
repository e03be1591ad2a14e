// The conformance suite as a benchmark: wall time of `conformance run` (image build check,
// container start, suite, teardown), its phases from the CLI's own log lines, per-test durations
// from results.json, peak RSS of the conformance process tree (polled from /proc) and of the
// reference server inside the container.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { memoryOf, processTree } from './proc.js';
import { ROOT } from '../../spec/paths.js';

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

const MARKS: Array<[string, RegExp]> = [
  ['build', /conformance: bash .*build\.sh|conformance: image \S+ is up to date/],
  ['container', /conformance: starting container/],
  ['healthy', /conformance: container \S+ healthy|reference server \(pid \d+\) healthy/],
  ['suite', /conformance: running \d+ suite file/],
  ['verdict', /^Verdict:/],
  ['stopped', /conformance: container \S+ stopped/],
];

export async function benchSuite(o: {
  reportDir: string;
  include?: string[];
  extraArgs?: string[];
}): Promise<SuiteBench> {
  const args = ['conformance/bin/conformance.mjs', 'run', '--report-dir', o.reportDir, ...(o.extraArgs ?? [])];
  if (o.include?.length) args.push('--include', o.include.join(','));
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const phases: Record<string, number> = {};
  let tail = '';
  let containerPid: number | undefined;
  let containersStarted = 0;
  const onLine = (line: string) => {
    if (/conformance: starting container/.test(line)) containersStarted++;
    tail = (tail + line + '\n').slice(-3000);
    for (const [name, re] of MARKS)
      if (phases[name] === undefined && re.test(line)) phases[name] = performance.now() - t0;
    const m = /conformance: container (\S+) healthy/.exec(line);
    if (m && containerPid === undefined) {
      const r = spawnSync('docker', ['inspect', '-f', '{{.State.Pid}}', m[1]!], { encoding: 'utf8' });
      const pid = Number(r.stdout.trim());
      if (pid > 0) containerPid = pid;
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);

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
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
    outputTail: tail,
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
