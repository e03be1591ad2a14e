// Section "latency": the core suite through a proxy that holds every answer for a given time.
import type { BenchConfig } from '../config.js';
import type { Panel } from '../lib/chart.js';
import { runLatency, type LatencyRun } from '../lib/latency.js';
import { int, table } from '../lib/markdown.js';
import type { BenchContext } from './context.js';

export async function latencySection(ctx: BenchContext): Promise<LatencyRun[]> {
  const { cfg, log, work } = ctx;
  log(
    `\n## Latency: the ${cfg.suiteInclude ? 'quick subset of the ' : ''}core suite through a proxy adding ${cfg.latencies.join(', ')} ms to every response` +
      ` (reference server as a local process${cfg.concurrency ? `, --concurrency ${cfg.concurrency}` : ''})`,
  );
  const out: LatencyRun[] = [];
  for (const delayMs of cfg.latencies) {
    const r = await runLatency({
      delayMs,
      work,
      concurrency: cfg.concurrency,
      requirements: cfg.suiteRequirements,
      include: cfg.suiteInclude,
    });
    out.push(r);
    log(
      `${String(delayMs).padStart(4)} ms: wall ${(r.wallMs / 1000).toFixed(1)} s (suite ${((r.suiteMs ?? NaN) / 1000).toFixed(1)} s), exit ${r.exitCode}, ${r.verdict ?? 'no verdict'}, ${r.passed ?? '?'} requirements passed; ` +
        `${int(r.requests.total)} requests (${int(r.requests.interface)} interface, ${int(r.requests.providerState)} provider state); ` +
        `critical path ${r.chain.requests} requests (${r.chain.test}) = ${(r.criticalPathMs / 1000).toFixed(1)} s; ` +
        `CPU: suite ${((r.cpuMs.suite ?? NaN) / 1000).toFixed(1)} s, server ${((r.cpuMs.server ?? NaN) / 1000).toFixed(1)} s; load average ${r.loadavg.toFixed(1)}`,
    );
    if (r.exitCode !== 0) log(r.outputTail);
  }
  return out;
}

/** The section's part of README.md. */
export function latencyMarkdown(lat: Array<Omit<LatencyRun, 'outputTail'>>, cfg: BenchConfig): string[] {
  const L: string[] = [];
  L.push('## The suite under latency', '');
  L.push(
    `The ${cfg.suiteInclude ? 'quick subset of the ' : ''}core suite (\`conformance run --base-url <proxy>\`${cfg.concurrency ? ` \`--concurrency ${cfg.concurrency}\`` : ', default --concurrency'}) against the reference server ` +
      `(a local process with provider states) through a loopback proxy (bench/lib/latency-proxy.ts) that holds every answer for the given time. ` +
      `Requests are counted by the proxy; the critical path is the longest chain of requests of one test that each waited for the one before ` +
      `(from the suite's request timeline, CONFORMANCE_TRACE_FILE), times the delay: no concurrency can finish sooner.`,
    '',
  );
  L.push(
    table(
      [
        'added latency',
        'wall time',
        'suite',
        'verdict',
        'requests',
        'interface',
        'provider state',
        'critical path',
        'longest chain',
        'CPU: suite + server',
        'load average',
      ],
      lat.map((x) => [
        `${x.delayMs} ms`,
        `${(x.wallMs / 1000).toFixed(1)} s`,
        `${((x.suiteMs ?? NaN) / 1000).toFixed(1)} s`,
        `${x.verdict ?? 'n/a'} (${x.passed ?? '?'} passed)`,
        int(x.requests.total),
        int(x.requests.interface),
        int(x.requests.providerState),
        `${(x.criticalPathMs / 1000).toFixed(1)} s`,
        `${x.chain.requests} requests: ${x.chain.test}`,
        `${((x.cpuMs.suite ?? NaN) / 1000).toFixed(1)} + ${((x.cpuMs.server ?? NaN) / 1000).toFixed(1)} s`,
        x.loadavg.toFixed(1),
      ]),
    ),
  );
  const far = lat[lat.length - 1]!;
  L.push('', `Slowest suite files at ${far.delayMs} ms (first request to last answer):`, '');
  L.push(
    table(
      ['suite file', 'tests', 'span', 'slowest test', 'its time'],
      far.files
        .slice(0, 6)
        .map((f) => [
          f.file,
          f.tests,
          `${(f.spanMs / 1000).toFixed(1)} s`,
          f.slowestTest,
          `${(f.slowestMs / 1000).toFixed(1)} s`,
        ]),
    ),
  );
  L.push('');
  return L;
}

/** The section's panel of bench.svg. */
export function latencyPanels(lat: Array<Omit<LatencyRun, 'outputTail'>>): Panel[] {
  const panels: Panel[] = [];
  panels.push({
    title: 'Core suite through a latency proxy: wall time and critical path (the floor no concurrency beats)',
    unit: 's',
    digits: 1,
    groups: lat.map((r) => ({
      label: `+${r.delayMs} ms`,
      bars: [
        { name: 'wall time', value: r.wallMs / 1000, note: `${int(r.requests.total)} requests` },
        { name: 'critical path', value: r.criticalPathMs / 1000, note: `${r.chain.requests} requests in a row` },
      ],
    })),
  });
  return panels;
}
