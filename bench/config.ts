// The options of `npm run bench`: parsed from the command line in main (bench/run.ts), never at
// module level, into one typed configuration that every section reads.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../spec/paths.js';

export const HELP = `usage: npm run bench [-- options]

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

const SECTIONS = ['throughput', 'scale', 'latency', 'suite', 'mutation', 'ci'] as const;

function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(s.trim());
  if (!m) throw new Error(`bad size '${s}' (e.g. 10k, 1m, 5000)`);
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'k' ? 1e3 : m[2]!.toLowerCase() === 'm' ? 1e6 : 1));
}

/** The configuration of a bench run (bench.json keeps it under meta.config, `sections` as a list). */
export interface BenchConfig {
  quick: boolean;
  duration: number;
  warmup: number;
  connections: number;
  sizes: number[];
  sections: Set<string>;
  latencies: number[];
  concurrency: number | undefined;
  out: string;
  throughputClaims: number;
  fileBytes: number;
  upsertItems: number;
  suiteInclude: string[] | undefined;
  /** the quick subset selects the requirements of its two files (else the others count as untested) */
  suiteRequirements: string | undefined;
  /** the quick mutation run: one fault and one control */
  mutationOnly: string[] | undefined;
}

export interface BenchOptions {
  cfg: BenchConfig;
  help: boolean;
  render: boolean;
  noPin: boolean;
}

/** The options of `args` (process.argv.slice(2)); throws on a bad one. */
export function parseOptions(args: string[]): BenchOptions {
  const { values: argv } = parseArgs({
    args,
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
  const quick = argv.quick!;
  const cfg: BenchConfig = {
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
    suiteRequirements: quick ? 'REC-,DOM-' : undefined,
    mutationOnly: quick ? ['lowercase-domain-accepted', 'unknown-domain-422'] : undefined,
  };
  for (const s of cfg.sections)
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section '${s}'`);
  if (cfg.latencies.some((x) => !(x >= 0))) throw new Error('--latency: a comma list of milliseconds, e.g. 0,50,200');
  if (cfg.concurrency !== undefined && !(cfg.concurrency >= 1)) throw new Error('--concurrency must be >= 1');
  if (!(cfg.duration > 0) || !(cfg.connections >= 1)) throw new Error('--duration and --connections must be positive');
  return { cfg, help: argv.help!, render: argv.render!, noPin: argv['no-pin']! };
}

/** The configuration as bench.json keeps it: `sections` as a list. */
export type StoredConfig = Omit<BenchConfig, 'sections'> & { sections: string[] };

/** The configuration of a stored run (bench.json meta.config), for rendering its report again. */
export function configOf(stored: StoredConfig): BenchConfig {
  return { ...stored, sections: new Set(stored.sections) };
}
