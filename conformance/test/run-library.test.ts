// The library entry ("./run" of the package): the example of conformance/README.md section 11 runs
// as written, in a plain Node process that imports the package by its name, and prints a verdict.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/paths.js';
import { ONE_WORKER } from './helpers/cli.js';
import { sharedWholeRun } from './helpers/shared-run.js';

const README = fs.readFileSync(path.join(ROOT, 'conformance/README.md'), 'utf8');

/** The first js code block after the heading of section 11. */
function example(): string {
  const section = README.slice(README.indexOf('## 11. From your own code'));
  const m = /```js\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('no js example in section 11 of conformance/README.md');
  return m[1]!;
}

// inside the package, so that `rflps-conformance/run` resolves through its own "exports"
const script = path.join(ROOT, 'conformance', `.run-library-example-${process.pid}.mjs`);
afterAll(() => fs.rmSync(script, { force: true }));
// the small runs in one worker thread (helpers/cli.ts); the whole run keeps the default plan
const oneWorker = { ...process.env, ...ONE_WORKER };

describe('runConformance from the package export', () => {
  it('the README example runs the selected tests and prints the verdict and each requirement', async () => {
    fs.writeFileSync(script, example());
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], {
      cwd: ROOT,
      env: oneWorker,
      timeout: 120_000,
    });
    expect(stdout.trim().split('\n')).toEqual(['pass (exit 0)', 'REC-001 passed']);
    // nothing printed unless a log hook is given
    expect(stderr).toBe('');
  }, 150_000);

  it('hooks.tests: only the tests named run, the others are not in the results', async () => {
    fs.writeFileSync(
      script,
      [
        `import { runConformance } from 'rflps-conformance/run';`,
        `const r = await runConformance(`,
        `  { localProcess: true, include: 'conformance/suite/records.test.ts' },`,
        `  { tests: ['records.get-by-id-returns-stored-values'] },`,
        `);`,
        `const ids = new Set(r.requirements.flatMap((q) => q.tests.filter((t) => !t.generic && !t.step).map((t) => t.id)));`,
        `console.log([...ids].join(','), r.requirements.find((q) => q.id === 'REC-002').result);`,
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], {
      cwd: ROOT,
      env: oneWorker,
      timeout: 120_000,
    });
    expect(stdout.trim()).toBe('records.get-by-id-returns-stored-values passed');
  }, 150_000);

  it('two runs side by side in one process each record their own traffic (recordHar)', async () => {
    // the spool reached the workers through a process-wide environment variable: the second run
    // took it over and the first run's HAR lost its exchanges (scripts/traffic-faults.ts)
    const dir = fs.mkdtempSync(path.join(ROOT, 'reports', 'tmp', 'har-side-by-side-'));
    fs.writeFileSync(
      script,
      [
        `import fs from 'node:fs';`,
        `import { runConformance } from 'rflps-conformance/run';`,
        `const runs = [0, 1].map((i) => runConformance({ localProcess: true, requirements: 'REC-001', recordHar: ${JSON.stringify(dir)} + '/' + i + '.har' }));`,
        `await Promise.all(runs);`,
        `const hosts = (i) => [...new Set(JSON.parse(fs.readFileSync(${JSON.stringify(dir)} + '/' + i + '.har', 'utf8')).log.entries.map((e) => new URL(e.request.url).host))];`,
        `console.log(JSON.stringify([hosts(0), hosts(1)]));`,
      ].join('\n'),
    );
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [script], {
        cwd: ROOT,
        env: oneWorker,
        timeout: 120_000,
      });
      const [a, b] = JSON.parse(stdout.trim().split('\n').pop()!) as [string[], string[]];
      // each HAR holds the exchanges of its own server only, and some
      expect(a).toHaveLength(1);
      expect(b).toHaveLength(1);
      expect(a[0]).not.toBe(b[0]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('a whole run (profile all) prints no warning', async () => {
    // MaxListenersExceededWarning was printed here when a test had more than ten requests in flight.
    // The shared run is this very call (runConformance from the package export, profile all, the
    // default worker plan), with a report directory and a HAR besides (helpers/shared-run.ts).
    const run = await sharedWholeRun();
    expect(run.verdict).toBe('pass');
    expect(run.stderr).toBe('');
  }, 600_000);
});
