// The README's figures are rendered from the reports (scripts/readme-figures.ts), never typed: this
// fails while README.md differs from the render (run `npm run docs:figures`), and the render itself
// follows its sources.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../spec/paths.js';
import { SOURCES, withFigures, worthTable } from '../../scripts/readme-figures.js';

describe('README figures', () => {
  it('are the ones rendered from reports/ (npm run docs:figures rewrites them)', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toBe(withFigures(readme, ROOT));
  });

  it('follow the reports: another mutation report gives another figure', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'figures-'));
    try {
      for (const rel of Object.values(SOURCES)) {
        const from = path.join(ROOT, rel);
        if (!fs.existsSync(from)) continue;
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.copyFileSync(from, path.join(dir, rel));
      }
      const m = JSON.parse(fs.readFileSync(path.join(dir, SOURCES.mutation), 'utf8'));
      m.score = { caught: 7, total: 9 };
      fs.writeFileSync(path.join(dir, SOURCES.mutation), JSON.stringify(m));
      expect(worthTable(dir)).toContain('| 7/9, each on its own reference server');
      fs.rmSync(path.join(dir, SOURCES.mutation));
      expect(() => worthTable(dir)).toThrow(/reports\/mutation\.json is missing/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
