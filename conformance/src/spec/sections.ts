// Section titles of spec/interface-spec.md (`## 4. Endpoints`, `### 4.2 Generic record access`),
// used to group requirements by section in the reports.
import fs from 'node:fs';
import path from 'node:path';
import { SPEC_DIR } from '../paths.js';

/** Section number → title, from the markdown headings `## 4. Title` and `### 4.2 Title`. */
export function parseSectionTitles(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of markdown.split(/\r?\n/)) {
    const m = /^#{2,6}\s+(\d+(?:\.\d+)*)\.?\s+(.+?)\s*#*\s*$/.exec(line);
    if (m && !out.has(m[1])) out.set(m[1], m[2]);
  }
  return out;
}

let cache: Map<string, string> | undefined;

/** The section titles of the spec in this repository (empty when the file cannot be read). */
export function specSectionTitles(specDir: string = SPEC_DIR): Map<string, string> {
  if (cache && specDir === SPEC_DIR) return cache;
  let titles: Map<string, string>;
  try {
    titles = parseSectionTitles(fs.readFileSync(path.join(specDir, 'interface-spec.md'), 'utf8'));
  } catch {
    titles = new Map();
  }
  if (specDir === SPEC_DIR) cache = titles;
  return titles;
}

/** Compares section numbers numerically (`2.10` after `2.9`; `4` before `4.1`). */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number(x));
  const pb = b.split('.').map((x) => Number(x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (Number.isNaN(x) || Number.isNaN(y)) {
      const c = String(a).localeCompare(String(b));
      if (c) return c;
    }
    if (x !== y) return x - y;
  }
  return 0;
}
