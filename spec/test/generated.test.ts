// (1) spec/generated, and the operation x-requirements of spec/openapi.yaml, are not stale:
// regenerate in memory and compare byte for byte.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateAll, staleFiles, type Read } from '../../scripts/generate.js';
import { ROOT } from '../paths.js';

describe('spec/generated', async () => {
  const files = await generateAll();

  it('produces the expected files', () => {
    const names = [...files.keys()].map((f) => basename(f)).sort();
    expect(names).toEqual(
      [
        'facts.ts',
        'openapi.json',
        'openapi.ts',
        'openapi.yaml',
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

describe('operation x-requirements are derived from spec/requirements.yaml (scripts/x-requirements.ts)', () => {
  const OPENAPI = join(ROOT, 'spec', 'openapi.yaml');
  const real = readFileSync(OPENAPI, 'utf8');
  const LINE = /^( +)x-requirements: \[GEN-001, GEN-002, GEN-005, DOM-002,[^\n]*\]$/m; // listDomains
  const planted =
    (yaml: string): Read =>
    (file) =>
      file === OPENAPI ? yaml : readFileSync(file, 'utf8');

  it.each([
    ['an ID dropped', real.replace(LINE, (l) => l.replace(' DOM-003,', ''))],
    ['an ID added', real.replace(LINE, (l) => l.replace('GEN-005,', 'GEN-005, REC-001,'))],
    ['two IDs swapped', real.replace(LINE, (l) => l.replace('GEN-001, GEN-002', 'GEN-002, GEN-001'))],
    ['the list removed', real.replace(LINE, '').replace(/\n\n(\s+tags: \[Domains\])/, '\n$1')],
  ])('a hand edit (%s) fails the drift check and is regenerated away', async (_, yaml) => {
    expect(LINE.test(real), 'the planted line is in spec/openapi.yaml').toBe(true);
    expect(yaml).not.toBe(real);
    const read = planted(yaml);
    const files = await generateAll(read);
    expect(staleFiles(files, read)).toContain('spec/openapi.yaml');
    expect(files.get(OPENAPI)).toBe(real);
  });

  it('follows spec/requirements.yaml: an operation named in `operations:` gains the ID, in catalogue order', async () => {
    const REQS = join(ROOT, 'spec', 'requirements.yaml');
    const reqs = readFileSync(REQS, 'utf8');
    const edited = reqs.replace(/( {2}- id: DOM-003\n(?: {4}.*\n)*? {4}operations: \[listDomains)\]/, '$1, getRecord]');
    expect(edited).not.toBe(reqs);
    const files = await generateAll((file) => (file === REQS ? edited : readFileSync(file, 'utf8')));
    const getRecord = /operationId: getRecord\n\s+x-requirements: \[([^\]]*)\]/.exec(files.get(OPENAPI)!)![1]!;
    expect(getRecord).toContain('DOM-002, DOM-003, DOM-010');
    expect(staleFiles(files)).toContain('spec/openapi.yaml');
  });

  it('leaves the hand-written provenance of responses and schema nodes alone', async () => {
    const yaml = real.replace(
      "'200':\n          x-requirements: [REC-001]",
      "'200':\n          x-requirements: [REC-002]",
    );
    expect(yaml).not.toBe(real);
    const files = await generateAll(planted(yaml));
    expect(files.get(OPENAPI)).toBe(yaml);
  });
});
