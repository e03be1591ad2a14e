// One interface for every kind of target the suite can run against.
import type { TargetKind } from '../model/context.js';

export interface StartedTarget {
  baseUrl: string;
  /** Provider-state endpoint, when the target serves one. */
  stateUrl?: string;
  image?: string;
  imageDigest?: string;
  /** What really runs (a `reference` target may end as `local-process`). */
  kind: TargetKind;
  /** A request's round trip on an open connection, measured at start (url targets). */
  roundTripMs?: number;
}

export interface Target {
  readonly kind: 'url' | 'image' | 'reference' | 'local-process';
  describe(): string;
  start(): Promise<StartedTarget>;
  /** Idempotent; never throws. */
  stop(): Promise<void>;
}

/** A step of starting a target that takes time of its own (model/events.ts). */
export type { TargetPhase } from '../model/events.js';

/** Where targets print progress (stderr by default, so stdout stays the summary). */
export type Log = (line: string) => void;
export const defaultLog: Log = (line) => process.stderr.write(`${line}\n`);

/** GET `url` until it answers 200 or `timeoutMs` passes. Returns the last problem on failure, or
 * what `abort` answered when it answers something (the server's process ended). A probe may take
 * up to 5 s (a busy machine answers late); the probes follow each other after `intervalMs`. */
export async function waitForHealth(
  url: string,
  timeoutMs: number,
  opts: { intervalMs?: number; abort?: () => string | undefined | Promise<string | undefined> } = {},
): Promise<{ ok: true } | { ok: false; problem: string }> {
  const deadline = Date.now() + timeoutMs;
  let problem = 'no answer';
  while (Date.now() < deadline) {
    const stop = await opts.abort?.();
    if (stop) return { ok: false, problem: stop };
    try {
      const res = await fetch(url, {
        signal: AbortSignal.timeout(Math.min(5_000, Math.max(500, deadline - Date.now()))),
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 200) return { ok: true };
      problem = `answered ${res.status}`;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      problem = err.cause?.code ?? err.message;
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
  return { ok: false, problem };
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
