// The versions a run names in its reports: the suite's (package.json) and the spec's (openapi.json).
import fs from 'node:fs';
import path from 'node:path';
import type { Catalogue } from '../spec/catalogue.js';
import { loadOpenApi } from '../spec/openapi.js';
import { ROOT } from '../paths.js';

export function suiteVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export function specVersion(cat: Catalogue): string {
  try {
    return loadOpenApi().version || cat.version;
  } catch {
    return cat.version;
  }
}
