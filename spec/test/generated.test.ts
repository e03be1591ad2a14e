// (1) spec/generated is not stale: regenerate in memory and compare byte for byte.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateAll } from '../../scripts/generate.js';
import { ROOT } from '../paths.js';

describe('spec/generated', async () => {
  const files = await generateAll();

  it('produces the expected files', () => {
    const names = [...files.keys()].map((f) => basename(f)).sort();
    expect(names).toEqual(
      [
        'openapi.json',
        'openapi.ts',
        'provenance.json',
        'provider-states.json',
        'provider-states.ts',
        'requirements.json',
      ].sort(),
    );
  });

  for (const [file, content] of files) {
    const rel = relative(ROOT, file);
    it(`${rel} is up to date (run \`npm run generate\` if this fails)`, () => {
      expect(existsSync(file), `${rel} is missing`).toBe(true);
      // Compare as one boolean first so a stale file gives a short message, not a 100 KB diff.
      const current = readFileSync(file, 'utf8');
      expect(current === content, `${rel} differs from what scripts/generate.ts produces`).toBe(true);
    });
  }

  it('holds no files that the generator does not produce', () => {
    const dir = join(ROOT, 'spec', 'generated');
    const expected = new Set([...files.keys()].map((f) => basename(f)));
    expect(readdirSync(dir).filter((f) => !expected.has(f))).toEqual([]);
  });
});
