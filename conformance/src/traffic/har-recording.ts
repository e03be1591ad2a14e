// `conformance run --record-har FILE`: starts the spool (suite-api/spool.ts) before the suite runs and, when
// it ends, writes the suite's traffic as one HAR 1.2 file in start order, credentials redacted
// (the token header of the bindings, Authorization, cookies, token fields of bodies).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Bindings } from '../model/bindings.js';
import type { SpooledExchange } from '../suite-api/spool.js';
import { harEntry, harHeaders, harLog, type HarEntry } from './har.js';
import { redactor } from './redact.js';
import { suiteVersion } from '../model/versions.js';

/**
 * Starts recording when `file` is given: the spool directory (for RunContext.harSpool) and what
 * ends it (writes the HAR, removes the spool); undefined when there is nothing to record.
 */
export function startHarRecording(
  file: string | undefined,
  bindings: Bindings,
  log: (s: string) => void = () => {},
): { spool: string; end: () => void } | undefined {
  if (!file) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-har-'));
  const end = () => {
    try {
      const n = writeSpooledHar(dir, file, bindings);
      log(`conformance: wrote ${n} exchanges as HAR to ${file} (credentials redacted)`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  return { spool: dir, end };
}

/** Joins the spool's entries into `file`; returns how many. */
function writeSpooledHar(dir: string, file: string, bindings: Bindings, keepCredentials = false): number {
  const entries: HarEntry[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ndjson')))
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
      if (line.trim()) entries.push(harEntry(JSON.parse(line) as SpooledExchange));
  entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
  const red = redactor(bindings.tokenHeader, keepCredentials);
  // twice: the first pass learns every credential (a token given in one answer and sent later)
  for (const e of entries) redactEntry(e, red);
  const out = entries.map((e) => redactEntry(e, red));
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify(harLog(out, suiteVersion(), "the conformance suite's traffic; credentials redacted"), null, 1)}\n`,
  );
  return out.length;
}

/** An entry with its credentials redacted (headers first, so their values are removed everywhere). */
export function redactEntry(e: HarEntry, red: ReturnType<typeof redactor>): HarEntry {
  const rq = red.headers(Object.fromEntries(e.request.headers.map((h) => [h.name, h.value])));
  const rs = red.headers(Object.fromEntries(e.response.headers.map((h) => [h.name, h.value])));
  const url = red.text(e.request.url) ?? e.request.url;
  return {
    ...e,
    request: {
      ...e.request,
      url,
      headers: harHeaders(rq),
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      ...(e.request.postData ? { postData: { ...e.request.postData, text: red.text(e.request.postData.text) } } : {}),
    },
    response: {
      ...e.response,
      headers: harHeaders(rs),
      cookies: [],
      content: { ...e.response.content, text: red.text(e.response.content.text) },
    },
  };
}
