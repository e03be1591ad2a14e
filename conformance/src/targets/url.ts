// An implementation that is already running (`--base-url`).
import { HarnessError } from '../errors.js';
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
    if (this.opts.healthPath !== undefined) await this.waitHealthy(baseUrl, this.opts.healthPath);
    else await this.probe(baseUrl);
    const stateUrl =
      this.opts.stateUrl === null ? undefined : (this.opts.stateUrl ?? joinUrl(baseUrl, '/_provider-states'));
    return { kind: 'url', baseUrl, stateUrl, roundTripMs: await this.roundTrip(baseUrl) };
  }

  /** How long one request takes on a connection already open: the best of three GETs of the probe
   * path (any status will do). Undefined when the target stops answering. */
  private async roundTrip(baseUrl: string): Promise<number | undefined> {
    const url = joinUrl(baseUrl, this.opts.probePath ?? '/');
    let best: number | undefined;
    for (let i = 0; i < 3; i++) {
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

  private async probe(baseUrl: string): Promise<void> {
    const probe = joinUrl(baseUrl, this.opts.probePath ?? '/');
    try {
      const res = await fetch(probe, { signal: AbortSignal.timeout(this.opts.probeTimeoutMs ?? 10_000) });
      await res.body?.cancel().catch(() => undefined); // any status will do; the body is not needed
      (this.opts.log ?? defaultLog)(`conformance: target ${baseUrl} answers (GET ${probe} → ${res.status})`);
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      throw new HarnessError(
        `the target at ${baseUrl} does not answer: GET ${probe} failed (${err.cause?.code ?? err.message})`,
      );
    }
  }

  async stop(): Promise<void> {}
}
