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
    const file = 'conformance/src/model/options.ts';
    // context.ts imports options.ts; options.ts now imports one of context.ts's types
    const planted = `${fs.readFileSync(path.join(ROOT, file), 'utf8')}\nimport type { RunContext } from './context.js';\nexport type Probe = RunContext;\n`;
    const messages = await ruleIds(file, planted);
    expect(messages).toEqual([
      expect.stringMatching(
        /^local\/no-cycle-with-types: import cycle \(type-only imports count\): conformance\/src\/model\/options\.ts -> conformance\/src\/model\/context\.ts -> conformance\/src\/model\/options\.ts$/,
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
      "local/folder-order: spec/probe.ts imports run/config.ts: folder 'run' is above 'spec' in the order (model < (root) < spec < judge < suite-api < report < traffic < bundle < coverage < targets < run < compare < cli); move the shared part down",
    ]);
  }, 120_000);

  it('an import down the order passes, and the tree has no exception', async () => {
    expect(
      await ruleIds(
        'conformance/src/cli/probe.ts',
        `import { UsageError } from '../model/errors.js';\nexport const e = UsageError;\n`,
      ),
    ).toEqual([]);
    const config = fs.readFileSync(path.join(ROOT, 'eslint.config.js'), 'utf8');
    expect(config).not.toMatch(/\bknown:/);
  }, 120_000);

  it('the model imports nothing of the package: neither a folder above it nor a root file', async () => {
    for (const [spec, name] of [
      ['../paths.js', 'ROOT'],
      ['../spec/catalogue.js', 'loadCatalogue'],
    ]) {
      const messages = await ruleIds(
        'conformance/src/model/probe.ts',
        `import { ${name} } from '${spec}';\nexport const x = ${name};\n`,
      );
      expect(messages).toContainEqual(expect.stringMatching(/^local\/folder-order: model\/probe\.ts imports /));
      expect(messages).toContainEqual(
        expect.stringMatching(
          /^import-x\/no-restricted-paths: .*the model \(conformance\/src\/model\) imports nothing of the package: it is the floor$/,
        ),
      );
    }
    // what it may import: node built-ins, dependencies, spec/generated types and spec/paths.ts
    const allowed = await ruleIds(
      'conformance/src/model/probe.ts',
      `import path from 'node:path';\nimport type { paths } from '../../../spec/generated/openapi.js';\nimport { ROOT } from '../../../spec/paths.js';\nexport type P = paths;\nexport const x = path.join(ROOT);\n`,
    );
    expect(allowed).toEqual([]);
    const server = await ruleIds(
      'conformance/src/model/probe.ts',
      `import { own } from '../../../reference-server/src/own.js';\nexport const x = own;\n`,
    );
    expect(server.filter((m) => m.startsWith('import-x/no-restricted-paths'))).toEqual([
      expect.stringMatching(/ the model imports nothing of the package$/),
    ]);
  }, 120_000);

  it('a new folder must be given its place', async () => {
    expect(await ruleIds('conformance/src/unplaced/probe.ts', `export const x = 1;\n`)).toEqual([
      "local/folder-order: folder 'unplaced' of conformance/src has no place in the folder order (eslint.config.js)",
    ]);
  }, 120_000);
});
