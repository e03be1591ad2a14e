// Hand-built HAR files for the traffic tests.
import fs from 'node:fs';
import path from 'node:path';
import { harEntry, harLog, type HarEntry } from '../../src/traffic/har.js';
import type { Bindings } from '../../src/model/bindings.js';
import { resolveBindings } from '../../src/model/bindings.js';
import type { RunResults } from '../../src/report/results.js';
import { loadCatalogue, type Catalogue } from '../../src/spec/catalogue.js';
import { loadOpenApi, type OpenApiIndex } from '../../src/spec/openapi.js';
import { trafficResults } from '../../src/traffic/report.js';
import { verifyTraffic, type Verification } from '../../src/traffic/verify.js';

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

/** The spec, catalogue and default bindings the traffic tests judge with, loaded once. */
let judging: { index: OpenApiIndex; catalogue: Catalogue; bindings: Bindings } | undefined;

/** Verifies `files` as `conformance verify-traffic` does and gives the verification with its results. */
export function judgeHars(files: string[], baseUrl?: string): { v: Verification; r: RunResults } {
  judging ??= { index: loadOpenApi(), catalogue: loadCatalogue(), bindings: resolveBindings() };
  const { index, catalogue, bindings } = judging;
  const v = verifyTraffic(files, { index, bindings, ...(baseUrl ? { baseUrl } : {}) });
  const r = trafficResults(v, {
    catalogue,
    suiteVersion: '0',
    specVersion: '0',
    tokenHeader: 'Token',
    tokenPrefix: '',
    startedAt: new Date(),
  }).results;
  return { v, r };
}
