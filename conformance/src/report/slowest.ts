// The slowest answers a run waited for (results.json `slowestAnswers`, the summary's `Slowest
// answers:` line). The spec states no latency, so a slow answer is never a failure; the list shows
// how long the run waited and where, beside the request time-out it ran with.
import type { Exchange } from '../suite-api/client.js';

/** What a run's test carries of its requests (report/test-result.ts ReportedTest, structurally). */
interface TestWithExchanges {
  name: string;
  meta?: { id?: string; exchanges?: readonly Exchange[] };
}

export interface SlowAnswer {
  /** the test that sent the request */
  test: string;
  /** its operation (operationId), or the method and path when it matched none */
  operation: string;
  method: string;
  /** from the request to the whole answer (both tries of a read asked twice) */
  ms: number;
  /** absent: no answer came (a time-out, an unreachable target) */
  status?: number;
}

const SLOWEST_KEPT = 5;

/** The `n` slowest exchanges of the run's tests, slowest first. */
export function slowestAnswers(tests: readonly TestWithExchanges[], n = SLOWEST_KEPT): SlowAnswer[] {
  const all: SlowAnswer[] = [];
  for (const t of tests)
    for (const e of t.meta?.exchanges ?? [])
      all.push({
        test: t.meta?.id ?? t.name,
        operation: e.operationId ?? `${e.method} ${pathOf(e.url)}`,
        method: e.method,
        ms: e.ms,
        ...(e.status !== undefined ? { status: e.status } : {}),
      });
  return topSlowest(all, n);
}

/** The `n` slowest of `list`, slowest first (also merges the lists of shards). */
export function topSlowest(list: SlowAnswer[], n = SLOWEST_KEPT): SlowAnswer[] {
  return [...list].sort((a, b) => b.ms - a.ms).slice(0, n);
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** One summary line (undefined when the run sent nothing). */
export function slowestLine(list: SlowAnswer[] | undefined, requestTimeoutMs?: number): string | undefined {
  if (!list?.length) return undefined;
  const s = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`);
  const items = list.map((a) => `${a.operation} ${s(a.ms)}${a.status === undefined ? ' (no answer)' : ''}`);
  const limit =
    requestTimeoutMs !== undefined ? ` (request time-out ${s(requestTimeoutMs)}; no latency is a requirement)` : '';
  return `Slowest answers${limit}: ${items.join(', ')}`;
}
