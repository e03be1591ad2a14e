// The reference server as a child process: `node reference-server/bin/reference-server.mjs`
// (HTTP only: nothing of the server is imported).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HarnessError } from '../errors.js';
import { ROOT } from '../paths.js';
import { defaultLog, waitForHealth, type Log, type StartedTarget, type Target } from './target.js';

export interface LocalProcessOptions {
  /** Default reference-server/bin/reference-server.mjs. */
  bin?: string;
  healthPath?: string;
  startTimeoutMs?: number;
  /** Where the server's output goes (default: a temp file, shown when the start fails). */
  logFile?: string;
  extraArgs?: string[];
  log?: Log;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export class LocalProcessTarget implements Target {
  readonly kind = 'local-process' as const;
  private child?: ChildProcess;
  private tmpDir?: string;
  private exited?: string;
  private logFile?: string;
  private exitHook?: () => void;

  constructor(readonly opts: LocalProcessOptions = {}) {}

  describe(): string {
    return `reference server as a local process (${path.relative(ROOT, this.bin()) || this.bin()})`;
  }

  private bin(): string {
    return this.opts.bin ?? path.join(ROOT, 'reference-server', 'bin', 'reference-server.mjs');
  }

  async start(): Promise<StartedTarget> {
    const log = this.opts.log ?? defaultLog;
    const bin = this.bin();
    if (!fs.existsSync(bin)) throw new HarnessError(`reference server not found: ${bin}`);
    const port = await freePort();
    this.tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-conformance-'));
    const db = path.join(this.tmpDir, 'reference.db');
    this.logFile = this.opts.logFile ?? path.join(this.tmpDir, 'server.log');
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const out = fs.openSync(this.logFile, 'w');
    const args = [
      bin,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--db',
      db,
      '--provider-states',
      ...(this.opts.extraArgs ?? []),
    ];
    log(
      `conformance: starting node ${args.map((a) => (path.relative(ROOT, a).startsWith('..') ? a : path.relative(ROOT, a) || a)).join(' ')}`,
    );
    this.child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', out, out],
      env: { ...process.env, REFERENCE_PROVIDER_STATES: '1' },
    });
    fs.closeSync(out);
    const child = this.child;
    this.exitHook = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    process.once('exit', this.exitHook);
    this.child.on('exit', (code, signal) => {
      this.exited = `exited with ${signal ?? `code ${code}`}`;
    });
    this.child.on('error', (e) => {
      this.exited = `could not be started: ${e.message}`;
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    const t0 = Date.now();
    const health = await waitForHealth(
      `${baseUrl}${this.opts.healthPath ?? '/health'}`,
      this.opts.startTimeoutMs ?? 60_000,
      {
        abort: () => (this.exited ? `the server ${this.exited}` : undefined),
      },
    );
    if (!health.ok) {
      const tail = this.tail();
      await this.stop();
      throw new HarnessError(
        `the reference server did not become healthy (${health.problem}) within ${this.opts.startTimeoutMs ?? 60_000} ms` +
          (tail ? `; its output:\n${tail}` : ''),
      );
    }
    log(`conformance: reference server (pid ${this.child.pid}) healthy at ${baseUrl} after ${Date.now() - t0} ms`);
    return { kind: 'local-process', baseUrl, stateUrl: `${baseUrl}/_provider-states` };
  }

  private tail(lines = 30): string {
    try {
      return fs.readFileSync(this.logFile!, 'utf8').split('\n').slice(-lines).join('\n').trim();
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (this.exitHook) process.off('exit', this.exitHook);
    this.exitHook = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(t);
    }
    if (this.tmpDir) {
      const keepLog = this.opts.logFile !== undefined;
      try {
        fs.rmSync(this.tmpDir, { recursive: true, force: true });
      } catch {
        /* ignore */
      }
      if (!keepLog) this.logFile = undefined;
      this.tmpDir = undefined;
    }
  }
}
