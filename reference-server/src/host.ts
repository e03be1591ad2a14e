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
import { isProcessEntry } from './entry.js';
import { parseServerArgs } from './options.js';
import { startServer, StartError, type RunningServer, type ServerOutput } from './server.js';

/** What a server of the host holds besides itself: its temporary directory and its open log. */
interface Place {
  dir: string;
  logFd: number | undefined;
}

/** Closes the log and removes the directory (the database with it). */
function clear(place: Place): void {
  if (place.logFd !== undefined) fs.closeSync(place.logFd);
  fs.rmSync(place.dir, { recursive: true, force: true });
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
  const hosted = new Map<number, { server: RunningServer; place: Place }>();
  const answer = (o: Record<string, unknown>) => output(JSON.stringify(o) + '\n');

  async function start(id: number, flags: string[], log: string | undefined): Promise<void> {
    if (hosted.has(id)) return answer({ id, error: `server ${id} is already running` });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-host-'));
    const place: Place = { dir, logFd: log ? fs.openSync(log, 'w') : undefined };
    try {
      const argv = ['node', 'reference-server', '--port', '0', '--host', '127.0.0.1'];
      const o = parseServerArgs([...argv, '--db', path.join(dir, 'reference.db'), ...flags]);
      if (!o) throw new StartError('--help is no server', 2);
      const server = await startServer(o, fileOutput(place.logFd));
      hosted.set(id, { server, place });
      answer({ id, url: server.url });
    } catch (e) {
      clear(place);
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
    clear(h.place);
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
    const p = Object.hasOwn(cmd, 'start')
      ? start(cmd.id, (cmd as { start: string[] }).start, (cmd as { log?: string }).log)
      : stop(cmd.id);
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  await Promise.all(pending);
  await Promise.all([...hosted.keys()].map((id) => stop(id)));
}

if (isProcessEntry(import.meta.url)) void runHost().then(() => process.exit(0));
