// Section "throughput": the reference server's scenarios under load, each beside the bare Hono
// ceiling measured just before it, then with one connection.
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig } from '../config.js';
import type { Panel } from '../lib/chart.js';
import { buildDataset, resetUpsertProposal, type Dataset } from '../lib/dataset.js';
import { runLoad, type LoadResult, type LoadSpec } from '../lib/load.js';
import { int, label, mib, ms, pct, table } from '../lib/markdown.js';
import { memoryOf, startBare, startReference, type Memory } from '../lib/proc.js';
import type { BenchContext } from './context.js';

interface Scenario {
  id: string;
  title: string;
  spec: (base: string) => Omit<LoadSpec, 'connections' | 'duration' | 'warmup'>;
  /** before each measured run (e.g. reset what the previous run wrote) */
  before?: () => void;
  /** checks one answer before loading */
  check: (status: number, body: any) => string | undefined;
  /** against the server started with --exclusive-db (on its own copy of the dataset) */
  exclusive?: boolean;
}

const CLAIM_COLUMNS = 'ClaimNumber,ClaimantName,Status,LossDate,ReserveAmount,Location.Name';
const QUERY_COLUMNS = 'ClaimID,ClaimNumber,ClaimantName,LossDate,ReserveAmount,Status,Location.Name';
export const queryPath = (skip: number) =>
  `/api/Claim/Query?columns=${QUERY_COLUMNS}&filter=Status:eq:Open&sort=LossDate%20desc&take=100${skip ? `&skip=${skip}` : ''}`;
/** the deep page: 90% into the rows that match the filter */
export const deepSkip = (d: Dataset) => Math.max(0, Math.floor(d.openClaims * 0.9));

function scenarios(d: Dataset, cfg: BenchConfig): Scenario[] {
  const headers = { Token: d.token };
  let nextId = 0;
  let batch = 0;
  const upsertBody = () => {
    const b = ++batch;
    const Inserts = Array.from({ length: cfg.upsertItems }, (_, i) => ({
      Fields: {
        LocationName: `Bench ${b}.${i}`,
        Address1: `${i} Bench Street`,
        City: 'Portland',
        StateCode: 'OR',
        ZipCode: '97201',
      },
    }));
    return JSON.stringify({ Inserts, Updates: [], Deletes: [] });
  };
  return [
    {
      id: 'record',
      title: 'one Claim by ID, 6 columns (one through an association)',
      spec: (url) => ({ url, headers, path: () => `/api/Claim/${1 + (nextId++ % d.claims)}?columns=${CLAIM_COLUMNS}` }),
      check: (s, b) => (s === 200 && b?.Record?.ClaimNumber ? undefined : `status ${s}`),
    },
    {
      id: 'record-excl',
      title: 'the same, server started with --exclusive-db (SQLite exclusive locking mode)',
      spec: (url) => ({ url, headers, path: () => `/api/Claim/${1 + (nextId++ % d.claims)}?columns=${CLAIM_COLUMNS}` }),
      check: (s, b) => (s === 200 && b?.Record?.ClaimNumber ? undefined : `status ${s}`),
      exclusive: true,
    },
    {
      id: 'query',
      title: `Claim Query: filter Status eq Open, sort LossDate desc, take 100 (${label(d.claims)} rows)`,
      spec: (url) => ({ url, headers, path: queryPath(0) }),
      check: (s, b) => (s === 200 && b?.List?.length === 100 ? undefined : `status ${s}, ${b?.List?.length} rows`),
    },
    {
      id: 'file-contents',
      title: `one File with Contents (${mib(d.fileBytes)}, base64 in JSON)`,
      spec: (url) => ({ url, headers, path: `/api/File/${d.fileId}?columns=FileID,FileName,FileSize,Contents` }),
      check: (s, b) =>
        s === 200 &&
        typeof b?.Record?.Contents === 'string' &&
        Buffer.from(b.Record.Contents, 'base64').length === d.fileBytes
          ? undefined
          : `status ${s}`,
    },
    {
      id: 'file-meta',
      title: 'the same File, default columns (no Contents)',
      spec: (url) => ({ url, headers, path: `/api/File/${d.fileId}` }),
      check: (s, b) => (s === 200 && b?.Record && !('Contents' in b.Record) ? undefined : `status ${s}`),
    },
    {
      id: 'upsert',
      title: `atomic UpsertMulti of ${cfg.upsertItems} inserts (ProposalLocation, fresh batch per request)`,
      spec: (url) => ({
        url,
        headers,
        method: 'POST',
        path: `/api/Quotes/Proposals/${d.proposalId}/Schedules/ProposalLocation/UpsertMulti?isAtomic=true`,
        body: upsertBody,
      }),
      before: () => void resetUpsertProposal(d.file, d.proposalId),
      check: (s, b) =>
        s === 200 && b?.Inserts?.length === cfg.upsertItems && b.Inserts.every((r: any) => r.IsSuccessful)
          ? undefined
          : `status ${s}`,
    },
  ];
}

async function probe(sc: Scenario, base: string): Promise<void> {
  const spec = sc.spec(base);
  const path = typeof spec.path === 'function' ? spec.path() : spec.path;
  const init: RequestInit = {
    method: spec.method ?? 'GET',
    headers: { ...spec.headers, ...(spec.body ? { 'content-type': 'application/json' } : {}) },
  };
  if (spec.body) init.body = spec.body();
  const r = await fetch(base + path, init);
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const problem = sc.check(r.status, body);
  if (problem) throw new Error(`scenario ${sc.id}: unexpected answer (${problem}): ${text.slice(0, 300)}`);
}

interface ThroughputRow {
  id: string;
  title: string;
  /** under load (cfg.connections) */
  load: LoadResult;
  bareLoad: LoadResult;
  /** req/s over the bare ceiling's req/s (wall clock: sensitive to other load on the machine) */
  ratio: number;
  /** server CPU per request of the bare route over the scenario's (the capacity ratio of a
   * CPU-bound single-threaded server; robust to other load on the machine) */
  cpuRatio: number;
  /** one connection: per-request latency */
  single: LoadResult;
}

export interface ThroughputSection {
  claims: number;
  connections: number;
  rows: ThroughputRow[];
  /** the bare ceiling with one connection (the latency floor of the stack) */
  bareSingle: LoadResult;
  serverMemory?: Memory;
  loadMs: number;
}

export async function throughputSection(ctx: BenchContext): Promise<ThroughputSection> {
  const { cfg, log, work, serverCpu: SERVER_CPU } = ctx;
  log(
    `\n## Throughput and latency (${label(cfg.throughputClaims)} Claims, ${cfg.connections} connections, ${cfg.duration} s per run)`,
  );
  const d = buildDataset({
    file: join(work, 'throughput.db'),
    claims: cfg.throughputClaims,
    fileBytes: cfg.fileBytes,
    proposal: true,
  });
  log(`dataset: ${label(d.claims)} Claims loaded in ${ms(d.loadMs)} ms (${mib(d.dbBytes)})`);
  // the exclusive server holds its file's lock: it gets a copy of the dataset
  const exclusiveFile = join(work, 'throughput-exclusive.db');
  for (const s of ['', '-wal']) if (existsSync(d.file + s)) copyFileSync(d.file + s, exclusiveFile + s);
  const [ref, refExclusive, bare] = await Promise.all([
    startReference(d.file, SERVER_CPU),
    startReference(exclusiveFile, SERVER_CPU, ['--exclusive-db']),
    startBare(SERVER_CPU),
  ]);
  const rows: ThroughputRow[] = [];
  try {
    const bareSpec = { url: bare.url, path: '/bare', serverPid: bare.pid };
    const list = scenarios(d, cfg);
    const server = (sc: Scenario) => (sc.exclusive ? refExclusive : ref);
    for (const sc of list) await probe(sc, server(sc).url);
    // JIT warm-up of each server before anything is measured (the per-run warm-up is short; the
    // first scenario measured on a cold server read up to ~3x more CPU per request than the same
    // route later in the same run)
    for (const sc of list.filter((x) => x.id === 'record' || x.id === 'record-excl'))
      await runLoad({
        ...sc.spec(server(sc).url),
        connections: cfg.connections,
        duration: Math.max(1, cfg.warmup * 3),
        warmup: 0,
      });
    await runLoad({ ...bareSpec, connections: cfg.connections, duration: Math.max(1, cfg.warmup * 3), warmup: 0 });
    const bareSingle = await runLoad({ ...bareSpec, connections: 1, duration: cfg.duration, warmup: cfg.warmup });
    log(
      `bare Hono, 1 connection: p50 ${ms(bareSingle.p50)} p99 ${ms(bareSingle.p99)} ms, ${int(bareSingle.rps)} req/s`,
    );
    for (const sc of list) {
      const run = async (
        spec: Omit<LoadSpec, 'connections' | 'duration' | 'warmup'>,
        connections: number,
        before?: () => void,
      ) => {
        before?.();
        return runLoad({ ...spec, connections, duration: cfg.duration, warmup: cfg.warmup });
      };
      // side by side: the ceiling just before the scenario, both under load; then one connection
      const bareLoad = await run(bareSpec, cfg.connections);
      const srv = server(sc);
      const load = await run({ ...sc.spec(srv.url), serverPid: srv.pid }, cfg.connections, sc.before);
      const single = await run({ ...sc.spec(srv.url), serverPid: srv.pid }, 1, sc.before);
      for (const r of [load, single])
        if (r.non2xx || r.errors) throw new Error(`scenario ${sc.id}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      const row: ThroughputRow = {
        id: sc.id,
        title: sc.title,
        load,
        bareLoad,
        ratio: load.rps / bareLoad.rps,
        cpuRatio: (bareLoad.cpuUsPerReq ?? NaN) / (load.cpuUsPerReq ?? NaN),
        single,
      };
      rows.push(row);
      log(
        `${sc.id.padEnd(14)} ${int(load.rps).padStart(7)} req/s = ${pct(row.ratio)} of bare ${int(bareLoad.rps)}; ` +
          `CPU ${int(load.cpuUsPerReq ?? NaN)} µs/req vs bare ${int(bareLoad.cpuUsPerReq ?? NaN)} = ${pct(row.cpuRatio)}; ` +
          `loaded p50 ${ms(load.p50)} p99 ${ms(load.p99)} ms; 1 conn p50 ${ms(single.p50)} p99 ${ms(single.p99)} ms`,
      );
    }
    resetUpsertProposal(d.file, d.proposalId);
    return {
      claims: d.claims,
      connections: cfg.connections,
      rows,
      bareSingle,
      serverMemory: memoryOf(ref.pid),
      loadMs: d.loadMs,
    };
  } finally {
    await ref.stop();
    await refExclusive.stop();
    await bare.stop();
    for (const f of [d.file, exclusiveFile]) for (const s of ['', '-wal', '-shm']) rmSync(f + s, { force: true });
  }
}

/** The section's part of README.md. */
export function throughputMarkdown(t: ThroughputSection, cfg: BenchConfig): string[] {
  const L: string[] = [];
  L.push(`## Throughput and latency`, '');
  L.push(
    `${label(t.claims)} Claims; ${t.connections} connections for req/s and loaded latency, then 1 connection for per-request latency; ` +
      `${cfg.duration} s per run after ${cfg.warmup} s of warm-up. Each scenario is paired with a bare Hono run (constant JSON body) just before it. ` +
      `"ratio" is req/s over the bare route's req/s; "CPU ratio" is the bare route's server CPU time per request over the scenario's ` +
      `(from /proc/<pid>/stat), i.e. the capacity ratio of a CPU-bound single-threaded server, which other load on the machine does not skew.`,
    '',
  );
  L.push(
    table(
      [
        'scenario',
        'req/s',
        'bare req/s',
        'ratio',
        'server CPU µs/req',
        'bare µs/req',
        'CPU ratio',
        'p50 loaded',
        'p99 loaded',
        'p50 1 conn',
        'p99 1 conn',
      ],
      t.rows.map((x) => [
        `${x.id}: ${x.title}`,
        int(x.load.rps),
        int(x.bareLoad.rps),
        pct(x.ratio),
        int(x.load.cpuUsPerReq ?? NaN),
        int(x.bareLoad.cpuUsPerReq ?? NaN),
        pct(x.cpuRatio),
        ms(x.load.p50),
        ms(x.load.p99),
        ms(x.single.p50),
        ms(x.single.p99),
      ]),
    ),
  );
  L.push(
    '',
    `Latencies in ms. The bare Hono route with 1 connection: p50 ${ms(t.bareSingle.p50)}, p99 ${ms(t.bareSingle.p99)} ms (the floor of HTTP on this machine).`,
    '',
  );
  return L;
}

/** The section's panels of bench.svg. */
export function throughputPanels(t: ThroughputSection): Panel[] {
  const panels: Panel[] = [];
  panels.push({
    title: `Throughput, ${t.connections} connections (bare Hono ceiling measured just before each scenario)`,
    unit: 'req/s',
    groups: t.rows.map((r) => ({
      label: r.id,
      bars: [
        { name: 'bare Hono', value: r.bareLoad.rps },
        {
          name: 'reference server',
          value: r.load.rps,
          note: `${pct(r.ratio)} of ceiling; by CPU ${pct(r.cpuRatio)}`,
        },
      ],
    })),
  });
  panels.push({
    title: 'Server CPU time per request (stable on a busy machine; bare Hono measured beside each scenario)',
    unit: 'µs',
    groups: t.rows.map((r) => ({
      label: r.id,
      bars: [
        { name: 'bare Hono', value: r.bareLoad.cpuUsPerReq ?? NaN },
        { name: 'reference server', value: r.load.cpuUsPerReq ?? NaN, note: `bare/scenario ${pct(r.cpuRatio)}` },
      ],
    })),
  });
  panels.push({
    title: 'Latency, 1 connection',
    unit: 'ms',
    digits: 2,
    groups: t.rows.map((r) => ({
      label: r.id,
      bars: [
        { name: 'p50', value: r.single.p50 },
        { name: 'p99', value: r.single.p99 },
      ],
    })),
  });
  return panels;
}
