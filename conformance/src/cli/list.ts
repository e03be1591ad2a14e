// `conformance list`: the suite's tests and the requirements they verify (no target).
import { type Command, Option } from 'commander';
import { CatalogueError, loadCatalogue } from '../spec/catalogue.js';
import { collectTests } from '../run/collect.js';
import { selectTest } from '../model/context.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';

export function registerList(program: Command, onExit: (code: number) => void): void {
  program
    .command('list')
    .description('list the suite tests and the requirements they verify (collects the suite; no target)')
    .option('--json', 'print JSON')
    .addOption(
      new Option('--profile <profile>', 'mark tests outside this profile').choices([
        'core',
        'implementation-defined',
        'all',
      ]),
    )
    .option('--requirements <ids>', 'only tests naming these IDs or prefixes')
    .action(async (opts) => {
      onExit(await listCommand(opts));
    });
}

async function listCommand(opts: {
  json?: boolean;
  profile?: 'core' | 'implementation-defined' | 'all';
  requirements?: string;
}): Promise<number> {
  let res: Awaited<ReturnType<typeof collectTests>>;
  try {
    loadCatalogue();
    res = await collectTests();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  const patterns = opts.requirements
    ? opts.requirements
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  const rows = res.tests.filter(
    (t) => patterns.length === 0 || t.requirements.some((id) => patterns.some((p) => id.startsWith(p))),
  );
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map(({ meta: _m, ...t }) => t),
        null,
        2,
      )}\n`,
    );
  } else {
    let file = '';
    for (const t of rows) {
      if (t.file !== file) {
        file = t.file;
        process.stdout.write(`${file}\n`);
      }
      const sel = opts.profile
        ? selectTest(t, { profile: opts.profile, requirements: patterns, readOnly: false })
        : { run: true };
      const flags = [
        t.profile === 'implementation-defined' ? 'impl-defined' : '',
        t.mutates ? 'mutates' : '',
        sel.run ? '' : 'not selected',
      ]
        .filter(Boolean)
        .join(', ');
      process.stdout.write(`  ${t.id}  [${t.requirements.join(' ')}]${flags ? `  (${flags})` : ''}\n    ${t.title}\n`);
    }
    process.stdout.write(`${rows.length} test(s) in ${new Set(rows.map((t) => t.file)).size} file(s)\n`);
  }
  for (const e of res.errors) log(`conformance: collection error: ${e}`);
  return res.errors.length ? EXIT.harness : EXIT.ok;
}
