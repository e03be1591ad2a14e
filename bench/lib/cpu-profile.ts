// Reads a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file) and splits the server's busy time
// into the parts of a request's path: each sample goes to the first part that claims a frame of its
// stack, walking from the leaf (the function that was running) towards the root.
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The parts, in the order of the report table. */
export const PARTS = [
  'auth: token lookup',
  'permission check',
  'OpenAPI parameter check',
  'column list and compiled-read key',
  'SQL (better-sqlite3 and SQLite)',
  'row shaping (columns to JSON values)',
  'JSON serialisation',
  'Hono routing and dispatch',
  'Hono request and context helpers',
  'server middleware (limits, 405 check, errors)',
  'route handler glue',
  'node http, streams, sockets',
  'garbage collection',
  'bare-spin: the added computation',
  'other',
] as const;
type Part = (typeof PARTS)[number];

const has = (f: CallFrame, s: string) => f.url.includes(s);
const SQL_METHODS = new Set(['get', 'all', 'run', 'iterate', 'pluck', 'raw']);

/** The part a frame belongs to, or undefined when the frame is not telling (the walk goes on up).
 * `parent` is the caller's frame (native functions have no URL: their caller says whose they are). */
function partOf(f: CallFrame, parent: CallFrame | undefined): Part | undefined {
  const name = f.functionName;
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === 'requirePermission' || (name === 'can' && has(f, 'reference-server/src/auth.ts')))
    return 'permission check';
  if (has(f, 'reference-server/src/auth.ts')) return 'auth: token lookup';
  if (has(f, 'reference-server/src/validation.ts') || /^validate\d+$/.test(name) || has(f, '/ajv/'))
    return 'OpenAPI parameter check';
  if (has(f, 'reference-server/src/columns/column-list.ts')) return 'column list and compiled-read key';
  if (has(f, 'better-sqlite3')) return 'SQL (better-sqlite3 and SQLite)';
  if (f.url === '' && SQL_METHODS.has(name) && parent && has(parent, 'reference-server/src/'))
    return 'SQL (better-sqlite3 and SQLite)';
  if (has(f, 'reference-server/src/columns/output-columns.ts') || has(f, 'reference-server/src/time.ts'))
    return 'row shaping (columns to JSON values)';
  if ((name === 'stringify' && f.url === '') || (name === 'json' && has(f, '/hono/dist/context')))
    return 'JSON serialisation';
  if (
    has(f, '/hono/dist/router') ||
    has(f, '/hono/dist/compose') ||
    has(f, '/hono/dist/hono-base') ||
    has(f, 'reference-server/src/router.ts') // the reference's router (Hono's PatternRouter, strict)
  )
    return 'Hono routing and dispatch';
  if (has(f, '/hono/dist/') || has(f, 'reference-server/src/query-params.ts'))
    return 'Hono request and context helpers';
  if (
    has(f, 'reference-server/src/limits.ts') ||
    has(f, 'reference-server/src/routing.ts') ||
    has(f, 'reference-server/src/request-checks.ts') ||
    has(f, 'reference-server/src/errors.ts')
  )
    return 'server middleware (limits, 405 check, errors)';
  // the answers of a turn written after it (answer-batch.ts): node's writing, deferred
  if (has(f, 'reference-server/src/answer-batch.ts')) return 'node http, streams, sockets';
  if (has(f, 'reference-server/src/')) return 'route handler glue';
  if (has(f, '@hono/node-server') || f.url.startsWith('node:')) return 'node http, streams, sockets';
  return undefined;
}

export interface ProfileSplit {
  /** busy µs per part (idle time left out) */
  parts: Map<Part, number>;
  busyUs: number;
  idleUs: number;
}

/** Splits the busy time of a profile's samples into PARTS. */
export function splitProfile(file: string): ProfileSplit {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parentOf = new Map<number, number>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parentOf.set(c, n.id);
  }
  // the profiler's own work (the wrapper's Profiler.stop call) is not the server's: left out
  const profilerNodes = new Set<number>();
  for (const n of p.nodes) {
    for (let cur: number | undefined = n.id; cur !== undefined; cur = parentOf.get(cur))
      if (byId.get(cur)!.callFrame.url.includes('profiled-reference-server.mjs')) {
        profilerNodes.add(n.id);
        break;
      }
  }
  // the part of each node, found once (a walk up the stack)
  const partCache = new Map<number, Part>();
  const partOfNode = (id: number): Part => {
    const cached = partCache.get(id);
    if (cached) return cached;
    let part: Part = 'other';
    // the bare-spin control's computation, whatever it calls (performance.now is node's)
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (f.functionName === 'spin' && has(f, 'bench/bare-server.ts')) {
        partCache.set(id, 'bare-spin: the added computation');
        return 'bare-spin: the added computation';
      }
    }
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const parentId = parentOf.get(cur);
      const found = partOf(
        byId.get(cur)!.callFrame,
        parentId === undefined ? undefined : byId.get(parentId)!.callFrame,
      );
      if (found) {
        part = found;
        break;
      }
    }
    partCache.set(id, part);
    return part;
  };
  const parts = new Map<Part, number>(PARTS.map((x) => [x, 0]));
  let busyUs = 0;
  let idleUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    // a sample's delta is the time since the previous one: the time it stands for
    const dt = p.timeDeltas[i] ?? 0;
    const node = byId.get(p.samples[i]!)!;
    if (profilerNodes.has(node.id)) continue;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += dt;
      continue;
    }
    busyUs += dt;
    const part = partOfNode(node.id);
    parts.set(part, parts.get(part)! + dt);
  }
  return { parts, busyUs, idleUs };
}
