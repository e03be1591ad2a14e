// The one way to start the reference server as a process and know it serves: `--port 0` (the
// operating system picks the port, so two servers started together never race for one; a port
// chosen beforehand and bound later can be taken in between by another listener, whose /health then
// answers for a server that never started), the URL read from the server's listening line, then
// GET /health. Used by the CLI's local target, the fault runner, the benchmarks, the reliability
// tests and the scripts. Black box: it runs the server's command; it imports nothing of it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../paths.js';
import { waitForHealth } from './target.js';

export const REFERENCE_BIN = path.join(ROOT, 'reference-server', 'bin', 'reference-server.mjs');

export interface ReferenceProcessOptions {
  /** The server's command (default reference-server/bin/reference-server.mjs). */
  bin?: string;
  /** More flags after `--port <port> --host <host> --db <db>`. */
  args?: string[];
  /** Database file (default: `reference.db` in a temporary directory removed by stop()). */
  db?: string;
  /** Serve the provider-state endpoint (`--provider-states`). */
  providerStates?: boolean;
  host?: string;
  /** Default 0: any free port, chosen by the operating system when the server binds. */
  port?: number;
  /** Also write the server's output to this file. */
  logFile?: string;
  /** Every piece of the server's output as it comes (output() keeps only the last 100 KB). */
  onOutput?: (text: string) => void;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Pin the server to this CPU with taskset (the benchmarks). */
  cpu?: number;
  /** Listening and healthy within this time (default 60 s). */
  startTimeoutMs?: number;
  /** Path answered 200 once serving (default /health); null: the listening line is enough. */
  healthPath?: string | null;
}

interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ReferenceProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  db: string;
  /** The server's output so far (its last 100 KB). */
  output(): string;
  exited: Promise<ExitStatus>;
  /** Signal (default SIGTERM), SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ExitStatus>;
}

/** The URL of the server's listening line (`{"msg":"listening on ...","url":...}`), if `line` is it. */
export function listeningUrl(line: string): string | undefined {
  try {
    const o = JSON.parse(line) as { url?: unknown };
    return typeof o.url === 'string' ? o.url : undefined;
  } catch {
    return undefined;
  }
}

export async function startReferenceProcess(opts: ReferenceProcessOptions = {}): Promise<ReferenceProcess> {
  const bin = opts.bin ?? REFERENCE_BIN;
  if (!fs.existsSync(bin)) throw new Error(`reference server not found: ${bin}`);
  const tmp = opts.db === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-reference-')) : undefined;
  const db = opts.db ?? path.join(tmp!, 'reference.db');
  const args = [
    bin,
    '--port',
    String(opts.port ?? 0),
    '--host',
    opts.host ?? '127.0.0.1',
    '--db',
    db,
    ...(opts.providerStates ? ['--provider-states'] : []),
    ...(opts.args ?? []),
  ];
  // taskset execs node: the child's pid is the server's (the benchmarks read /proc/<pid>)
  const [cmd, argv] =
    opts.cpu === undefined
      ? [process.execPath, args]
      : ['taskset', ['-c', String(opts.cpu), process.execPath, ...args]];
  const child = spawn(cmd, argv, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(opts.providerStates ? { REFERENCE_PROVIDER_STATES: '1' } : {}), ...opts.env },
  });
  let out = '';
  const file = opts.logFile ? fs.createWriteStream(opts.logFile, { flags: 'w' }) : undefined;
  const keep = (d: Buffer) => {
    const text = d.toString();
    opts.onOutput?.(text);
    out += text;
    if (out.length > 200_000) out = out.slice(-100_000);
    file?.write(d);
  };
  child.stderr!.on('data', keep);
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  void exited.then(() => file?.end());
  let gone: string | undefined;
  void exited.then((e) => (gone = `exited with ${e.signal ?? `code ${e.code}`}`));

  const cleanUp = () => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000): Promise<ExitStatus> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const e = await exited;
    clearTimeout(t);
    cleanUp();
    return e;
  };
  const limit = opts.startTimeoutMs ?? 60_000;
  const t0 = Date.now();
  const fail = async (why: string): Promise<never> => {
    await stop('SIGKILL');
    throw new Error(`the reference server ${why}; its output:\n${out.trim().split('\n').slice(-30).join('\n')}`);
  };

  const url = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), limit);
    const lines = createInterface({ input: child.stdout! });
    let found = false;
    lines.on('line', (line) => {
      keep(Buffer.from(line + '\n'));
      const u = found ? undefined : listeningUrl(line);
      if (u) {
        found = true;
        clearTimeout(timer);
        resolve(u);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  if (!url) return fail(gone ? `${gone} before listening` : `printed no listening line within ${limit} ms`);
  if (opts.healthPath !== null) {
    const health = await waitForHealth(
      `${url}${opts.healthPath ?? '/health'}`,
      Math.max(1_000, limit - (Date.now() - t0)),
      {
        intervalMs: 50,
        abort: () => (gone ? `the server ${gone}` : undefined),
      },
    );
    if (!health.ok) return fail(`did not become healthy at ${url} (${health.problem})`);
  }
  return { url, port: Number(new URL(url).port), pid: child.pid!, child, db, output: () => out, exited, stop };
}
