// One load run with autocannon's programmatic API (loopback only). Latency percentiles are
// computed from every response time autocannon reports (in ms, with sub-millisecond precision;
// autocannon's own histogram keeps whole milliseconds only).
import autocannon from 'autocannon';
import { cpuTimeMs } from './proc.js';

export interface LoadSpec {
  /** base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** fixed path, or a function giving the path of each request */
  path: string | (() => string);
  /** a body per request (each call a fresh one) */
  body?: () => string;
  connections: number;
  /** seconds */
  duration: number;
  /** seconds of discarded warm-up load before the measured run */
  warmup?: number;
  /** the server's pid: its CPU time over the measured run is reported per request */
  serverPid?: number;
}

export interface LoadResult {
  connections: number;
  durationS: number;
  requests: number;
  /** requests per second (2xx) */
  rps: number;
  /** latency percentiles, ms */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** response bytes per second */
  bytesPerSec: number;
  errors: number;
  non2xx: number;
  /** server CPU time (user + system) per answered request, µs; robust to a busy machine, unlike req/s */
  cpuUsPerReq?: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function once(spec: LoadSpec, duration: number, record: boolean): Promise<LoadResult> {
  const times: number[] = [];
  const pathOf = spec.path;
  const bodyOf = spec.body;
  const dynamic = typeof pathOf === 'function' || bodyOf !== undefined;
  const firstPath = typeof pathOf === 'function' ? pathOf() : pathOf;
  const headers = { ...(spec.headers ?? {}) };
  if (bodyOf) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration,
        pipelining: 1,
        timeout: 30,
        method: spec.method ?? 'GET',
        headers,
        requests: dynamic
          ? [
              {
                method: spec.method ?? 'GET',
                path: firstPath,
                setupRequest: (req) => {
                  const r = { ...req, path: typeof pathOf === 'function' ? pathOf() : pathOf };
                  if (bodyOf) r.body = bodyOf();
                  return r;
                },
              },
            ]
          : [{ method: spec.method ?? 'GET', path: firstPath }],
      },
      (err, res) => {
        if (err) return reject(err);
        const sorted = Float64Array.from(times).sort();
        const ok = res['2xx'];
        resolve({
          connections: spec.connections,
          durationS: res.duration,
          requests: ok,
          rps: ok / res.duration,
          p50: percentile(sorted, 50),
          p90: percentile(sorted, 90),
          p99: percentile(sorted, 99),
          max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          mean: sorted.length ? times.reduce((a, b) => a + b, 0) / sorted.length : NaN,
          bytesPerSec: res.throughput.average,
          errors: res.errors,
          non2xx: res.non2xx,
        });
      },
    );
    if (record) {
      // autocannon emits (client, statusCode, resBytes, responseTime); its typings omit the client
      (inst as unknown as NodeJS.EventEmitter).on(
        'response',
        (_client: unknown, status: number, _bytes: number, responseTime: number) => {
          if (status >= 200 && status < 300) times.push(responseTime);
        },
      );
    }
  });
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (spec.warmup && spec.warmup > 0) await once(spec, spec.warmup, false);
  const cpu0 = spec.serverPid ? cpuTimeMs(spec.serverPid) : undefined;
  const r = await once(spec, spec.duration, true);
  const cpu1 = spec.serverPid ? cpuTimeMs(spec.serverPid) : undefined;
  if (cpu0 !== undefined && cpu1 !== undefined && r.requests > 0) r.cpuUsPerReq = ((cpu1 - cpu0) * 1000) / r.requests;
  return r;
}
