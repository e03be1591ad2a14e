// docs/architecture.md and eslint.config.js match the code: every folder of conformance/src and
// every result kind is in the architecture page, and every requirement ID, npm script and file path
// they cite exists.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../spec/paths.js';
import { loadCatalogue } from '../../conformance/src/spec/catalogue.js';
import { emptyCounts } from '../../conformance/src/report/results.js';

const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const DOC = read('docs/architecture.md');
const CITING = { 'docs/architecture.md': DOC, 'eslint.config.js': read('eslint.config.js') };

describe('docs/architecture.md names what the code has', () => {
  it('every folder of conformance/src', () => {
    const folders = fs
      .readdirSync(path.join(ROOT, 'conformance/src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((f) => !DOC.includes(`src/${f}/`))).toEqual([]);
  });

  it('every result kind of a test and of a requirement', () => {
    // Counts has one entry per requirement result, the test outcomes among them
    const kinds = Object.keys(emptyCounts());
    expect(kinds).toContain('blocked');
    expect(kinds.filter((k) => !DOC.includes(`\`${k}\``))).toEqual([]);
  });
});

describe('what docs/architecture.md and eslint.config.js cite exists', () => {
  it('every requirement ID', () => {
    const ids = new Set(loadCatalogue().requirements.map((r) => r.id));
    for (const [file, text] of Object.entries(CITING)) {
      const cited = [...text.matchAll(/\b[A-Z]{2,5}-\d{3}\b/g)].map((m) => m[0]);
      expect(
        cited.filter((id) => !ids.has(id)),
        file,
      ).toEqual([]);
    }
    expect([...DOC.matchAll(/\b[A-Z]{2,5}-\d{3}\b/g)].length).toBeGreaterThan(0);
  });

  it('every npm script', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    let n = 0;
    for (const [file, text] of Object.entries(CITING)) {
      const cited = [...text.matchAll(/\bnpm run ([\w:.-]+)/g)].map((m) => m[1]!.replace(/[.:]+$/, ''));
      if (/\bnpm test\b/.test(text)) cited.push('test');
      n += cited.length;
      expect(
        cited.filter((s) => !scripts.includes(s)),
        file,
      ).toEqual([]);
    }
    expect(n).toBeGreaterThan(1);
  });

  it('every file path in backquotes', () => {
    for (const [file, text] of Object.entries(CITING)) {
      const cited = [...text.matchAll(/`((?:conformance|scripts|spec|reference-server|docs)\/[\w./-]+)`/g)].map(
        (m) => m[1]!,
      );
      expect(
        cited.filter((p) => !fs.existsSync(path.join(ROOT, p))),
        file,
      ).toEqual([]);
    }
  });
});
