// The reference server as a child process: `node reference-server/bin/reference-server.mjs`
// (HTTP only: nothing of the server is imported).
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../model/errors.js';
import { ROOT } from '../paths.js';
import { REFERENCE_BIN, startReferenceProcess, type ReferenceProcess } from './reference-process.js';
import { defaultLog, type Log, type StartedTarget, type Target } from './target.js';

export interface LocalProcessOptions {
  /** Default reference-server/bin/reference-server.mjs. */
  bin?: string;
  healthPath?: string;
  startTimeoutMs?: number;
  /** Also write the server's output here (it is kept in memory and shown when the start fails). */
  logFile?: string;
  extraArgs?: string[];
  log?: Log;
}

export class LocalProcessTarget implements Target {
  readonly kind = 'local-process' as const;
  private server?: ReferenceProcess;
  private exitHook?: () => void;

  constructor(readonly opts: LocalProcessOptions = {}) {}

  describe(): string {
    return `reference server as a local process (${path.relative(ROOT, this.bin()) || this.bin()})`;
  }

  private bin(): string {
    return this.opts.bin ?? REFERENCE_BIN;
  }

  async start(): Promise<StartedTarget> {
    const log = this.opts.log ?? defaultLog;
    const bin = this.bin();
    if (this.opts.logFile) fs.mkdirSync(path.dirname(this.opts.logFile), { recursive: true });
    const shown = (a: string) => (path.relative(ROOT, a).startsWith('..') ? a : path.relative(ROOT, a) || a);
    log(
      `conformance: starting node ${shown(bin)} --port 0 --provider-states ${(this.opts.extraArgs ?? []).join(' ')}`.trimEnd(),
    );
    const t0 = Date.now();
    try {
      this.server = await startReferenceProcess({
        bin,
        providerStates: true,
        args: this.opts.extraArgs,
        logFile: this.opts.logFile,
        startTimeoutMs: this.opts.startTimeoutMs,
        healthPath: this.opts.healthPath,
      });
    } catch (e) {
      throw new HarnessError((e as Error).message);
    }
    const server = this.server;
    this.exitHook = () => {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    };
    process.once('exit', this.exitHook);
    log(`conformance: reference server (pid ${server.pid}) healthy at ${server.url} after ${Date.now() - t0} ms`);
    return { kind: 'local-process', baseUrl: server.url, stateUrl: `${server.url}/_provider-states` };
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (this.exitHook) process.off('exit', this.exitHook);
    this.exitHook = undefined;
    await server?.stop();
  }
}
