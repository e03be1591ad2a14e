// `npm run bench:profile [-- options]`: where a record read's server CPU goes, beside the bare Hono
// route's. Starts each server with V8's sampling profiler attached (bench/lib/profiled-reference-
// server.mjs) on a benchmark dataset, loads it with autocannon as bench/run.ts does (the record
// scenario: GET /api/Claim/{id}), profiles only the measured run (after a warm-up) and prints the
// busy time per request split into the parts of the request path (bench/lib/cpu-profile.ts).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDataset, type Dataset } from './lib/dataset.js';
import { hasTaskset, pin } from './lib/proc.js';
import { startReferenceProcess } from '../conformance/src/targets/reference-process.js';
import { runLoad } from './lib/load.js';
import { PARTS, splitProfile, type ProfileSplit } from './lib/cpu-profile.js';

const CLAIM_COLUMNS = 'ClaimNumber,ClaimantName,Status,LossDate,ReserveAmount,Location.Name';
import { ROOT } from '../spec/paths.js';

const TARGETS = ['bare', 'bare-spin', 'record', 'record-excl'] as const;
const DEFAULT_TARGETS = 'bare,bare-spin,record,record-excl';
type Target = (typeof TARGETS)[number];

const HELP = `usage: npm run bench:profile [-- options]

  --targets <list>      what to profile, one after the other (default bare,bare-spin,record,record-excl):
                          bare         the bare Hono route of bench/bare-server.ts (the ceiling)
                          bare-spin    the same route plus --spin-us of pure computation per answer
                          record       GET /api/Claim/{id} on the reference server
                          record-excl  the same, server started with --exclusive-db
  --spin-us <µs>        computation bare-spin adds to each answer (default 25: about what the
                        record read adds to the bare route in JavaScript)
  --claims <n>          Claim rows of the dataset (default 100000, as the throughput section)
  --duration <s>        seconds of profiled load per target (default 10)
  --warmup <s>          seconds of load before the profiled window (default 3)
  --connections <n>     concurrent connections (default 10)
  --interval <µs>       sampling interval of the profiler (default 100)
  --server-bin <file>   the reference server to profile (default this checkout's
                        reference-server/bin/reference-server.mjs; another checkout's for a before/after)
  --out <dir>           where the .cpuprofile files are kept (default reports/tmp/profile-record)
  -h, --help            this text
`;

const { values: argv } = parseArgs({
  options: {
    targets: { type: 'string', default: DEFAULT_TARGETS },
    'spin-us': { type: 'string', default: '25' },
    'server-bin': { type: 'string' },
    claims: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    interval: { type: 'string', default: '100' },
    out: { type: 'string', default: 'reports/tmp/profile-record' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (argv.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const targets = argv.targets!.split(',').map((t) => t.trim()) as Target[];
for (const t of targets)
  if (!TARGETS.includes(t)) throw new Error(`--targets: unknown target '${t}' (${TARGETS.join(', ')})`);
const spinUs = Number(argv['spin-us']);
if (!(spinUs > 0)) throw new Error('--spin-us must be a positive number');
const claims = Number(argv.claims);
const duration = Number(argv.duration);
const warmup = Number(argv.warmup);
const connections = Number(argv.connections);
const interval = Number(argv.interval);
for (const [k, v] of Object.entries({ claims, duration, connections, interval }))
  if (!(v > 0)) throw new Error(`--${k} must be a positive number`);
if (!(warmup >= 0)) throw new Error('--warmup must be 0 or more');
const out = resolve(ROOT, argv.out!);
mkdirSync(out, { recursive: true });

const log = (s = '') => process.stdout.write(s + '\n');
// as bench/run.ts: load generator on CPU 0, servers on CPU 1
const pinned = cpus().length >= 2 && hasTaskset();
if (pinned) pin(process.pid, 0);

interface Profiled {
  target: Target;
  requests: number;
  /** server CPU per request from /proc over the profiled run (the profiler's own cost included) */
  cpuUsPerReq: number;
  split: ProfileSplit;
  file: string;
}

/** Starts one target under the profiler, loads it, profiles the measured run, stops it. */
async function profileTarget(target: Target, d: Dataset): Promise<Profiled> {
  const bare = target === 'bare' || target === 'bare-spin';
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(out, `${target}-${stamp}.cpuprofile`);
  // the wrapper's stdout lines, so the script can wait for "profile started" and "profile written"
  let output = '';
  const server = await startReferenceProcess({
    bin: join(ROOT, 'bench/lib/profiled-reference-server.mjs'),
    db: d.file,
    cpu: pinned ? 1 : undefined,
    args: ['--log-level', 'warn', ...(target === 'record-excl' ? ['--exclusive-db'] : [])],
    env: {
      NODE_ENV: 'production',
      PROFILE_OUT: file,
      PROFILE_INTERVAL_US: String(interval),
      ...(bare ? { PROFILE_TARGET: 'bare' } : {}),
      ...(target === 'bare-spin' ? { BARE_SPIN_US: String(spinUs) } : {}),
      ...(argv['server-bin'] ? { PROFILE_SERVER_BIN: resolve(argv['server-bin']) } : {}),
    },
    healthPath: bare ? null : '/health',
    onOutput: (text) => void (output += text),
    startTimeoutMs: 30_000,
  });
  const signalAndWait = async (marker: string) => {
    const seen = output.length;
    process.kill(server.pid, 'SIGUSR2');
    const deadline = Date.now() + 30_000;
    while (!output.slice(seen).includes(marker)) {
      if (Date.now() > deadline) throw new Error(`the profiled server did not answer SIGUSR2 (${marker})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  let next = 0;
  const spec = {
    url: server.url,
    headers: (bare ? {} : { Token: d.token }) as Record<string, string>,
    path: bare ? '/bare' : () => `/api/Claim/${1 + (next++ % claims)}?columns=${CLAIM_COLUMNS}`,
    serverPid: server.pid,
    connections,
  };
  try {
    if (warmup > 0) await runLoad({ ...spec, duration: warmup, warmup: 0 });
    await signalAndWait('profileStarted');
    const measured = await runLoad({ ...spec, duration, warmup: 0 });
    await signalAndWait('profileWritten');
    if (measured.non2xx || measured.errors)
      throw new Error(`${target}: ${measured.non2xx} non-2xx answers, ${measured.errors} errors`);
    return {
      target,
      requests: measured.requests,
      cpuUsPerReq: measured.cpuUsPerReq ?? NaN,
      split: splitProfile(file),
      file,
    };
  } finally {
    await server.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'rflps-profile-'));
try {
  log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const d = buildDataset({ file: join(work, 'profile.db'), claims });
  const runs: Profiled[] = [];
  for (const t of targets) {
    const r = await profileTarget(t, d);
    runs.push(r);
    log(
      `${t}: ${r.requests} requests, server CPU ${r.cpuUsPerReq.toFixed(1)} µs/req (/proc, profiler attached), ` +
        `busy in the profile ${(r.split.busyUs / r.requests).toFixed(1)} µs/req; ${r.file}`,
    );
  }
  log(`\nµs of busy time per request (share of the target's busy time):\n`);
  log(`| part | ${runs.map((r) => r.target).join(' | ')} |`);
  log(`|---|${runs.map(() => '---:').join('|')}|`);
  const cell = (r: Profiled, us: number) =>
    `${(us / r.requests).toFixed(1)} (${((us / r.split.busyUs) * 100).toFixed(0)}%)`;
  for (const part of PARTS) log(`| ${part} | ${runs.map((r) => cell(r, r.split.parts.get(part)!)).join(' | ')} |`);
  log(`| **busy, in all** | ${runs.map((r) => cell(r, r.split.busyUs)).join(' | ')} |`);
  log(
    `\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
