// The suite's own traffic (`conformance run --record-har FILE`): while a run records, every
// exchange the transport makes (in any worker) is appended as one line (a SpooledExchange) to a
// file of its worker in a private spool directory; traffic/har-recording.ts joins them into one HAR
// when the run ends, redacting credentials there. The directory reaches the workers in the run's context
// (RunContext.harSpool; dsl.ts calls spoolInto when a run begins), not through the environment:
// runs of one process side by side (the fault runner's lanes, scripts/traffic-faults.ts) each
// record their own traffic.
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

/** The spool of the run under way in this thread (undefined: not recording). */
let spoolDir: string | undefined;

/** Records this thread's exchanges into `dir` from now on (undefined: stops recording). */
export function spoolInto(dir: string | undefined): void {
  spoolDir = dir;
}

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}
interface Res {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One exchange as the spool keeps it (traffic/har.ts `harEntry` makes it a HAR entry). */
export interface SpooledExchange {
  startedMs: number;
  ms: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

/** Sends `r` through `send`; when the run records, appends the exchange to the spool. */
export async function spooled<R extends Req, S extends Res>(r: R, send: (r: R) => Promise<S>): Promise<S> {
  const dir = spoolDir;
  if (!dir) return send(r);
  const startedMs = Date.now();
  const t0 = performance.now();
  const res = await send(r);
  const entry: SpooledExchange = {
    startedMs,
    ms: Math.round((performance.now() - t0) * 1000) / 1000,
    method: r.method,
    url: r.url,
    requestHeaders: r.headers,
    requestBody: r.body,
    status: res.status,
    responseHeaders: res.headers,
    responseBody: res.text,
  };
  fs.appendFileSync(path.join(dir, `${process.pid}-${threadId}.ndjson`), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  return res;
}
