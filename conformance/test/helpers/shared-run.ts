// One whole run of the suite, shared by the test files that only read what a whole run leaves
// behind (its verdict, its reports, its recorded traffic, what it printed): made once per `vitest
// run` by the first file that asks for it, through the package's library entry as a vendor calls
// it (conformance/README.md section 11), against the reference as a local process, every profile,
// the default worker plan, traffic recorded as HAR. Three whole runs were made for this before
// (run-library's, traffic-core's and reports-e2e's), each about 20-30 CPU-s.
//
// The files run in separate workers: the first to ask takes a lock directory in the directory the
// global setup (shared-run-setup.ts) made for this vitest run, makes the run and writes
// `outcome.json`; the others poll for that file. The directory is new per vitest run, so a run is
// never read from an earlier one.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { ROOT } from '../../src/paths.js';

declare module 'vitest' {
  interface ProvidedContext {
    sharedRunDir: string;
  }
}

export interface SharedRun {
  /** Where the run wrote report.html, results.json, junit.xml and badge.svg. */
  reportDir: string;
  /** The run's traffic (`recordHar`). */
  har: string;
  /** The verdict the library returned ('pass', ...), printed by the script. */
  verdict: string;
  /** What the run printed on stderr (the library prints nothing unless given a log hook). */
  stderr: string;
}

/** Long enough for a whole run on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 540_000;

/** The shared whole run: made by the first caller of this vitest run, awaited by the others. */
export async function sharedWholeRun(): Promise<SharedRun> {
  const base = inject('sharedRunDir');
  const outcome = path.join(base, 'outcome.json');
  let mine = false;
  try {
    fs.mkdirSync(path.join(base, 'lock'));
    mine = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (mine) {
    const run = await makeRun(base);
    fs.writeFileSync(outcome, JSON.stringify(run));
    return run;
  }
  const until = Date.now() + RUN_TIMEOUT_MS + 60_000;
  while (!fs.existsSync(outcome)) {
    if (Date.now() > until) throw new Error(`the shared whole run (${base}) did not end in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return JSON.parse(fs.readFileSync(outcome, 'utf8')) as SharedRun;
}

async function makeRun(base: string): Promise<SharedRun> {
  const reportDir = path.join(base, 'reports');
  const har = path.join(base, 'run.har');
  // inside the package, so that `rflps-conformance/run` resolves through its own "exports"
  const script = path.join(ROOT, 'conformance', `.shared-run-${process.pid}.mjs`);
  fs.writeFileSync(
    script,
    [
      `import { runConformance } from 'rflps-conformance/run';`,
      `const r = await runConformance({ localProcess: true, profile: 'all', reportDir: ${JSON.stringify(reportDir)}, recordHar: ${JSON.stringify(har)} });`,
      `console.log(r.verdict);`,
    ].join('\n'),
  );
  try {
    const env = { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '' };
    const r = await promisify(execFile)(process.execPath, [script], { cwd: ROOT, env, timeout: RUN_TIMEOUT_MS });
    return { reportDir, har, verdict: r.stdout.trim(), stderr: r.stderr };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: number; signal?: string; killed?: boolean };
    const how = err.killed ? `killed (${err.signal}) after ${RUN_TIMEOUT_MS} ms` : `exit ${err.code ?? err.signal}`;
    return {
      reportDir,
      har,
      verdict: `failed to run (${how}): ${(err.stdout ?? '').slice(-500)}`,
      stderr: err.stderr ?? '',
    };
  } finally {
    fs.rmSync(script, { force: true });
  }
}
