// The reference servers of a mutation run: one per run (baseline, fault, control), each a server of
// its own (its own app, temporary SQLite file, port and provider-state endpoint), stopped after its
// run. They live in a few long-lived host processes (reference-server/src/host.ts, one per lane),
// not in a process each: ~200 process starts cost the machine a fifth of the run's CPU, and a
// fresh process answers the same requests with a third more CPU while V8 is still compiling them.
// Black box: the runner talks to the hosts over their stdin and stdout; it imports nothing of them.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../../../spec/paths.js';

/**
 * The servers keep an idle connection 30 s, the proxy in front of each at most 2 s: the proxy
 * closes an idle connection long before its server would, so it can keep connections alive without
 * sending on one the server is closing (a new connection per request cost the runner's process a
 * fifth of its busy time: connect, close, and the stack of undici's 'reset' error).
 */
const SERVER_KEEP_ALIVE_MS = 30_000;
export const UPSTREAM_IDLE_MS = 2_000;

/** How long a host has to answer a start or a stop (a loaded machine; a start takes milliseconds). */
const ANSWER_TIMEOUT_MS = 60_000;

export interface Reference {
  url: string;
  stop(): Promise<void>;
}

/** The command of a host: its esbuild bundle, or its source through tsx. */
function hostCommand(bundle: string | undefined): string[] {
  return bundle
    ? [process.execPath, bundle]
    : [process.execPath, '--import', 'tsx', path.join(ROOT, 'reference-server', 'src', 'host.ts')];
}

interface Answer {
  id?: number;
  url?: string;
  stopped?: boolean;
  error?: string;
}

/** One host process and the servers it runs for this pool. */
class Host {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, (a: Answer) => void>();
  /** why it can take no more requests (it exited, or its stdin closed) */
  gone: string | undefined;
  live = 0;

  constructor(command: string[], logFile: string) {
    const log = fs.openSync(logFile, 'a');
    this.child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['pipe', 'pipe', log] });
    fs.closeSync(log);
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      let a: Answer;
      try {
        a = JSON.parse(line) as Answer;
      } catch {
        return;
      }
      if (a.id !== undefined) this.waiting.get(a.id)?.(a);
    });
    this.child.once('exit', (code, signal) => {
      this.gone = `the server host exited with ${signal ?? `code ${code}`}; see ${path.relative(ROOT, logFile)}`;
      for (const answer of this.waiting.values()) answer({ error: this.gone });
      this.waiting.clear();
    });
    this.child.stdin!.on('error', () => undefined);
  }

  private ask(command: Record<string, unknown> & { id: number }): Promise<Answer> {
    if (this.gone) return Promise.resolve({ error: this.gone });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(command.id);
        resolve({ error: `the server host gave no answer within ${ANSWER_TIMEOUT_MS} ms` });
      }, ANSWER_TIMEOUT_MS);
      this.waiting.set(command.id, (a) => {
        clearTimeout(timer);
        this.waiting.delete(command.id);
        resolve(a);
      });
      this.child.stdin!.write(JSON.stringify(command) + '\n');
    });
  }

  async start(id: number, flags: string[], logFile: string): Promise<Reference> {
    const a = await this.ask({
      id,
      start: [
        '--provider-states',
        '--log-level',
        'warn',
        '--keep-alive-timeout',
        String(SERVER_KEEP_ALIVE_MS),
        ...flags,
      ],
      log: logFile,
    });
    if (!a.url) throw new Error(`${a.error ?? 'no URL in the answer'}\nsee ${path.relative(ROOT, logFile)}`);
    this.live++;
    let stopping: Promise<void> | undefined;
    return {
      url: a.url,
      stop: () =>
        (stopping ??= this.ask({ id, stop: true }).then((b) => {
          this.live--;
          if (!b.stopped && !this.gone) throw new Error(`server ${id} did not stop: ${b.error}`);
        })),
    };
  }

  /** Stops its servers (the host does, when its stdin ends) and waits for it to exit. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(t);
  }
}

/**
 * The servers of a mutation run, in `hosts` host processes (one per lane): a server is started on
 * the host that runs the fewest, and is stopped after its one run. Nothing carries state between
 * runs: each server has a new database, and each run a server of its own. A host that exited is
 * replaced at the next start.
 */
export class ServerPool {
  private readonly hosts: Host[] = [];
  private serial = 0;
  private closed = false;
  private readonly command: string[];

  constructor(
    private readonly dir: string,
    private readonly size: number,
    /** the host's esbuild bundle (default: its sources through tsx) */
    bundle?: string,
  ) {
    this.command = hostCommand(bundle);
    fs.mkdirSync(dir, { recursive: true });
  }

  private host(): Host {
    for (let i = 0; i < this.hosts.length; i++)
      if (this.hosts[i]!.gone) this.hosts[i] = new Host(this.command, this.hostLog(i));
    while (this.hosts.length < this.size) this.hosts.push(new Host(this.command, this.hostLog(this.hosts.length)));
    return this.hosts.reduce((a, b) => (b.live < a.live ? b : a));
  }

  private hostLog(i: number): string {
    return path.join(this.dir, `host-${i + 1}.log`);
  }

  /** A new server with the command line's `flags` (a control's); its log in `server-<n>/reference-server.log`. */
  async take(flags: string[]): Promise<Reference> {
    if (this.closed) throw new Error('the server pool is closed');
    const id = ++this.serial;
    const dir = path.join(this.dir, `server-${id}`);
    fs.mkdirSync(dir, { recursive: true });
    return this.host().start(id, flags, path.join(dir, 'reference-server.log'));
  }

  async release(ref: Reference): Promise<void> {
    await ref.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.hosts.map((h) => h.close().catch(() => undefined)));
  }
}
