// A conformance run in a child process (conformance-child.mjs), followed through its typed progress
// events (ProgressEvent of runConformance) instead of its log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ConformanceOptions, ProgressEvent } from '../../conformance/src/run/run-conformance.js';
import { ROOT } from '../../spec/paths.js';

export interface ConformanceChild {
  child: ChildProcess;
  /** the exit code (null: killed) */
  done: Promise<number | null>;
  /** the last 3,000 characters of its output */
  tail: () => string;
}

/** Runs `options` in a child process; `onEvent` gets each event as it arrives. */
export function spawnConformance(
  options: ConformanceOptions,
  onEvent: (event: ProgressEvent) => void,
  env: NodeJS.ProcessEnv = process.env,
): ConformanceChild {
  const script = join(ROOT, 'bench', 'lib', 'conformance-child.mjs');
  const child = spawn(process.execPath, [script, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env,
  });
  let tail = '';
  const onLine = (line: string) => {
    tail = (tail + line + '\n').slice(-3000);
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  child.on('message', (m) => {
    const e = m as ProgressEvent | { type: 'child-exit' };
    if (e.type !== 'child-exit') onEvent(e);
  });
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, done, tail: () => tail };
}

/** The command line of `conformance run` that `options` mean (for the report; the bench calls the library). */
export function commandLine(options: ConformanceOptions): string[] {
  const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const args = ['conformance/bin/conformance.mjs', 'run'];
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined || v === false) continue;
    if (v === true) args.push(flag(k));
    else args.push(flag(k), Array.isArray(v) ? v.join(',') : String(v));
  }
  return args;
}
