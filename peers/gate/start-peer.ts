// Starts a peer as a child process on a free port and waits for the line it prints when it listens
// (`listening on http://127.0.0.1:<port>`, the peers' start contract in peers/README.md).
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { PeerManifest } from './manifest.js';

export interface StartedPeer {
  url: string;
  child: ChildProcess;
  /** What the peer printed (kept to show when it fails). */
  output: string[];
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export async function startPeer(peer: PeerManifest, timeoutMs = 20_000): Promise<StartedPeer> {
  const [cmd, ...args] = peer.start;
  const child = spawn(cmd, [...args, '--port', '0'], { cwd: peer.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 200) output.shift();
  };
  readline.createInterface({ input: child.stderr! }).on('line', keep);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${peer.name}: no "listening on" line within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      keep(line);
      const m = LISTENING.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${peer.name}: exited (${code ?? signal}) before it listened:\n${output.join('\n')}`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`${peer.name}: could not start ${cmd}: ${e.message}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(killer);
  };
  return { url, child, output, stop };
}
