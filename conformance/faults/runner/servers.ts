// The reference servers of a mutation run: one per run (baseline, fault, control), each a process
// of its own with a temporary SQLite file and the provider-state endpoint, stopped after its run.
// Plain servers are started ahead of use so that a run rarely waits for one.
import fs from 'node:fs';
import path from 'node:path';
import { startReferenceProcess } from '../../src/targets/reference-process.js';
import { ROOT } from '../../../spec/paths.js';

/**
 * The servers keep an idle connection 30 s, the proxy in front of each at most 2 s: the proxy
 * closes an idle connection long before its server would, so it can keep connections alive without
 * sending on one the server is closing (a new connection per request cost the runner's process a
 * fifth of its busy time: connect, close, and the stack of undici's 'reset' error).
 */
const SERVER_KEEP_ALIVE_MS = 30_000;
export const UPSTREAM_IDLE_MS = 2_000;

export interface Reference {
  url: string;
  stop(): Promise<void>;
}

async function startReference(bin: string | undefined, reportDir: string, flags: string[]): Promise<Reference> {
  fs.mkdirSync(reportDir, { recursive: true });
  const logFile = path.join(reportDir, 'reference-server.log');
  const ref = await startReferenceProcess({
    bin,
    providerStates: true,
    args: ['--log-level', 'warn', '--keep-alive-timeout', String(SERVER_KEEP_ALIVE_MS), ...flags],
    logFile,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\nsee ${path.relative(ROOT, logFile)}`, { cause: e });
  });
  return {
    url: ref.url,
    stop: async () => {
      await ref.stop();
    },
  };
}

/**
 * Reference servers started ahead of use (plain ones, no flags) so that a run rarely waits for one.
 * Each server serves exactly one run and is stopped after it: nothing carries state between runs.
 */
export class ServerPool {
  private ready: Array<Promise<Reference>> = [];
  private serial = 0;
  private readonly live = new Set<Reference>();
  constructor(
    private readonly dir: string,
    private warm: number,
    /** the server's command (default: from its sources; the runner passes an esbuild bundle) */
    private readonly bin?: string,
  ) {}
  private start(flags: string[]): Promise<Reference> {
    const p = startReference(this.bin, path.join(this.dir, `server-${++this.serial}`), flags).then((r) => {
      this.live.add(r);
      return r;
    });
    p.catch(() => undefined);
    return p;
  }
  fill(): void {
    while (this.ready.length < this.warm) this.ready.push(this.start([]));
  }
  take(flags: string[]): Promise<Reference> {
    if (flags.length) return this.start(flags);
    const p = this.ready.shift() ?? this.start([]);
    this.fill();
    return p;
  }
  async release(ref: Reference): Promise<void> {
    this.live.delete(ref);
    await ref.stop();
  }
  async close(): Promise<void> {
    this.warm = 0;
    await Promise.all(this.ready.splice(0).map((p) => p.catch(() => undefined)));
    await Promise.all([...this.live].map((r) => r.stop().catch(() => undefined)));
    this.live.clear();
  }
}
