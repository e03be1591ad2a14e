// `npm run bench [-- options]`: the benchmarks of the reference server and the conformance suite.
// Prints the figures and writes reports/bench/{bench.json, bench.svg, README.md}.
// Every throughput figure is measured side by side with the bare Hono ceiling in the same run, so
// the ratio holds on a noisy machine. See docs/benchmarks.md.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { buildDataset, resetUpsertProposal, type Dataset } from './lib/dataset.js';
import { hasTaskset, memoryOf, pin, startBare, startReference, unpin, type Child, type Memory } from './lib/proc.js';
import { ROOT } from '../spec/paths.js';
import { runLoad, type LoadResult, type LoadSpec } from './lib/load.js';
import { benchSuite, type SuiteBench } from './lib/suite.js';
import { renderChart, type Panel } from './lib/chart.js';
import { verifyNoBytesWithoutContents, type VerifyResult } from './lib/verify.js';
import { runLatency, type LatencyRun } from './lib/latency.js';
import { benchMutation, type MutationBench } from './lib/mutation.js';
import { benchCi, type CiBench } from './lib/ci.js';

// ------------------------------------------------------------------------------------ options

const HELP = `usage: npm run bench [-- options]

  --quick               smoke variant: small sizes, 1 s runs, a 2-file suite subset (< 1 min)
  --duration <s>        seconds per measured load run (default 5; quick 1)
  --warmup <s>          discarded warm-up seconds before each run (default 1; quick 0.1)
  --connections <n>     concurrent connections of the throughput runs (default 10)
  --sizes <list>        Claim rows of the scale runs (default 10k,100k,1m; quick 1k,10k)
  --latency <list>      ms added to every response in the latency scenario (default 0,50,200; quick 0,50)
  --concurrency <n>     the suite's --concurrency in the latency and suite sections (default: the CLI's)
  --only <list>         sections: throughput,scale,latency,suite,mutation,ci (default all; quick: all but ci)
                        ci: \`bash .ci/run\` on a fresh clone of HEAD with ../shared beside it (about 13 min)
  --out <dir>           output directory (default reports/bench; quick: reports/tmp/bench-quick, git-ignored)
  --no-pin              do not pin the load generator and the servers to separate CPUs
  --render              measure nothing: write README.md and bench.svg again from the bench.json in
                        --out (after a change of the report's form)
  -h, --help            this text
`;

function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim());
  if (!m) throw new Error(`bad size '${s}' (e.g. 10k, 1m, 5000)`);
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}

function label(n: number): string {
  return n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n);
}

const { values: argv } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    sizes: { type: 'string' },
    only: { type: 'string' },
    latency: { type: 'string' },
    concurrency: { type: 'string' },
    out: { type: 'string' },
    render: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowPositionals: false,
});
if (argv.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const quick = argv.quick!;
const cfg = {
  quick,
  duration: Number(argv.duration ?? (quick ? 1 : 5)),
  warmup: Number(argv.warmup ?? (quick ? 0.1 : 1)),
  connections: Number(argv.connections ?? 10),
  sizes: (argv.sizes ?? (quick ? '1k,10k' : '10k,100k,1m')).split(',').map(parseSize),
  sections: new Set(
    (argv.only ?? `throughput,scale,latency,suite,mutation${quick ? '' : ',ci'}`).split(',').map((s) => s.trim()),
  ),
  latencies: (argv.latency ?? (quick ? '0,50' : '0,50,200')).split(',').map((s) => Number(s.trim())),
  concurrency: argv.concurrency ? Number(argv.concurrency) : undefined,
  out: resolve(ROOT, argv.out ?? (quick ? 'reports/tmp/bench-quick' : 'reports/bench')),
  throughputClaims: quick ? 10_000 : 100_000,
  fileBytes: 1 << 20,
  upsertItems: 100,
  suiteInclude: quick ? ['conformance/suite/records.test.ts', 'conformance/suite/domains.test.ts'] : undefined,
  /** the quick subset selects the requirements of its two files (else the others count as untested) */
  suiteArgs: quick ? ['--requirements', 'REC-,DOM-'] : [],
  /** the quick mutation run: one fault and one control */
  mutationOnly: quick ? ['lowercase-domain-accepted', 'unknown-domain-422'] : undefined,
};
for (const s of cfg.sections)
  if (!['throughput', 'scale', 'latency', 'suite', 'mutation', 'ci'].includes(s))
    throw new Error(`--only: unknown section '${s}'`);
if (cfg.latencies.some((x) => !(x >= 0))) throw new Error('--latency: a comma list of milliseconds, e.g. 0,50,200');
if (cfg.concurrency !== undefined && !(cfg.concurrency >= 1)) throw new Error('--concurrency must be >= 1');
if (!(cfg.duration > 0) || !(cfg.connections >= 1)) throw new Error('--duration and --connections must be positive');

// ------------------------------------------------------------------------------------ helpers

const log = (s = '') => process.stdout.write(s + '\n');
const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : 'n/a');
const mib = (b: number | undefined) =>
  b === undefined || !Number.isFinite(b) ? 'n/a' : `${(b / 2 ** 20).toFixed(0)} MiB`;
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a');
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');

function table(head: string[], rows: Array<Array<string | number>>): string {
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

const pinned = !argv['no-pin'] && cpus().length >= 2 && hasTaskset();
const LOAD_CPU = 0;
const SERVER_CPU = pinned ? 1 : undefined;
if (pinned) pin(process.pid, LOAD_CPU);

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

// ------------------------------------------------------------------------------------ scenarios

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
const queryPath = (skip: number) =>
  `/api/Claim/Query?columns=${QUERY_COLUMNS}&filter=Status:eq:Open&sort=LossDate%20desc&take=100${skip ? `&skip=${skip}` : ''}`;
/** the deep page: 90% into the rows that match the filter */
const deepSkip = (d: Dataset) => Math.max(0, Math.floor(d.openClaims * 0.9));

function scenarios(d: Dataset): Scenario[] {
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

// ------------------------------------------------------------------------------------ sections

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

interface ThroughputSection {
  claims: number;
  connections: number;
  rows: ThroughputRow[];
  /** the bare ceiling with one connection (the latency floor of the stack) */
  bareSingle: LoadResult;
  serverMemory?: Memory;
  loadMs: number;
}

async function throughputSection(work: string): Promise<ThroughputSection> {
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
    const list = scenarios(d);
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

interface ScaleRow {
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

async function scaleSection(work: string): Promise<ScaleRow[]> {
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

async function latencySection(work: string): Promise<LatencyRun[]> {
  log(
    `\n## Latency: the ${cfg.suiteInclude ? 'quick subset of the ' : ''}core suite through a proxy adding ${cfg.latencies.join(', ')} ms to every response` +
      ` (reference server as a local process${cfg.concurrency ? `, --concurrency ${cfg.concurrency}` : ''})`,
  );
  const out: LatencyRun[] = [];
  for (const delayMs of cfg.latencies) {
    const r = await runLatency({
      delayMs,
      work,
      concurrency: cfg.concurrency,
      extraArgs: [...cfg.suiteArgs, ...(cfg.suiteInclude ? ['--include', cfg.suiteInclude.join(',')] : [])],
    });
    out.push(r);
    log(
      `${String(delayMs).padStart(4)} ms: wall ${(r.wallMs / 1000).toFixed(1)} s (suite ${((r.suiteMs ?? NaN) / 1000).toFixed(1)} s), exit ${r.exitCode}, ${r.verdict ?? 'no verdict'}, ${r.passed ?? '?'} requirements passed; ` +
        `${int(r.requests.total)} requests (${int(r.requests.interface)} interface, ${int(r.requests.providerState)} provider state); ` +
        `critical path ${r.chain.requests} requests (${r.chain.test}) = ${(r.criticalPathMs / 1000).toFixed(1)} s; ` +
        `CPU: suite ${((r.cpuMs.suite ?? NaN) / 1000).toFixed(1)} s, server ${((r.cpuMs.server ?? NaN) / 1000).toFixed(1)} s; load average ${r.loadavg.toFixed(1)}`,
    );
    if (r.exitCode !== 0) log(r.outputTail);
  }
  return out;
}

/** Measured runs of the suite section (after one not counted): the median is reported. */
const SUITE_RUNS = 3;

async function suiteSection(work: string): Promise<SuiteBench> {
  log(
    `\n## Conformance suite (${cfg.suiteInclude ? `subset: ${cfg.suiteInclude.join(', ')}` : 'full core run'} against the reference container)`,
  );
  const once = () =>
    benchSuite({
      reportDir: join(work, 'suite'),
      include: cfg.suiteInclude,
      extraArgs: [
        ...cfg.suiteArgs,
        ...(cfg.concurrency ? ['--concurrency', String(cfg.concurrency)] : []),
        // the section measures the container: without an engine the CLI would fall back to a
        // local process and this section would report that as the container's figure (it did
        // once, on a machine whose Docker engine was not started)
        ...(cfg.quick || cfg.suiteArgs.some((a) => /^--(local-process|base-url|image)/.test(a))
          ? []
          : ['--require-container']),
      ],
    });
  // one run not counted (it builds the image when its sources changed, and meets a machine still
  // busy from the section before: one run of 24.3 s, 14.2 s of it the container start, beside
  // 8.1 s when run alone), then SUITE_RUNS runs, the median reported
  const warmup = await once();
  const measured: SuiteBench[] = [];
  for (let i = 0; i < SUITE_RUNS; i++) measured.push(await once());
  const sorted = [...measured].sort((a, b) => a.wallMs - b.wallMs);
  const failed = measured.find((m) => m.exitCode !== 0);
  const r: SuiteBench = {
    ...(failed ?? sorted[Math.floor(sorted.length / 2)]!),
    runs: {
      wallMs: measured.map((m) => m.wallMs),
      warmupWallMs: warmup.wallMs,
      ...(warmup.phases.build !== undefined && warmup.phases.container !== undefined
        ? { warmupImageCheckMs: warmup.phases.container - warmup.phases.build }
        : {}),
    },
  };
  log(
    `${SUITE_RUNS} runs after one not counted (${(warmup.wallMs / 1000).toFixed(1)} s): ${measured.map((m) => `${(m.wallMs / 1000).toFixed(1)} s`).join(', ')}; ${failed ? 'a failed run' : 'the median'}:`,
  );
  const p = r.phases;
  log(
    `wall ${(r.wallMs / 1000).toFixed(1)} s (exit ${r.exitCode}, ${r.verdict ?? 'no verdict'}): ` +
      `CLI start to the image check ${p.build !== undefined ? (p.build / 1000).toFixed(1) : '?'} s, ` +
      `image check ${p.build !== undefined && p.container !== undefined ? ((p.container - p.build) / 1000).toFixed(1) : '?'} s, ` +
      `container start ${p.container !== undefined && p.healthy !== undefined ? ((p.healthy - p.container) / 1000).toFixed(1) : '?'} s, ` +
      `to the first suite file ${p.healthy !== undefined && p.suite !== undefined ? ((p.suite - p.healthy) / 1000).toFixed(1) : '?'} s, ` +
      `suite and reports ${p.suite !== undefined && p.verdict !== undefined ? ((p.verdict - p.suite) / 1000).toFixed(1) : '?'} s, ` +
      `container stop and exit ${p.verdict !== undefined ? ((r.wallMs - p.verdict) / 1000).toFixed(1) : '?'} s; ` +
      `${r.tests} tests summing ${(r.sumTestMs / 1000).toFixed(1)} s; peak RSS tree ${mib(r.treePeakRss)}, largest process ${mib(r.processPeakRss)}, server in container ${mib(r.containerServerPeakRss)}`,
  );
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}

async function ciSection(): Promise<CiBench> {
  log('\n## CI: `bash .ci/run` on a fresh clone of HEAD (../shared beside it)');
  const r = await benchCi(log);
  log(`wall ${(r.wallMs / 1000).toFixed(0)} s (exit ${r.exitCode}), commit ${r.commit ?? '?'}`);
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}

async function mutationSection(): Promise<MutationBench> {
  log(
    `\n## Mutation run (${cfg.mutationOnly ? `subset: ${cfg.mutationOnly.join(', ')}` : 'every fault and every control'}, each on its own reference server)`,
  );
  // kept after the run (reports/tmp is git-ignored): the per-run reports say why a fault was missed
  const reportDir = join(ROOT, 'reports', 'tmp', cfg.quick ? 'bench-quick-mutation' : 'bench-mutation');
  rmSync(reportDir, { recursive: true, force: true });
  const r = await benchMutation({ reportDir, only: cfg.mutationOnly });
  log(
    `wall ${(r.wallMs / 1000).toFixed(1)} s (exit ${r.exitCode}): ${r.faults.caught}/${r.faults.total} faults caught, ` +
      `${r.controls.falseAlarms}/${r.controls.total} false alarms; baseline run ${((r.baselineMs ?? NaN) / 1000).toFixed(1)} s; ` +
      `${r.concurrency ?? '?'} runs at a time; machine CPU ${((r.machineCpuMs ?? NaN) / 1000).toFixed(0)} s; load average ${r.loadavg.toFixed(1)}`,
  );
  if (r.exitCode !== 0) log(r.outputTail);
  return r;
}

// ------------------------------------------------------------------------------------ targets

interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean | undefined;
  note?: string;
}

function targets(
  t?: ThroughputSection,
  s?: ScaleRow[],
  suite?: SuiteBench,
  lat?: LatencyRun[],
  mut?: MutationBench,
  ci?: CiBench,
): Target[] {
  const out: Target[] = [];
  const full = !cfg.suiteInclude;
  const far = lat?.find((r) => r.delayMs === 200);
  if (far) {
    out.push({
      name: 'core suite through a proxy adding 200 ms to every response, wall time',
      goal: '<= 30 s',
      measured:
        `${(far.wallMs / 1000).toFixed(1)} s (critical path ${(far.criticalPathMs / 1000).toFixed(1)} s; ${far.verdict ?? 'no verdict'})` +
        (full ? '' : ' (quick subset: not judged)'),
      met: full ? far.wallMs <= 30_000 && far.exitCode === 0 : undefined,
    });
  }
  if (suite) {
    out.push({
      name: 'core suite against the reference container, wall time, container start included',
      goal: '<= 8 s',
      measured: `${(suite.wallMs / 1000).toFixed(1)} s${suite.runs ? ` (median of ${suite.runs.wallMs.length} runs after one not counted)` : ''}${full ? '' : ' (quick subset: not judged)'}`,
      met: full ? suite.wallMs <= 8_000 && suite.exitCode === 0 : undefined,
    });
  }
  if (mut) {
    const whole = !mut.only;
    out.push({
      name: 'mutation run: every fault and every control, each on its own reference server, wall time',
      goal: '<= 3 min',
      measured:
        `${(mut.wallMs / 1000).toFixed(0)} s (${mut.faults.caught}/${mut.faults.total} caught, ${mut.controls.falseAlarms}/${mut.controls.total} false alarms; machine CPU ${((mut.machineCpuMs ?? NaN) / 1000).toFixed(0)} s; exit ${mut.exitCode ?? '?'})` +
        (whole ? '' : ' (quick subset: not judged)'),
      met: whole ? mut.wallMs <= 180_000 && mut.exitCode === 0 : undefined,
    });
  }
  if (ci) {
    // how long each phase of .ci/run took, the ones of 5 s or more, by the first words of its line
    const phases = ci.phases
      .map((p, i) => ({
        name: p.phase.split(/[:(,]/)[0]!.trim(),
        s: (ci.phases[i + 1]?.atS ?? Math.round(ci.wallMs / 1000)) - p.atS,
      }))
      .filter((p) => p.s >= 5)
      .map((p) => `${p.name} ${p.s} s`)
      .join('; ');
    out.push({
      name: 'CI: `bash .ci/run` on a fresh clone, wall time (installs included)',
      goal: '<= 8 min',
      measured: `${(ci.wallMs / 1000).toFixed(0)} s (commit ${ci.commit ?? '?'}, exit ${ci.exitCode}${phases ? `; ${phases}` : ''})`,
      met: ci.wallMs <= 480_000 && ci.exitCode === 0,
    });
  }
  for (const id of ['record', 'record-excl']) {
    const rec = t?.rows.find((r) => r.id === id);
    if (!rec) continue;
    // judged on server CPU per request (capacity), which a busy machine does not skew; the wall
    // clock req/s ratio is shown beside it
    out.push({
      name: `one record by ID vs bare Hono, server CPU per request${id === 'record-excl' ? ', --exclusive-db' : ''} (req/s ratio in brackets)`,
      goal: '>= 40% of the ceiling',
      measured: `${pct(rec.cpuRatio)}: ${int(rec.load.cpuUsPerReq ?? NaN)} vs ${int(rec.bareLoad.cpuUsPerReq ?? NaN)} µs (req/s ${pct(rec.ratio)})`,
      met: rec.cpuRatio >= 0.4,
    });
  }
  if (s && s.length >= 1) {
    const hi = s[s.length - 1]!;
    out.push({
      name: `Query deep page (skip ${int(hi.deepSkip)}, 90% of the matches) p50 on ${label(hi.rows)} rows`,
      goal: '<= 5 ms',
      measured: `${ms(hi.deep.p50)} ms (server CPU ${int(hi.deep.cpuUsPerReq ?? NaN)} µs/req; the first request of that page, nothing remembered: ${ms(hi.deepFirstMs)} ms)`,
      met: hi.rows >= 1e6 ? hi.deep.p50 <= 5 : undefined,
    });
  }
  if (s && s.length >= 2) {
    const lo = s[0]!;
    const hi = s[s.length - 1]!;
    const growth = hi.first.p50 / lo.first.p50;
    out.push({
      name: `guard: Query p50 on ${label(hi.rows)} rows`,
      goal: '<= 5 ms',
      measured: `${ms(hi.first.p50)} ms`,
      met: hi.first.p50 <= 5,
    });
    out.push({
      name: `guard: Query p50 growth ${label(lo.rows)} -> ${label(hi.rows)}`,
      goal: '<= 2x',
      measured: `${growth.toFixed(2)}x`,
      met: growth <= 2,
    });
  }
  const up = t?.rows.find((r) => r.id === 'upsert');
  if (up)
    out.push({
      name: `guard: atomic UpsertMulti of ${cfg.upsertItems} items p50 (1 connection)`,
      goal: '<= 20 ms',
      measured: `${ms(up.single.p50)} ms`,
      met: up.single.p50 <= 20,
    });
  return out;
}

// ------------------------------------------------------------------------------------ report

/** The chart of the figures of `r`, headed by the date and machine of its run (also when rendered again). */
function chart(r: Results): string {
  const { throughput: t, scale: s, suite } = r;
  const lat = r.latency as LatencyRun[] | undefined;
  const panels: Panel[] = [];
  if (t) {
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
  }
  if (s?.length) {
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
  }
  if (lat?.length) {
    panels.push({
      title: 'Core suite through a latency proxy: wall time and critical path (the floor no concurrency beats)',
      unit: 's',
      digits: 1,
      groups: lat.map((r) => ({
        label: `+${r.delayMs} ms`,
        bars: [
          { name: 'wall time', value: r.wallMs / 1000, note: `${int(r.requests.total)} requests` },
          { name: 'critical path', value: r.criticalPathMs / 1000, note: `${r.chain.requests} requests in a row` },
        ],
      })),
    });
  }
  if (suite) {
    panels.push({
      title: `Conformance suite: ${(suite.wallMs / 1000).toFixed(1)} s wall; summed test time per file`,
      unit: 's',
      digits: 1,
      groups: suite.perFile.map((f) => ({
        label: f.file.replace(/^conformance\/suite\//, ''),
        bars: [{ name: 'tests (sum)', value: f.ms / 1000 }],
      })),
    });
  }
  const m = r.meta;
  const meta = `${m.date.slice(0, 16)}Z, ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}${m.config.quick ? ', QUICK' : ''}`;
  return renderChart('rflps reference server benchmarks', meta, panels);
}

function markdown(r: Results): string {
  const L: string[] = [];
  L.push(`# Benchmarks${cfg.quick ? ' (quick smoke run: small sizes, short runs — not representative)' : ''}`, '');
  L.push(
    `Generated by \`npm run bench${cfg.quick ? ' -- --quick' : ''}\` on ${r.meta.date}: ${r.meta.cpus} CPUs (${r.meta.cpuModel}), Node ${r.meta.node}, ` +
      `load average ${r.meta.loadavgStart.map((x) => x.toFixed(1)).join('/')} at the start. ` +
      `${r.meta.pinned ? 'The load generator runs on CPU 0, the servers on CPU 1 (taskset) in the throughput and scale sections; the suite runs (latency, container, mutation) use every CPU.' : 'No CPU pinning.'} ` +
      `Figures: \`bench.json\`; chart: \`bench.svg\`.`,
    '',
  );
  L.push('![benchmarks](bench.svg)', '');
  L.push('## Targets', '');
  L.push(
    table(
      ['target', 'goal', 'measured', 'met'],
      r.targets.map((t) => [t.name, t.goal, t.measured, t.met === undefined ? 'n/a' : t.met ? 'yes' : '**no**']),
    ),
  );
  L.push('');
  if (r.throughput) {
    const t = r.throughput;
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
  }
  if (r.scale?.length) {
    const s = r.scale;
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
  }
  if (r.latency?.length) {
    L.push('## The suite under latency', '');
    L.push(
      `The ${cfg.suiteInclude ? 'quick subset of the ' : ''}core suite (\`conformance run --base-url <proxy>\`${cfg.concurrency ? ` \`--concurrency ${cfg.concurrency}\`` : ', default --concurrency'}) against the reference server ` +
        `(a local process with provider states) through a loopback proxy (bench/lib/latency-proxy.ts) that holds every answer for the given time. ` +
        `Requests are counted by the proxy; the critical path is the longest chain of requests of one test that each waited for the one before ` +
        `(from the suite's request timeline, CONFORMANCE_TRACE_FILE), times the delay: no concurrency can finish sooner.`,
      '',
    );
    L.push(
      table(
        [
          'added latency',
          'wall time',
          'suite',
          'verdict',
          'requests',
          'interface',
          'provider state',
          'critical path',
          'longest chain',
          'CPU: suite + server',
          'load average',
        ],
        r.latency.map((x) => [
          `${x.delayMs} ms`,
          `${(x.wallMs / 1000).toFixed(1)} s`,
          `${((x.suiteMs ?? NaN) / 1000).toFixed(1)} s`,
          `${x.verdict ?? 'n/a'} (${x.passed ?? '?'} passed)`,
          int(x.requests.total),
          int(x.requests.interface),
          int(x.requests.providerState),
          `${(x.criticalPathMs / 1000).toFixed(1)} s`,
          `${x.chain.requests} requests: ${x.chain.test}`,
          `${((x.cpuMs.suite ?? NaN) / 1000).toFixed(1)} + ${((x.cpuMs.server ?? NaN) / 1000).toFixed(1)} s`,
          x.loadavg.toFixed(1),
        ]),
      ),
    );
    const far = r.latency[r.latency.length - 1]!;
    L.push('', `Slowest suite files at ${far.delayMs} ms (first request to last answer):`, '');
    L.push(
      table(
        ['suite file', 'tests', 'span', 'slowest test', 'its time'],
        far.files
          .slice(0, 6)
          .map((f) => [
            f.file,
            f.tests,
            `${(f.spanMs / 1000).toFixed(1)} s`,
            f.slowestTest,
            `${(f.slowestMs / 1000).toFixed(1)} s`,
          ]),
      ),
    );
    L.push('');
  }
  if (r.suite) {
    const su = r.suite;
    const p = su.phases;
    const span = (a: string, b: string) =>
      p[a] !== undefined && p[b] !== undefined ? `${((p[b]! - p[a]!) / 1000).toFixed(1)} s` : 'n/a';
    L.push('## Conformance suite', '');
    L.push(
      `\`node ${su.args.join(' ').replace(/--report-dir \S+/, '--report-dir <tmp>')}\`: exit ${su.exitCode}, ${su.verdict ?? 'no verdict'}; ${su.containersStarted} container(s) started; ` +
        `vitest runs the files in parallel (pool and workers: conformance/src/run/vitest-run.ts).` +
        (su.runs
          ? ` The median of ${su.runs.wallMs.length} runs (${su.runs.wallMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}) after one not counted (${(su.runs.warmupWallMs / 1000).toFixed(1)} s${su.runs.warmupImageCheckMs !== undefined ? `, its image check ${(su.runs.warmupImageCheckMs / 1000).toFixed(1)} s` : ''}); the phases below are the median run's.`
          : ''),
      '',
    );
    L.push(
      table(
        ['phase', 'time'],
        [
          ['CLI start until the image check', p.build !== undefined ? `${(p.build / 1000).toFixed(1)} s` : 'n/a'],
          ['image check (build.sh; a no-op when the source hash is unchanged)', span('build', 'container')],
          ['container start until healthy', span('container', 'healthy')],
          ['suite (vitest) and reports', span('suite', 'verdict')],
          [
            'container stop and exit',
            p.verdict !== undefined ? `${((su.wallMs - p.verdict) / 1000).toFixed(1)} s` : 'n/a',
          ],
          ['**wall time**', `**${(su.wallMs / 1000).toFixed(1)} s**`],
        ],
      ),
    );
    L.push(
      '',
      `${su.tests} tests summing ${(su.sumTestMs / 1000).toFixed(1)} s (vitest's run: ${su.suiteMs !== undefined ? (su.suiteMs / 1000).toFixed(1) + ' s' : 'n/a'}). ` +
        `Peak RSS: conformance process tree ${mib(su.treePeakRss)} (summed, polled every 100 ms), largest single process ${mib(su.processPeakRss)}, reference server in the container ${mib(su.containerServerPeakRss)}.`,
      '',
    );
    L.push(
      table(
        ['suite file', 'tests', 'summed test time'],
        su.perFile.map((f) => [f.file, f.tests, `${(f.ms / 1000).toFixed(2)} s`]),
      ),
    );
    L.push('', 'Slowest tests:', '');
    L.push(
      table(
        ['test', 'file', 'time'],
        su.slowest.map((x) => [
          x.title.slice(0, 100),
          x.file.replace(/^conformance\/suite\//, ''),
          `${(x.ms / 1000).toFixed(2)} s`,
        ]),
      ),
    );
    L.push('');
  }
  if (r.mutation) {
    const m = r.mutation;
    L.push('## Mutation run', '');
    L.push(
      `\`npx tsx conformance/faults/run-faults.ts\`${m.only ? ` \`--only ${m.only.join(',')}\`` : ''} (reports kept in \`reports/tmp/${m.only ? 'bench-quick-mutation' : 'bench-mutation'}/\`): every fault and every control on its own reference server and fault proxy, ${m.concurrency ?? '?'} runs at a time, after a baseline core run (${((m.baselineMs ?? NaN) / 1000).toFixed(1)} s). ` +
        `Wall ${(m.wallMs / 1000).toFixed(1)} s, exit ${m.exitCode}; ${m.faults.caught} of ${m.faults.total} faults caught, ${m.controls.falseAlarms} of ${m.controls.total} controls failed; ` +
        `the machine spent ${((m.machineCpuMs ?? NaN) / 1000).toFixed(0)} s of CPU meanwhile (load average ${m.loadavg.toFixed(1)} at the start).`,
      '',
    );
  }
  L.push('## Checks', '');
  for (const v of r.verify) L.push(`- ${v.ok ? 'ok' : '**FAILED**'}: ${v.name}${v.detail ? ` — ${v.detail}` : ''}`);
  L.push('');
  if (NOTES.length) L.push('## Notes', '', ...NOTES.map((n) => `- ${n}`), '');
  return L.join('\n');
}

/** Analysis of the figures (kept with the code that produces them; docs/benchmarks.md has the
 * history and the method). */
const NOTES: string[] = [
  'The machine is shared (other sessions run builds and tests on the same 2 cores; see the load average above, and the ' +
    'load average of each latency run): wall times and req/s move by 2-5x between runs, and by far more when the load ' +
    'average is tens. Each throughput scenario is paired with the bare Hono ceiling measured just before it, and the ' +
    'server CPU time per request (/proc/<pid>/stat) is reported beside req/s; the CPU ratio is the stable figure. The ' +
    'latency runs report the CPU time of the suite and of the server beside the wall time.',
  'The suite under latency: tests of a file run concurrently (vitest sequence.concurrent); --concurrency n gives ' +
    'ceil(n / 8) worker threads of 8 tests, at most 8 threads and then more tests per thread; left out, 16 for a near ' +
    'target and 128 (8 threads of 16) for one 20 ms or more away. The files with the longest chains of requests start ' +
    'first. A test still makes its own requests one after the other where each needs the last, so the wall time cannot ' +
    'go below the critical path (its longest chain of requests times the latency). Tests that flip a service-wide ' +
    'setting run in a phase of their own after the others, one at a time.',
  'The suite is CPU-bound on a busy 2-core machine: a core run costs about the same CPU time at every latency (the ' +
    '"CPU" column: vitest workers, the HTTP client, the generic schema checks, and the server). When that CPU time divided by the ' +
    'share of the machine the run gets exceeds the critical path, the latency hides behind the CPU.',
  'One record by ID: the default server checks PRAGMA data_version on every authenticated request (the token cache must ' +
    'see a token revoked by another connection at once; no time-based cache). With --exclusive-db (SQLite exclusive ' +
    "locking mode: the server is the database's only user) no other connection can commit, the check goes, and WAL keeps " +
    'its index in heap memory instead of the -shm file (no lock system calls per transaction). The rest of the time: ' +
    "node's HTTP parsing and socket writes, Hono's TrieRouter, the OpenAPI parameter check, the compiled select (one " +
    'join), JSON, and garbage collection (docs/benchmarks.md has the profile).',
  'Deep pages: the Claim indexes (Status, LossDate DESC) and (LossDate DESC) give `LossDate desc` with the ClaimID tie-break ' +
    'in one index pass (no sort of each run of equal dates). `skip` is still an OFFSET: the first request for a deep page ' +
    'steps over every skipped index entry (the "first request" column). Pages then remember where they ended and where they ' +
    'began (reference-server/src/page-seek.ts): the same page again, the next page, or any later page of the same query ' +
    'seeks past the remembered row (sort values and key) and skips only the rest; any write forgets it. The measured deep ' +
    'page repeats one skip, as a client re-reading or paging near it does.',
  "Memory: the server's RSS does not grow with the table (SQLite's page cache is bounded, ~2 MiB by default; the file " +
    'pages live in the OS cache), so 1M rows cost about the same RSS as 10k.',
  'Suite against the container: the image check runs build.sh only when what it reads changed since it built the current ' +
    'image (conformance/src/targets/reference.ts, stamp in dist/); the container engine checks run at once.',
];

interface Results {
  meta: {
    date: string;
    node: string;
    cpus: number;
    cpuModel: string;
    loadavgStart: number[];
    loadavgEnd: number[];
    pinned: boolean;
    commit?: string;
    config: Omit<typeof cfg, 'sections'> & { sections: string[] };
  };
  verify: VerifyResult[];
  throughput?: ThroughputSection;
  scale?: ScaleRow[];
  latency?: Array<Omit<LatencyRun, 'outputTail'>>;
  suite?: SuiteBench;
  mutation?: Omit<MutationBench, 'outputTail'>;
  ci?: Omit<CiBench, 'outputTail'>;
  targets: Target[];
  totalMs: number;
}

// ------------------------------------------------------------------------------------ main

/** bench.json, bench.svg and README.md of `r` in `cfg.out`. */
function writeReports(r: Results): void {
  mkdirSync(cfg.out, { recursive: true });
  writeFileSync(join(cfg.out, 'bench.json'), JSON.stringify(r, null, 2) + '\n');
  writeFileSync(join(cfg.out, 'bench.svg'), chart(r));
  writeFileSync(join(cfg.out, 'README.md'), markdown(r));
}

/** README.md and bench.svg again from the bench.json of `cfg.out`, its targets judged anew. */
function render(): number {
  const file = join(cfg.out, 'bench.json');
  const r = JSON.parse(readFileSync(file, 'utf8')) as Results;
  r.targets = targets(
    r.throughput,
    r.scale,
    r.suite,
    r.latency as LatencyRun[] | undefined,
    r.mutation as MutationBench | undefined,
    r.ci as CiBench | undefined,
  );
  writeReports(r);
  log(`rendered ${relative(ROOT, cfg.out)}/{bench.json,bench.svg,README.md} from the figures of ${r.meta.date}`);
  return 0;
}

async function main(): Promise<number> {
  const t0 = performance.now();
  const loadStart = loadavg();
  log(
    `# rflps benchmarks${quick ? ' (quick)' : ''}: ${cpus().length} CPUs, Node ${process.version}, load average ${loadStart.map((x) => x.toFixed(1)).join('/')}` +
      `${pinned ? '; load generator on CPU 0, servers on CPU 1' : '; no CPU pinning'}`,
  );
  const work = mkdtempSync(join(tmpdir(), 'rflps-bench-'));
  let throughput: ThroughputSection | undefined;
  let scale: ScaleRow[] | undefined;
  let suite: SuiteBench | undefined;
  let latency: LatencyRun[] | undefined;
  let mutation: MutationBench | undefined;
  let ci: CiBench | undefined;
  const verify: VerifyResult[] = [];
  try {
    verify.push(...(await verifyNoBytesWithoutContents()));
    for (const v of verify) log(`check: ${v.ok ? 'ok' : 'FAILED'}: ${v.name}${v.detail ? ` (${v.detail})` : ''}`);
    if (cfg.sections.has('throughput')) throughput = await throughputSection(work);
    if (cfg.sections.has('scale')) scale = await scaleSection(work);
    // The suite runs below are judged on the whole machine ("on 2 cores"): the pin of the load
    // generator would be inherited by every process they start (until this line it was, and the
    // latency, container and mutation runs of earlier reports ran on one core).
    if (pinned && ['latency', 'suite', 'mutation', 'ci'].some((s) => cfg.sections.has(s))) {
      unpin(process.pid, cpus().length);
      log(`\n(the load generator's CPU pin lifted: the suite runs below use all ${cpus().length} CPUs)`);
    }
    if (cfg.sections.has('latency')) latency = await latencySection(work);
    if (cfg.sections.has('suite')) suite = await suiteSection(work);
    if (cfg.sections.has('mutation')) mutation = await mutationSection();
    if (cfg.sections.has('ci')) ci = await ciSection();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const results: Results = {
    meta: {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '?',
      loadavgStart: loadStart,
      loadavgEnd: loadavg(),
      pinned,
      commit:
        spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() || undefined,
      config: { ...cfg, sections: [...cfg.sections] },
    },
    verify,
    throughput,
    scale,
    suite,
    latency: latency?.map(({ outputTail: _tail, ...r }) => r),
    mutation: mutation && (({ outputTail: _tail, ...r }) => r)(mutation),
    ci: ci && (({ outputTail: _tail, ...r }) => r)(ci),
    targets: targets(throughput, scale, suite, latency, mutation, ci),
    totalMs: 0,
  };
  results.totalMs = performance.now() - t0;
  writeReports(results);
  log('\n## Targets');
  for (const t of results.targets)
    log(`${t.met === undefined ? 'n/a ' : t.met ? 'MET ' : 'MISS'}  ${t.name}: ${t.measured} (goal ${t.goal})`);
  log(
    `\nwrote ${relative(ROOT, cfg.out)}/{bench.json,bench.svg,README.md} in ${(results.totalMs / 1000).toFixed(0)} s`,
  );
  return verify.every((v) => v.ok) &&
    (!suite || suite.exitCode === 0) &&
    (!ci || ci.exitCode === 0) &&
    (latency ?? []).every((r) => r.exitCode === 0)
    ? 0
    : 1;
}

(argv.render ? Promise.resolve().then(render) : main()).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: error: ${(err as Error)?.stack ?? err}\n`);
    process.exit(2);
  },
);
