// A peer's manifest (`peers/<name>/peer.json`): how to start it and which bindings it runs with.
// A peer is an independent implementation of the interface, written blind from the spec; the gate
// (run-peers.ts) runs core against each one and fails on any red line.
import fs from 'node:fs';
import path from 'node:path';

export interface PeerManifest {
  /** The folder name under peers/. */
  name: string;
  /** Absolute folder of the peer. */
  dir: string;
  /** The command that starts it, run in `dir`; `--port 0` is appended. */
  start: string[];
  /** Its conformance.yaml (bindings), absolute. */
  config: string;
  /** One line: stack and store. */
  stack: string;
  /** Path of its provider-state endpoint (default /_provider-states); the gate joins it to the port it started on. */
  statePath: string;
}

/** Reads and checks one manifest; throws with the file's name on anything missing. */
function readManifest(dir: string): PeerManifest {
  const file = path.join(dir, 'peer.json');
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const start = raw.start;
  if (!Array.isArray(start) || start.length === 0 || !start.every((s) => typeof s === 'string'))
    throw new Error(`${file}: "start" must be a non-empty array of strings`);
  if (typeof raw.config !== 'string') throw new Error(`${file}: "config" must name the peer's conformance.yaml`);
  if (typeof raw.stack !== 'string') throw new Error(`${file}: "stack" must say the peer's stack in one line`);
  const config = path.resolve(dir, raw.config);
  if (!fs.existsSync(config)) throw new Error(`${file}: config ${raw.config} does not exist`);
  const statePath = raw.statePath ?? '/_provider-states';
  if (typeof statePath !== 'string' || !statePath.startsWith('/'))
    throw new Error(`${file}: "statePath" must be a path`);
  return { name: path.basename(dir), dir, start: start as string[], config, stack: raw.stack, statePath };
}

/** Every peer under `root` (a folder with a peer.json), in name order. */
export function findPeers(root: string): PeerManifest[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, d.name, 'peer.json')))
    .map((d) => readManifest(path.join(root, d.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
}
