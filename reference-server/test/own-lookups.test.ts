// The own-lookup lint rules of eslint.config.js (issue 35) bite: code planted in the reference
// server that reads a constant table with a computed key, uses `in`, or declares a string-keyed
// lookup table a computed read would not be checked on, is a lint error; the same code through
// own() or a Map is clean.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../spec/paths.js';

const eslint = new ESLint({ cwd: ROOT });

async function restricted(code: string, filePath = 'reference-server/src/planted.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.severity === 2 && m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

const TABLE = `const CODE_PROPS: Record<string, string> = { Code: 'text', Description: 'text' };\n`;

const CASES: Array<{ what: string; code: string; errors: number }> = [
  {
    what: 'a constant table read with a computed key',
    code: `${TABLE}export const f = (p: string) => CODE_PROPS[p];\n`,
    errors: 1,
  },
  { what: '`in` on a table', code: `${TABLE}export const f = (p: string) => p in CODE_PROPS;\n`, errors: 1 },
  {
    what: 'a lowercase string-keyed table at module level',
    code: `const props: Record<string, string> = { Code: 'text' };\nexport const f = (p: string) => props[p];\n`,
    errors: 1,
  },
  {
    what: 'the same read through own()',
    code: `import { own } from './own.js';\n${TABLE}export const f = (p: string) => own(CODE_PROPS, p);\n`,
    errors: 0,
  },
  {
    what: 'a Map',
    code: `const PROPS = new Map([['Code', 'text']]);\nexport const f = (p: string) => PROPS.get(p);\n`,
    errors: 0,
  },
  { what: 'a literal key', code: `${TABLE}export const f = () => CODE_PROPS['Code'];\n`, errors: 0 },
];

describe('lint keeps lookups by request names to own entries in the reference server', () => {
  for (const c of CASES) {
    it(`${c.what}: ${c.errors ? 'an error' : 'clean'}`, async () => {
      const errors = await restricted(c.code);
      expect(errors.length, errors.join('\n')).toBe(c.errors);
    });
  }

  it('the rules hold for the reference server only (the suite is not bound by them)', async () => {
    const code = `${TABLE}export const f = (p: string) => CODE_PROPS[p];\n`;
    expect(await restricted(code, 'conformance/src/planted.ts')).toEqual([]);
  });
});
