// The mutation run as a benchmark: `run-faults` (every fault and every control, each on its own
// reference server, three at a time) timed from its start to its exit, with the CPU time the whole
// machine spent meanwhile (/proc/stat: the runner, its CLI runs, servers and proxies; on a quiet
// machine that is the run's own) and the verdicts from its mutation.json.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../spec/paths.js';

export interface MutationBench {
  exitCode: number | null;
  wallMs: number;
  /** CPU time of the whole machine during the run, ms (every core) */
  machineCpuMs?: number;
  loadavg: number;
  /** the runs side by side (--concurrency of run-faults) */
  concurrency?: number;
  baselineMs?: number;
  faults: { caught: number; total: number };
  controls: { falseAlarms: number; total: number };
  /** the selection, when not every fault and control ran */
  only?: string[];
  outputTail: string;
}

/** Busy jiffies of all CPUs (user, nice, system, irq, softirq, steal) from /proc/stat, in ms. */
function machineBusyMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / 100; // USER_HZ = 100
  } catch {
    return undefined;
  }
}

/** The fixed seed of `npm run test:faults` (package.json). */
const MUTATION_SEED = '20261125';

export async function benchMutation(o: { reportDir: string; only?: string[] }): Promise<MutationBench> {
  const args = [
    join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
    'conformance/faults/run-faults.ts',
    // the seed of `npm run test:faults`: the same runs as the committed reports, comparable from one
    // bench to the next (other seeds: `npm run bench:seeds`)
    '--seed',
    MUTATION_SEED,
    '--report-dir',
    o.reportDir,
    ...(o.only ? ['--only', o.only.join(',')] : []),
  ];
  const load = loadavg()[0]!;
  const cpu0 = machineBusyMs();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-3000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const wallMs = performance.now() - t0;
  const cpu1 = machineBusyMs();
  const file = join(o.reportDir, 'mutation.json');
  const m = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as {
        concurrency?: number;
        baseline?: { durationMs?: number };
        score?: { caught: number; total: number };
        falseAlarms?: { failed: number; total: number };
      })
    : undefined;
  return {
    exitCode,
    wallMs,
    machineCpuMs: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined,
    loadavg: load,
    concurrency: m?.concurrency,
    baselineMs: m?.baseline?.durationMs,
    faults: { caught: m?.score?.caught ?? 0, total: m?.score?.total ?? 0 },
    controls: { falseAlarms: m?.falseAlarms?.failed ?? 0, total: m?.falseAlarms?.total ?? 0 },
    only: o.only,
    outputTail: tail,
  };
}
