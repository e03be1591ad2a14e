// Child processes of the benchmark: the reference server and the bare Hono ceiling, each in its
// own process (pinned to its own core when `taskset` exists), plus /proc memory readings.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ROOT } from '../../spec/paths.js';
import { listeningUrl, startReferenceProcess } from '../../conformance/src/targets/reference-process.js';

export function hasTaskset(): boolean {
  return spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Pins a process to one CPU (no-op without taskset or with a single CPU). */
export function pin(pid: number, cpu: number): boolean {
  return spawnSync('taskset', ['-cp', String(cpu), String(pid)], { stdio: 'ignore' }).status === 0;
}

/** Lets every thread of a process run on every CPU again (children it starts inherit that). */
export function unpin(pid: number, cpuCount: number): boolean {
  return spawnSync('taskset', ['-acp', `0-${cpuCount - 1}`, String(pid)], { stdio: 'ignore' }).status === 0;
}

export interface Child {
  name: string;
  url: string;
  pid: number;
  proc: ChildProcess;
  stop(): Promise<void>;
}

interface SpawnOptions {
  name: string;
  args: string[];
  /** CPU to pin the child to, or undefined */
  cpu?: number;
  /** extracts the base URL from one stdout line */
  urlFrom: (line: string) => string | undefined;
  timeoutMs?: number;
}

function spawnChild(o: SpawnOptions): Promise<Child> {
  const useTaskset = o.cpu !== undefined;
  const cmd = useTaskset ? 'taskset' : process.execPath;
  const args = useTaskset ? ['-c', String(o.cpu), process.execPath, ...o.args] : o.args;
  // taskset execs node, so the child's pid is the server's pid (for /proc readings)
  const proc = spawn(cmd, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${o.name}: not listening after ${o.timeoutMs ?? 30000} ms\n${stderr}`));
    }, o.timeoutMs ?? 30_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${o.name}: exited with ${code} before listening\n${stderr}`));
    });
    const rl = createInterface({ input: proc.stdout! });
    rl.on('line', (line) => {
      const url = o.urlFrom(line);
      if (!url) return;
      clearTimeout(timer);
      proc.removeAllListeners('exit');
      resolve({
        name: o.name,
        url,
        pid: proc.pid!,
        proc,
        stop: () =>
          new Promise<void>((done) => {
            if (proc.exitCode !== null || proc.signalCode !== null) return done();
            const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
            proc.once('exit', () => {
              clearTimeout(kill);
              done();
            });
            proc.kill('SIGTERM');
          }),
      });
    });
  });
}

/** The reference server's own command line on a database file (log level warn: no per-request
 * log lines, as a production deployment would run it). */
export async function startReference(db: string, cpu?: number, extraArgs: string[] = []): Promise<Child> {
  const ref = await startReferenceProcess({
    db,
    cpu,
    args: ['--log-level', 'warn', ...extraArgs],
    env: { NODE_ENV: 'production' },
    startTimeoutMs: 30_000,
  });
  return {
    name: 'reference-server',
    url: ref.url,
    pid: ref.pid,
    proc: ref.child,
    stop: async () => {
      await ref.stop();
    },
  };
}

export function startBare(cpu?: number): Promise<Child> {
  return spawnChild({
    name: 'bare-hono',
    args: ['--import', 'tsx', 'bench/bare-server.ts'],
    cpu,
    urlFrom: listeningUrl,
  });
}

export interface Memory {
  /** resident set now, bytes */
  rss: number;
  /** peak resident set (high-water mark), bytes */
  hwm: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status. */
export function memoryOf(pid: number): Memory | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU time (user + system, all threads) a process has used so far, in ms; from /proc/<pid>/stat. */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of stat (utime, stime) are 11 and 12 after the command name and state
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** The pids of a process tree (the process and every descendant), from /proc. */
export function processTree(root: number): number[] {
  if (!existsSync('/proc')) return [root];
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(d));
      children.set(ppid, list);
    } catch {
      // the process ended meanwhile
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}
