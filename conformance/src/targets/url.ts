// An implementation that is already running (`--base-url`).
import { HarnessError } from '../errors.js';
import { defaultLog, joinUrl, type Log, type StartedTarget, type Target } from './target.js';

export interface UrlTargetOptions {
  baseUrl: string;
  /** Default `<base-url>/_provider-states`; `null` when fixtures are used instead. */
  stateUrl?: string | null;
  /** Path probed once to see that something answers (any HTTP status will do). */
  probePath?: string;
  probeTimeoutMs?: number;
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
    const stateUrl =
      this.opts.stateUrl === null ? undefined : (this.opts.stateUrl ?? joinUrl(baseUrl, '/_provider-states'));
    return { kind: 'url', baseUrl, stateUrl };
  }

  async stop(): Promise<void> {}
}
