// The latency scenario: the core suite against the reference server (a local process) through a
// loopback proxy that adds a fixed delay to every response, as a staging deployment across a
// network would. Reports the wall time, the requests by kind (interface vs provider state, counted
// by the proxy) and the critical path: the longest chain of requests of any one test that each
// had to wait for the one before (from the suite's request timeline, CONFORMANCE_TRACE_FILE),
// times the delay. No concurrency can finish the run faster than that chain.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import type { ConformanceOptions } from '../../conformance/src/run/run-conformance.js';
import { ROOT } from '../../spec/paths.js';
import { cpuTimeMs, startReference } from './proc.js';
import { startLatencyProxy } from './latency-proxy.js';
import { spawnConformance } from './conformance-child.js';

export interface LatencyRun {
  delayMs: number;
  concurrency?: number;
  wallMs: number;
  /** from the run's typed progress events: the test runner started to the results final */
  suiteMs?: number;
  exitCode: number | null;
  verdict?: string;
  passed?: number;
  requests: { interface: number; providerState: number; total: number };
  /** the longest chain of dependent requests of one test */
  chain: { requests: number; test: string; ms: number };
  /** chain.requests × delayMs: the floor of the wall time that no concurrency beats */
  criticalPathMs: number;
  tests: number;
  /** CPU time used (ms): the conformance CLI with its worker threads, and the reference server */
  cpuMs: { suite?: number; server?: number };
  /** load average (1 min) at the start of the run */
  loadavg: number;
  /** per suite file: first request to last answer, and its longest test */
  files: Array<{ file: string; tests: number; spanMs: number; slowestTest: string; slowestMs: number }>;
  outputTail: string;
}

interface TraceRequest {
  kind: string;
  at: number;
  ms: number;
}

/** Longest chain of requests in which each starts after the previous one ended (an interval
 * order): requests that overlap were sent concurrently and do not add to the chain. */
function longestChain(reqs: TraceRequest[]): number {
  const sorted = [...reqs].sort((a, b) => a.at - b.at);
  const len: number[] = [];
  let best = 0;
  for (let i = 0; i < sorted.length; i++) {
    let l = 1;
    for (let j = 0; j < i; j++) {
      // 0.5 ms of slack: timestamps of one request's end and the next one's start come from
      // different clocks reads
      if (sorted[j]!.at + sorted[j]!.ms <= sorted[i]!.at + 0.5) l = Math.max(l, len[j]! + 1);
    }
    len.push(l);
    best = Math.max(best, l);
  }
  return best;
}

export async function runLatency(o: {
  delayMs: number;
  work: string;
  concurrency?: number;
  profile?: string;
  requirements?: string;
  include?: string[];
}): Promise<LatencyRun> {
  const dir = mkdtempSync(join(o.work, `latency-${o.delayMs}-`));
  const ref = await startReference(join(dir, 'reference.db'), undefined, ['--provider-states']);
  const proxy = await startLatencyProxy({ target: ref.url, delayMs: o.delayMs });
  const trace = join(dir, 'trace.jsonl');
  const reportDir = join(dir, 'report');
  try {
    const options: ConformanceOptions = {
      baseUrl: proxy.url,
      profile: (o.profile ?? 'core') as ConformanceOptions['profile'],
      reportDir,
      ...(o.concurrency ? { concurrency: o.concurrency } : {}),
      ...(o.requirements ? { requirements: o.requirements } : {}),
      ...(o.include?.length ? { include: o.include.join(',') } : {}),
    };
    const load1 = loadavg()[0]!;
    const serverCpu0 = cpuTimeMs(ref.pid);
    const t0 = performance.now();
    let suiteStart: number | undefined;
    let verdictAt: number | undefined;
    // the suite's span from the run's typed progress events: the test runner started, results final
    const run = spawnConformance(
      options,
      (e) => {
        if (e.type === 'suite-started' && suiteStart === undefined) suiteStart = performance.now() - t0;
        if (e.type === 'run-finished' && verdictAt === undefined) verdictAt = performance.now() - t0;
      },
      { ...process.env, CONFORMANCE_TRACE_FILE: trace },
    );
    const child = run.child;
    // the CLI's CPU time (worker threads included), read until it exits
    let suiteCpu: number | undefined;
    const timer = setInterval(() => {
      suiteCpu = cpuTimeMs(child.pid!) ?? suiteCpu;
    }, 100);
    const exitCode = await run.done;
    clearInterval(timer);
    const wallMs = performance.now() - t0;
    const serverCpu1 = cpuTimeMs(ref.pid);

    let verdict: string | undefined;
    let passed: number | undefined;
    const results = join(reportDir, 'results.json');
    if (existsSync(results)) {
      const r = JSON.parse(readFileSync(results, 'utf8')) as { verdict?: string; counts?: { passed?: number } };
      verdict = r.verdict;
      passed = r.counts?.passed;
    }
    const chain = { requests: 0, test: '', ms: 0 };
    let tests = 0;
    const files = new Map<
      string,
      { tests: number; start: number; end: number; slowestTest: string; slowestMs: number }
    >();
    if (existsSync(trace)) {
      for (const line of readFileSync(trace, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const t = JSON.parse(line) as { id: string; file: string; requests: TraceRequest[] };
        tests++;
        if (!t.requests.length) continue;
        const start = Math.min(...t.requests.map((r) => r.at));
        const end = Math.max(...t.requests.map((r) => r.at + r.ms));
        const n = longestChain(t.requests);
        if (n > chain.requests) Object.assign(chain, { requests: n, test: t.id, ms: end - start });
        const file = relative(ROOT, t.file);
        const f = files.get(file) ?? { tests: 0, start, end, slowestTest: t.id, slowestMs: 0 };
        f.tests++;
        f.start = Math.min(f.start, start);
        f.end = Math.max(f.end, end);
        if (end - start > f.slowestMs) Object.assign(f, { slowestTest: t.id, slowestMs: end - start });
        files.set(file, f);
      }
    }
    const c = proxy.counts;
    return {
      delayMs: o.delayMs,
      concurrency: o.concurrency,
      wallMs,
      suiteMs: suiteStart !== undefined && verdictAt !== undefined ? verdictAt - suiteStart : undefined,
      exitCode,
      verdict,
      passed,
      requests: { interface: c.interface, providerState: c.providerState, total: c.interface + c.providerState },
      chain,
      criticalPathMs: chain.requests * o.delayMs,
      tests,
      cpuMs: {
        suite: suiteCpu,
        server: serverCpu0 !== undefined && serverCpu1 !== undefined ? serverCpu1 - serverCpu0 : undefined,
      },
      loadavg: load1,
      files: [...files.entries()]
        .map(([file, f]) => ({
          file,
          tests: f.tests,
          spanMs: f.end - f.start,
          slowestTest: f.slowestTest,
          slowestMs: f.slowestMs,
        }))
        .sort((a, b) => b.spanMs - a.spanMs),
      outputTail: run.tail(),
    };
  } finally {
    await proxy.close();
    await ref.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
