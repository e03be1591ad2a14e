// GET /health: liveness for container wait strategies (no auth). REQ: VER-001
import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { findSpecFile } from '../validation.js';

let cachedVersion: string | undefined;

/** The spec version: `info.version` of the OpenAPI document, else the requirement catalogue's. */
export function specVersion(): string {
  if (cachedVersion) return cachedVersion;
  let v: string | undefined;
  const json = findSpecFile('generated/openapi.json');
  if (json) {
    try {
      v = (JSON.parse(readFileSync(json, 'utf8')) as { info?: { version?: string } }).info?.version;
    } catch {
      /* fall through */
    }
  }
  if (!v) {
    const req = findSpecFile('requirements.yaml');
    if (req) v = /^version:\s*["']?([^"'\s]+)/m.exec(readFileSync(req, 'utf8'))?.[1];
  }
  return (cachedVersion = v ?? '0.0.0');
}

export function register(app: Hono<AppEnv>, _deps: Deps): void {
  app.get('/health', (c) => c.json({ status: 'ok', specVersion: specVersion() }));
}
