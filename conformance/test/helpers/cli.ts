// Runs the `conformance` bin as a child process (asynchronously: the fake servers of a test live in
// the test's own process and must keep answering).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';

const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');

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
