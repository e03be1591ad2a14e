// The split of a CPU profile into the parts of a request's path (bench/lib/cpu-profile.ts), on a
// small profile written by hand: which part claims a sample, and what is left out.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitProfile } from '../lib/cpu-profile.js';

const dir = mkdtempSync(join(tmpdir(), 'cpu-profile-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SRC = 'file:///x/reference-server/src';
type Frame = [functionName: string, url: string];

/** A profile of stacks (root first), each sampled for the given µs. */
function profile(samples: Array<{ stack: Frame[]; us: number }>): string {
  const nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children: number[];
  }> = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [] }];
  const ids: number[] = [];
  const deltas: number[] = [];
  for (const s of samples) {
    let parent = nodes[0]!;
    for (const [functionName, url] of s.stack) {
      let child = parent.children
        .map((c) => nodes[c - 1]!)
        .find((n) => n.callFrame.functionName === functionName && n.callFrame.url === url);
      if (!child) {
        child = { id: nodes.length + 1, callFrame: { functionName, url, lineNumber: 0 }, children: [] };
        nodes.push(child);
        parent.children.push(child.id);
      }
      parent = child;
    }
    ids.push(parent.id);
    deltas.push(s.us);
  }
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.cpuprofile`);
  writeFileSync(file, JSON.stringify({ nodes, startTime: 0, endTime: 1, samples: ids, timeDeltas: deltas }));
  return file;
}

describe('splitProfile', () => {
  it('gives each sample to the first part claiming a frame, from the running function up', () => {
    const http: Frame = ['parserOnIncoming', 'node:_http_server'];
    const route: Frame = ['', `${SRC}/areas/records.ts`];
    const split = splitProfile(
      profile([
        // a native statement call: its caller (server code) makes it SQL
        { stack: [http, route, ['run', `${SRC}/columns/record-read.ts`], ['get', '']], us: 7 },
        // Hono's query helper called by the route: Hono's, not the route's
        { stack: [http, route, ['query', 'file:///n/node_modules/hono/dist/request.js']], us: 3 },
        // the permission check lives in auth.ts but is not the token lookup
        { stack: [http, route, ['requirePermission', `${SRC}/auth.ts`]], us: 2 },
        { stack: [http, ['userFor', `${SRC}/auth.ts`]], us: 5 },
        { stack: [http, route, ['json', 'file:///n/node_modules/hono/dist/context.js']], us: 4 },
        { stack: [http, ['writev', '']], us: 11 },
        { stack: [['(garbage collector)', '']], us: 6 },
        { stack: [['(program)', '']], us: 1 },
      ]),
    );
    expect(Object.fromEntries([...split.parts].filter(([, us]) => us > 0))).toEqual({
      'SQL (better-sqlite3 and SQLite)': 7,
      'Hono request and context helpers': 3,
      'permission check': 2,
      'auth: token lookup': 5,
      'JSON serialisation': 4,
      'node http, streams, sockets': 11,
      'garbage collection': 6,
      other: 1,
    });
    expect(split.busyUs).toBe(39);
  });

  it("claims the reference's own router, query parse, request checks and deferred answer writing", () => {
    const http: Frame = ['parserOnIncoming', 'node:_http_server'];
    const split = splitProfile(
      profile([
        { stack: [http, ['match', `${SRC}/router.ts`]], us: 2 },
        {
          stack: [
            http,
            ['match', `${SRC}/router.ts`],
            ['match', 'file:///n/node_modules/hono/dist/router/pattern-router/router.js'],
          ],
          us: 3,
        },
        { stack: [http, ['queryParam', `${SRC}/query-params.ts`]], us: 4 },
        { stack: [http, ['', `${SRC}/request-checks.ts`]], us: 5 },
        {
          stack: [
            ['processImmediate', 'node:internal/timers'],
            ['flush', `${SRC}/answer-batch.ts`],
          ],
          us: 6,
        },
        { stack: [http, ['', `${SRC}/areas/records.ts`]], us: 1 },
      ]),
    );
    expect(Object.fromEntries([...split.parts].filter(([, us]) => us > 0))).toEqual({
      'Hono routing and dispatch': 5,
      'Hono request and context helpers': 4,
      'server middleware (limits, 405 check, errors)': 5,
      'node http, streams, sockets': 6,
      'route handler glue': 1,
    });
  });

  it('leaves idle time and the profiler’s own work out of the busy time', () => {
    const split = splitProfile(
      profile([
        { stack: [['(idle)', '']], us: 100 },
        {
          stack: [
            ['', 'file:///x/bench/lib/profiled-reference-server.mjs'],
            ['post', 'node:inspector'],
          ],
          us: 50,
        },
        { stack: [['parserOnIncoming', 'node:_http_server']], us: 10 },
      ]),
    );
    expect(split.busyUs).toBe(10);
    expect(split.idleUs).toBe(100);
    expect(split.parts.get('node http, streams, sockets')).toBe(10);
  });

  it('gives the bare-spin computation its own part, node functions it calls included', () => {
    const spin: Frame = ['spin', 'file:///x/bench/bare-server.ts'];
    const split = splitProfile(
      profile([
        { stack: [['parserOnIncoming', 'node:_http_server'], spin, ['now', 'node:internal/perf/utils']], us: 20 },
        { stack: [['parserOnIncoming', 'node:_http_server'], spin], us: 5 },
      ]),
    );
    expect(split.parts.get('bare-spin: the added computation')).toBe(25);
    expect(split.parts.get('node http, streams, sockets')).toBe(0);
  });
});
