// Section "scale": the Claim Query's first and deep page by table size, one connection.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig } from '../config.js';
import type { Panel } from '../lib/chart.js';
import { buildDataset } from '../lib/dataset.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { int, label, mib, ms, table } from '../lib/markdown.js';
import { memoryOf, startReference, type Child, type Memory } from '../lib/proc.js';
import type { BenchContext } from './context.js';
import { deepSkip, queryPath } from './throughput.js';

async function getJson(url: string, token: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(url, { headers: { Token: token } });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: r.status, body };
}

export interface ScaleRow {
  rows: number;
  openRows: number;
  loadMs: number;
  dbBytes: number;
  first: LoadResult;
  deepSkip: number;
  deep: LoadResult;
  /** wall time of the first request of the deep page (one sample, nothing remembered) */
  deepFirstMs: number;
  /** first page under load (cfg.connections); not in the quick run */
  firstLoaded?: LoadResult;
  serverMemory?: Memory;
}

export async function scaleSection(ctx: BenchContext): Promise<ScaleRow[]> {
  const { cfg, log, work, serverCpu: SERVER_CPU } = ctx;
  log(`\n## Scale: Claim Query latency by table size (1 connection, ${cfg.duration} s per run)`);
  const out: ScaleRow[] = [];
  for (const n of cfg.sizes) {
    const d = buildDataset({ file: join(work, `scale-${n}.db`), claims: n });
    let ref: Child | undefined;
    try {
      ref = await startReference(d.file, SERVER_CPU);
      const spec = (skip: number) => ({
        url: ref!.url,
        headers: { Token: d.token },
        path: queryPath(skip),
        serverPid: ref!.pid,
      });
      // the first deep page of this query since the server started: nothing remembered to start
      // from, so SQLite steps over every skipped index entry (page-seek.ts)
      const c0 = performance.now();
      const check = await getJson(ref.url + queryPath(deepSkip(d)), d.token);
      const deepFirstMs = performance.now() - c0;
      if (check.status !== 200)
        throw new Error(`scale ${n}: status ${check.status}: ${JSON.stringify(check.body).slice(0, 300)}`);
      const first = await runLoad({ ...spec(0), connections: 1, duration: cfg.duration, warmup: cfg.warmup });
      const deep = await runLoad({ ...spec(deepSkip(d)), connections: 1, duration: cfg.duration, warmup: cfg.warmup });
      // (left out of the quick run, to keep it short)
      const firstLoaded = cfg.quick
        ? undefined
        : await runLoad({ ...spec(0), connections: cfg.connections, duration: cfg.duration, warmup: cfg.warmup });
      const row: ScaleRow = {
        rows: n,
        openRows: d.openClaims,
        loadMs: d.loadMs,
        dbBytes: d.dbBytes,
        first,
        deepSkip: deepSkip(d),
        deep,
        deepFirstMs,
        firstLoaded,
        serverMemory: memoryOf(ref.pid),
      };
      out.push(row);
      log(
        `${label(n).padStart(5)} rows (loaded in ${(d.loadMs / 1000).toFixed(1)} s, ${mib(d.dbBytes)}): first page p50 ${ms(first.p50)} p99 ${ms(first.p99)} ms (CPU ${int(first.cpuUsPerReq ?? NaN)} µs); ` +
          `skip ${int(row.deepSkip)} p50 ${ms(deep.p50)} p99 ${ms(deep.p99)} ms (CPU ${int(deep.cpuUsPerReq ?? NaN)} µs; first request ${ms(deepFirstMs)} ms); ${int(firstLoaded?.rps ?? NaN)} req/s loaded; server RSS ${mib(row.serverMemory?.rss)} (peak ${mib(row.serverMemory?.hwm)})`,
      );
    } finally {
      await ref?.stop();
      for (const s of ['', '-wal', '-shm']) rmSync(d.file + s, { force: true });
    }
  }
  return out;
}

/** The section's part of README.md. */
export function scaleMarkdown(s: ScaleRow[], cfg: BenchConfig): string[] {
  const L: string[] = [];
  L.push('## Scale: Claim Query by table size', '');
  L.push(
    `Query: \`${queryPath(0)}\`; deep page: the same with \`skip\` = 90% of the matching rows. 1 connection, except "req/s loaded" (${cfg.connections}).`,
    '',
  );
  L.push(
    table(
      [
        'rows',
        'bulk load',
        'db size',
        'first page p50',
        'p99',
        'CPU µs/req',
        'deep skip',
        'deep p50',
        'deep p99',
        'CPU µs/req',
        'deep, first request',
        'req/s loaded',
        'server RSS',
        'server peak RSS',
      ],
      s.map((x) => [
        label(x.rows),
        `${(x.loadMs / 1000).toFixed(1)} s`,
        mib(x.dbBytes),
        ms(x.first.p50),
        ms(x.first.p99),
        int(x.first.cpuUsPerReq ?? NaN),
        int(x.deepSkip),
        ms(x.deep.p50),
        ms(x.deep.p99),
        int(x.deep.cpuUsPerReq ?? NaN),
        `${ms(x.deepFirstMs)} ms`,
        int(x.firstLoaded?.rps ?? NaN),
        mib(x.serverMemory?.rss),
        mib(x.serverMemory?.hwm),
      ]),
    ),
  );
  if (s.length >= 2) {
    const lo = s[0]!;
    const hi = s[s.length - 1]!;
    L.push(
      '',
      `Growth ${label(lo.rows)} → ${label(hi.rows)}: first page p50 ×${(hi.first.p50 / lo.first.p50).toFixed(2)}, deep page p50 ×${(hi.deep.p50 / lo.deep.p50).toFixed(2)} (its skip grows ×${(hi.deepSkip / Math.max(1, lo.deepSkip)).toFixed(0)}).`,
    );
  }
  L.push('');
  return L;
}

/** The section's panel of bench.svg. */
export function scalePanels(s: ScaleRow[]): Panel[] {
  const panels: Panel[] = [];
  panels.push({
    title: 'Claim Query latency p50 by table size, 1 connection',
    unit: 'ms',
    digits: 2,
    groups: s.map((r) => ({
      label: `${label(r.rows)} rows`,
      bars: [
        { name: 'first page', value: r.first.p50 },
        { name: 'deep page (skip 90% of matches)', value: r.deep.p50, note: `skip ${int(r.deepSkip)}` },
      ],
    })),
  });
  return panels;
}
