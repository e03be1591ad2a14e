// Many reference servers in one long-lived process, started and stopped on request: the fault
// runner's ~200 servers, each still a server of its own (its own app, SQLite file and port), without
// ~200 process starts, and with the server's code warm after the first few (a fresh process spends
// a third more CPU on the same requests while V8 is still compiling them).
//
// Protocol: one JSON object per line on stdin, one answer per line on stdout, matched by `id`.
//   {"id":1,"start":["--provider-states","--log-level","warn"],"log":"/path/server.log"}
//     -> {"id":1,"url":"http://127.0.0.1:40123"}   or {"id":1,"error":"..."}
//   {"id":1,"stop":true} -> {"id":1,"stopped":true}
// `start` takes the command line's flags; the host adds `--port 0 --host 127.0.0.1 --db <file>`
// (a fresh database in a temporary directory of its own, removed on stop) before them. The server's
// log lines (its listening line too) go to `log`, or nowhere. The host exits when stdin closes,
// stopping every server it still runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseServerArgs } from './options.js';
import { startServer, StartError, type RunningServer, type ServerOutput } from './server.js';

interface Hosted {
  server: RunningServer;
  dir: string;
  logFd: number | undefined;
}

type Command = { id: number; start: string[]; log?: string } | { id: number; stop: true };

function fileOutput(fd: number | undefined): ServerOutput {
  const write = (line: string) => {
    if (fd !== undefined) fs.writeSync(fd, line);
  };
  return { stdout: write, stderr: write };
}

/** Serves the protocol on `input`/`output` until `input` ends; then stops every server. */
export async function runHost(
  input: NodeJS.ReadableStream = process.stdin,
  output: (line: string) => void = (l) => process.stdout.write(l),
): Promise<void> {
  const hosted = new Map<number, Hosted>();
  const answer = (o: Record<string, unknown>) => output(JSON.stringify(o) + '\n');

  async function start(id: number, flags: string[], log: string | undefined): Promise<void> {
    if (hosted.has(id)) return answer({ id, error: `server ${id} is already running` });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-host-'));
    const logFd = log ? fs.openSync(log, 'w') : undefined;
    const drop = () => {
      if (logFd !== undefined) fs.closeSync(logFd);
      fs.rmSync(dir, { recursive: true, force: true });
    };
    try {
      const argv = ['node', 'reference-server', '--port', '0', '--host', '127.0.0.1'];
      const o = parseServerArgs([...argv, '--db', path.join(dir, 'reference.db'), ...flags]);
      if (!o) throw new StartError('--help is no server', 2);
      const server = await startServer(o, fileOutput(logFd));
      hosted.set(id, { server, dir, logFd });
      answer({ id, url: server.url });
    } catch (e) {
      drop();
      answer({
        id,
        error: e instanceof Error ? e.message || `usage error (exit ${(e as StartError).exitCode})` : String(e),
      });
    }
  }

  async function stop(id: number): Promise<void> {
    const h = hosted.get(id);
    if (!h) return answer({ id, error: `no server ${id}` });
    hosted.delete(id);
    await h.server.close();
    if (h.logFd !== undefined) fs.closeSync(h.logFd);
    fs.rmSync(h.dir, { recursive: true, force: true });
    answer({ id, stopped: true });
  }

  const pending = new Set<Promise<void>>();
  for await (const line of createInterface({ input })) {
    if (!line.trim()) continue;
    let cmd: Command;
    try {
      cmd = JSON.parse(line) as Command;
      if (typeof cmd.id !== 'number') throw new Error('no numeric id');
    } catch (e) {
      answer({ error: `not a command: ${(e as Error).message}` });
      continue;
    }
    const p = 'start' in cmd ? start(cmd.id, cmd.start, cmd.log) : stop(cmd.id);
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  await Promise.all(pending);
  await Promise.all([...hosted.keys()].map((id) => stop(id)));
}

function isEntry(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntry()) void runHost().then(() => process.exit(0));
