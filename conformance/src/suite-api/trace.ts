// The request timeline of each test, for the benchmark's latency scenario (bench/lib/latency.ts):
// with CONFORMANCE_TRACE_FILE set, every test appends one JSON line with the start and duration
// of each of its requests (interface exchanges and provider-state calls). The critical path of
// a run (the longest chain of requests that had to wait for each other) is computed from these.
// Nothing is written without the variable; the reports do not depend on it.
import { appendFileSync } from 'node:fs';
import type { Exchange } from './client.js';
import type { StateCall } from './states.js';

interface TraceRequest {
  kind: 'interface' | 'state-setup' | 'state-teardown';
  /** start, ms since the epoch */
  at: number;
  ms: number;
}

interface TraceLine {
  id: string;
  file: string;
  requests: TraceRequest[];
}

const TRACE_ENV = 'CONFORMANCE_TRACE_FILE';

export function writeTrace(
  id: string,
  file: string,
  exchanges: readonly Exchange[],
  calls: readonly StateCall[],
): void {
  const target = process.env[TRACE_ENV];
  if (!target) return;
  const requests: TraceRequest[] = [
    ...exchanges.filter((e) => e.at !== undefined).map((e) => ({ kind: 'interface' as const, at: e.at!, ms: e.ms })),
    ...calls.map((c) => ({
      kind: c.action === 'setup' ? ('state-setup' as const) : ('state-teardown' as const),
      at: c.at,
      ms: c.ms,
    })),
  ].sort((a, b) => a.at - b.at);
  const line: TraceLine = { id, file, requests };
  // one short line per write: appends from several workers do not interleave
  appendFileSync(target, JSON.stringify(line) + '\n');
}
