// A fixture script (conformance/test/fixtures) in a child process through tsx: a fixture that runs
// the suite through the library cannot run inside a vitest worker (vitest is not nested). The
// fixture prints its findings as JSON on its last line.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../src/paths.js';

/** Runs conformance/test/fixtures/`name` and returns the JSON of the last line it printed. */
export async function runFixture<T>(name: string, timeoutMs: number): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'conformance/test/fixtures', name)],
    { cwd: ROOT, timeout: timeoutMs },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
