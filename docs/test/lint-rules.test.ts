// The architecture rules of docs/architecture.md are lint rules (eslint.config.js). This proves the
// rules bite: code placed in each part that imports across a forbidden boundary is an error.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../spec/paths.js';

const eslint = new ESLint({ cwd: ROOT });

async function errorsOf(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`);
}

const CASES: Array<{ file: string; imports: string; allowed: boolean }> = [
  // the suite is black box
  { file: 'conformance/src/x.ts', imports: '../../reference-server/src/app.js', allowed: false },
  { file: 'conformance/suite/x.test.ts', imports: '../../reference-server/src/dictionary.js', allowed: false },
  { file: 'conformance/src/x.ts', imports: '../../bench/lib/proc.js', allowed: false },
  { file: 'conformance/src/x.ts', imports: '../../scripts/generate.js', allowed: false },
  // the reference server knows nothing of the suite
  { file: 'reference-server/src/x.ts', imports: '../../conformance/src/suite-api/dsl.js', allowed: false },
  // the spec depends on nothing but itself
  { file: 'spec/x.ts', imports: '../reference-server/src/app.js', allowed: false },
  // allowed: the suite reads the spec; the server's own tests may use the suite's checker
  { file: 'conformance/src/x.ts', imports: '../../spec/paths.js', allowed: true },
  { file: 'reference-server/test/x.test.ts', imports: '../../conformance/src/spec/openapi.js', allowed: true },
];

describe('lint enforces the boundaries between the parts', () => {
  for (const c of CASES) {
    it(`${c.file} importing ${c.imports}: ${c.allowed ? 'allowed' : 'an error'}`, async () => {
      const errors = await errorsOf(
        c.file,
        `import * as m from '${c.imports}';\nexport const n = Object.keys(m).length;\n`,
      );
      const boundary = errors.filter((e) => e.startsWith('import-x/no-restricted-paths'));
      if (c.allowed) expect(boundary).toEqual([]);
      else expect(boundary.length, errors.join('\n')).toBe(1);
    });
  }
});
