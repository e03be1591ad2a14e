// Runs the `conformance` bin as a child process (asynchronously: the fake servers of a test live in
// the test's own process and must keep answering).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';

const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');

/**
 * The environment of a suite run in one worker thread (CONFORMANCE_MAX_WORKERS, run/vitest-run.ts
 * concurrencyPlan), for the tests whose point is not how the run spreads over threads. Every worker
 * builds its own module graph (the OpenAPI document, the compiled response validators), and a run
 * selecting a few requirements still loads every suite file: at the default concurrency (4 workers)
 * a DOM- run took 9.0 CPU-s, in one worker 3.8; the whole core run 26.6 against 11.4 (the CLI's
 * own CPU, against a running reference, on this 2-core machine). The tests of a file still run
 * concurrently (one worker takes all 16 at once). The default plan (several workers) stays tested
 * by the HAR of a whole run (traffic-core, the workers' exchanges spooled into one file), the whole
 * library run (run-library) and `npm run test:conformance` (--profile all) in CI.
 */
export const ONE_WORKER: Record<string, string> = { CONFORMANCE_MAX_WORKERS: '1' };

export function runCli(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '', ...extraEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
