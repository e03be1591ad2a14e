// The "All options" table of conformance/README.md is the one generated from the option table
// (model/options.ts), as `conformance run --help` is: a default changed in one place only, or an
// edit by hand inside the generated region, fails here (`npm run docs:options` rewrites it).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsMarkdown, withOptionsTable } from '../src/cli/option-docs.js';
import { MAX_WORKERS, runOptionFlags, TESTS_PER_FILE } from '../src/model/options.js';
import { ROOT } from '../src/paths.js';

const readme = fs.readFileSync(path.join(ROOT, 'conformance', 'README.md'), 'utf8');
/** true when the guide's generated region differs from what the option table generates now */
const stale = (text: string) => withOptionsTable(text) !== text;

describe('the options table of the vendor guide', () => {
  it('is the one generated from model/options.ts', () => {
    expect(readme).toContain(optionsMarkdown());
    expect(stale(readme)).toBe(false);
  });

  it('fails on a planted difference, inside a row or a row left out', () => {
    const row = readme.split('\n').find((l) => l.startsWith('| `--concurrency <n>`'))!;
    expect(stale(readme.replace(row, row.replace(`ceil(n/${TESTS_PER_FILE})`, 'ceil(n/8)')))).toBe(true);
    expect(stale(readme.replace(`${row}\n`, ''))).toBe(true);
    expect(() => withOptionsTable(readme.replace('<!-- run-options:end -->', ''))).toThrow(/markers/);
  });

  it('says what --help says: every flag, and the concurrency plan of the run', () => {
    const table = optionsMarkdown();
    for (const f of runOptionFlags()) expect(table).toContain(`| \`${f.flags.replace(/\|/g, '\\|')}\` |`);
    const help = runOptionFlags().find((f) => f.key === 'concurrency')!.description;
    expect(help).toContain(`${TESTS_PER_FILE} per suite file in ceil(n/${TESTS_PER_FILE}) worker threads`);
    expect(help).toContain(`at most ${MAX_WORKERS} threads`);
  });
});
