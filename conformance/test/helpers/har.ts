// Hand-built HAR files for the traffic tests.
import fs from 'node:fs';
import path from 'node:path';
import { harEntry, harLog, type HarEntry } from '../../src/traffic/har.js';

let clock = Date.parse('2026-01-01T00:00:00Z');

/** One entry 10 ms after the previous one, lasting 5 ms. */
export function entry(
  method: string,
  url: string,
  status: number,
  response: unknown,
  o: { body?: unknown; headers?: Record<string, string> } = {},
): HarEntry {
  clock += 10;
  return harEntry({
    startedMs: clock,
    ms: 5,
    method,
    url: `http://vendor.test${url}`,
    requestHeaders: { accept: 'application/json', Token: 'sekret-token-123456', ...(o.headers ?? {}) },
    ...(o.body !== undefined ? { requestBody: JSON.stringify(o.body) } : {}),
    status,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify(response),
  });
}

export function writeHar(dir: string, name: string, entries: HarEntry[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(harLog(entries, 'test')));
  return file;
}
