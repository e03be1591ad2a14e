// The architecture rules of eslint.config.js fail where they should: a cycle closed by a type-only
// import (which import-x/no-cycle skips) and an import up the folder order of conformance/src.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { ROOT } from '../../spec/paths.js';
// @ts-expect-error: a plain ES module of the lint setup, without types
import { importsOf, pathBack } from '../../scripts/lint/import-graph.mjs';

const eslint = new ESLint({ cwd: ROOT });

async function ruleIds(file: string, text: string): Promise<string[]> {
  const [r] = await eslint.lintText(text, { filePath: path.join(ROOT, file) });
  return r.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('lint: import cycles, type-only imports included', () => {
  it('a cycle closed by a type-only import fails (import-x/no-cycle alone lets it pass)', async () => {
    const file = 'conformance/src/run/context.ts';
    // config.ts imports context.ts's types; context.ts now imports one of config.ts's
    const planted = `${fs.readFileSync(path.join(ROOT, file), 'utf8')}\nimport type { RunOptions } from './config.js';\nexport type Probe = RunOptions;\n`;
    const messages = await ruleIds(file, planted);
    expect(messages).toEqual([
      expect.stringMatching(
        /^local\/no-cycle-with-types: import cycle \(type-only imports count\): conformance\/src\/run\/context\.ts -> conformance\/src\/run\/config\.ts -> conformance\/src\/run\/context\.ts$/,
      ),
    ]);
    expect(messages.some((m) => m.startsWith('import-x/no-cycle'))).toBe(false);
  }, 120_000);

  it('the tree has none', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true }))
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.ts')) files.push(path.join(d, e.name));
    };
    walk(path.join(ROOT, 'conformance/src'));
    expect(files.length).toBeGreaterThan(50);
    const cycles = files.flatMap((f) =>
      (importsOf(f) as { file: string }[]).flatMap(({ file }) => (pathBack(file, f) ? [path.relative(ROOT, f)] : [])),
    );
    expect(cycles).toEqual([]);
  });
});

describe('lint: the folder order of conformance/src', () => {
  it('an import up the order fails, naming the order', async () => {
    const messages = await ruleIds(
      'conformance/src/spec/probe.ts',
      `import type { RunOptions } from '../run/config.js';\nexport type Probe = RunOptions;\n`,
    );
    expect(messages).toEqual([
      "local/folder-order: spec/probe.ts imports run/config.ts: folder 'run' is above 'spec' in the order ((root) < spec < suite-api < report < traffic < coverage < targets < run < compare < cli); move the shared part down",
    ]);
  }, 120_000);

  it('an import down the order, and one of the known ones, pass', async () => {
    expect(
      await ruleIds(
        'conformance/src/cli/probe.ts',
        `import { UsageError } from '../errors.js';\nexport const e = UsageError;\n`,
      ),
    ).toEqual([]);
    const file = 'conformance/src/targets/target.ts';
    expect(await ruleIds(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
  }, 120_000);

  it('a new folder must be given its place', async () => {
    expect(await ruleIds('conformance/src/model/probe.ts', `export const x = 1;\n`)).toEqual([
      "local/folder-order: folder 'model' of conformance/src has no place in the folder order (eslint.config.js)",
    ]);
  }, 120_000);
});
