// An implementation that is already running (`--base-url`).
import { HarnessError } from '../model/errors.js';
import { defaultLog, joinUrl, waitForHealth, type Log, type StartedTarget, type Target } from './target.js';

export interface UrlTargetOptions {
  baseUrl: string;
  /** Default `<base-url>/_provider-states`; `null` when fixtures are used instead. */
  stateUrl?: string | null;
  /** Path probed once to see that something answers (any HTTP status will do). */
  probePath?: string;
  probeTimeoutMs?: number;
  /** When given: wait until GET <healthPath> answers 200 (up to startTimeoutMs) instead of the probe. */
  healthPath?: string;
  startTimeoutMs?: number;
  log?: Log;
}

export class UrlTarget implements Target {
  readonly kind = 'url' as const;
  constructor(readonly opts: UrlTargetOptions) {}

  describe(): string {
    return `running implementation at ${this.opts.baseUrl}`;
  }

  async start(): Promise<StartedTarget> {
    const baseUrl = this.opts.baseUrl.replace(/\/+$/, '');
    let probeMs: number | undefined;
    if (this.opts.healthPath !== undefined) await this.waitHealthy(baseUrl, this.opts.healthPath);
    else probeMs = await this.probe(baseUrl);
    const stateUrl =
      this.opts.stateUrl === null ? undefined : (this.opts.stateUrl ?? joinUrl(baseUrl, '/_provider-states'));
    return { kind: 'url', baseUrl, stateUrl, roundTripMs: await this.roundTrip(baseUrl, probeMs) };
  }

  /** How long one request takes: the best of the probe (when there was one) and GETs of the probe
   * path on the connection it opened (any status will do), two of them after a health wait. Each
   * is a round trip at the start of every run, 0.2 s apiece at 200 ms: the probe counts as one.
   * Undefined when the target stops answering. */
  private async roundTrip(baseUrl: string, probeMs?: number): Promise<number | undefined> {
    const url = joinUrl(baseUrl, this.opts.probePath ?? '/');
    let best = probeMs;
    for (let i = 0; i < (probeMs === undefined ? 2 : 1); i++) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.probeTimeoutMs ?? 10_000) });
        await res.arrayBuffer();
      } catch {
        return best;
      }
      const ms = performance.now() - t0;
      best = best === undefined ? ms : Math.min(best, ms);
    }
    return best;
  }

  private async waitHealthy(baseUrl: string, healthPath: string): Promise<void> {
    const url = joinUrl(baseUrl, healthPath);
    const timeout = this.opts.startTimeoutMs ?? 60_000;
    const log = this.opts.log ?? defaultLog;
    log(`conformance: waiting for GET ${url} → 200 (timeout ${timeout} ms)`);
    const t0 = Date.now();
    const health = await waitForHealth(url, timeout);
    if (!health.ok)
      throw new HarnessError(
        `the target at ${baseUrl} did not become healthy: GET ${url} ${health.problem} (waited ${timeout} ms)`,
      );
    log(`conformance: target ${baseUrl} healthy after ${Date.now() - t0} ms`);
  }

  /** GET the probe path once; how long it took (ms). */
  private async probe(baseUrl: string): Promise<number> {
    const probe = joinUrl(baseUrl, this.opts.probePath ?? '/');
    try {
      const t0 = performance.now();
      const res = await fetch(probe, { signal: AbortSignal.timeout(this.opts.probeTimeoutMs ?? 10_000) });
      await res.arrayBuffer(); // any status will do; read to the end, so the connection is kept for the next GET
      const ms = performance.now() - t0;
      (this.opts.log ?? defaultLog)(`conformance: target ${baseUrl} answers (GET ${probe} → ${res.status})`);
      return ms;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      throw new HarnessError(
        `the target at ${baseUrl} does not answer: GET ${probe} failed (${err.cause?.code ?? err.message})`,
      );
    }
  }

  async stop(): Promise<void> {}
}
