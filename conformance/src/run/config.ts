// Run options from the command line, CONFORMANCE_* env vars and a config file (YAML/JSON), in that
// order of precedence, validated into one RunOptions.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { resolveBindings, type Bindings } from '../suite-api/bindings.js';
import type { Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../errors.js';
import {
  DEFAULT_ABSENCE_FACTOR,
  DEFAULT_ABSENCE_FLOOR_S,
  splitList,
  type FixtureEntry,
  type Profile,
} from './context.js';
import { parseFixtures } from '../suite-api/states.js';
import { negotiate } from '../suite-api/protocol.js';
import { loadBaseline, loadExpectedFailures } from '../report/gate.js';
import type { ExpectedFailure, RunResults } from '../report/results.js';
import { parseMinJudged, type MinJudged } from '../report/strength.js';

/** Default --async-timeout: generous, since the spec sets no deadline for asynchronous work. */
const DEFAULT_ASYNC_TIMEOUT_MS = 60_000;
/**
 * Default --clock-tolerance: 50 minutes, under the smallest whole-hour zone offset, so a local time
 * written as UTC is still told apart from UTC while ordinary clock drift passes.
 */
const DEFAULT_CLOCK_TOLERANCE_MS = 50 * 60_000;

/** Tests in flight at once by default (--concurrency): sized for I/O, not for the CPU. A test spends
 * its time waiting for answers; against a target 200 ms away 16 tests in flight took the core
 * run from ~134 s to the figure in docs/benchmarks.md, and on loopback it costs nothing. */
export const DEFAULT_CONCURRENCY = 16;
/** Tests in flight by default against a target at least REMOTE_ROUND_TRIP_MS away: there every
 * test waits on the network, and more of them at once buy wall time for little CPU (at 200 ms per
 * request under load ~20: 102 s with 16, 67 s with 64, for 2.6 s more suite CPU; with the long
 * chains started first, at load ~6: 33.1 s with 64, 30.0 s with 128 = 8 workers of 16 tests, the
 * largest file's tests no longer queued behind each other; docs/benchmarks.md). */
const REMOTE_CONCURRENCY = 128;
const REMOTE_ROUND_TRIP_MS = 20;

/** --concurrency when given, else by the target's distance (REMOTE_CONCURRENCY or DEFAULT_CONCURRENCY). */
export function concurrencyFor(o: { concurrency: number; concurrencyGiven: boolean }, roundTripMs?: number): number {
  if (o.concurrencyGiven || roundTripMs === undefined) return o.concurrency;
  return roundTripMs >= REMOTE_ROUND_TRIP_MS ? REMOTE_CONCURRENCY : o.concurrency;
}

export interface RunOptions {
  target:
    | { kind: 'url'; baseUrl: string }
    | { kind: 'image'; image: string }
    | { kind: 'reference' }
    | { kind: 'local-process' };
  /** Explicit provider-state URL (else the target's default). */
  providerStatesUrl?: string;
  fixturesFile?: string;
  fixtures?: FixtureEntry[];
  /** --provider-states-protocol (or the fixtures file's `protocol:`): the version the endpoint implements. */
  providerStatesProtocol?: string;
  profile: Profile;
  requirements: string[];
  readOnly: boolean;
  timeoutMs: number;
  testTimeoutMs: number;
  /** Deadline of an asynchronous outcome (t.poll) and of the wait for an effect's absence. */
  asyncTimeoutMs: number;
  /** How far the target's clock may be from the runner's for timestamps checked against "now". */
  clockToleranceMs: number;
  /** t.expectStaysAbsent judges absence after this many times the accepted case's time (--absence-factor). */
  absenceFactor: number;
  /** ... and never sooner than this (--absence-floor, in seconds). */
  absenceFloorS: number;
  /** Most tests in flight at once (--concurrency). */
  concurrency: number;
  /** Whether --concurrency (or its variable or config key) was given; if not, the target's distance decides. */
  concurrencyGiven: boolean;
  shard?: string;
  reportDir: string;
  requireContainer: boolean;
  containerPort: number;
  containerEnv: Record<string, string>;
  healthPath: string;
  /** --health-path was given (a URL target then waits for it instead of probing `/` once). */
  healthPathGiven: boolean;
  startTimeoutMs: number;
  bail?: number;
  verbose: boolean;
  bindings: Bindings;
  configFile?: string;
  /** Suite file globs relative to the repository root (default conformance/suite/**\/*.test.ts). */
  include?: string[];
  /** --baseline: an earlier results.json; only regressions fail the run. */
  baselineFile?: string;
  baseline?: RunResults;
  /** --expected-failures: YAML list of {id, reason, expires}. */
  expectedFailuresFile?: string;
  expectedFailures?: ExpectedFailure[];
  /** --target-label: a name for the target in the reports. */
  targetLabel?: string;
  /** --seed: the seed of the generated (model-based) tests; absent = chosen at random by the run. */
  seed?: number;
  /** --skip-shrink: a failing model-based test reports the sequence it found, not shrunk. */
  skipShrink: boolean;
  /** --min-judged: a run that judged fewer of its selected testable requirements fails (exit 1). */
  minJudged?: MinJudged;
  /** --require-protocol: a run whose provider-state endpoint spoke an older protocol fails (exit 1). */
  requireProtocol?: string;
  /** --retries: how often a test that timed out is run again, alone, after the run (default 1; 0: never). */
  retries: number;
  /** --fail-on-flaky: a test that passed only on retry fails the run. */
  failOnFlaky: boolean;
}

/** Raw option values as commander gives them (strings, booleans, arrays). */
export type RawOptions = Partial<Record<string, string | boolean | string[] | undefined>>;

interface Source {
  name: string;
  get(key: string): string | boolean | string[] | undefined;
}

/** Option key → env var. */
export const ENV_VARS: Record<string, string> = {
  baseUrl: 'CONFORMANCE_BASE_URL',
  image: 'CONFORMANCE_IMAGE',
  localProcess: 'CONFORMANCE_LOCAL_PROCESS',
  profile: 'CONFORMANCE_PROFILE',
  requirements: 'CONFORMANCE_REQUIREMENTS',
  readOnly: 'CONFORMANCE_READ_ONLY',
  timeout: 'CONFORMANCE_TIMEOUT',
  testTimeout: 'CONFORMANCE_TEST_TIMEOUT',
  asyncTimeout: 'CONFORMANCE_ASYNC_TIMEOUT',
  clockTolerance: 'CONFORMANCE_CLOCK_TOLERANCE',
  absenceFactor: 'CONFORMANCE_ABSENCE_FACTOR',
  absenceFloor: 'CONFORMANCE_ABSENCE_FLOOR',
  shard: 'CONFORMANCE_SHARD',
  concurrency: 'CONFORMANCE_CONCURRENCY',
  reportDir: 'CONFORMANCE_REPORT_DIR',
  fixtures: 'CONFORMANCE_FIXTURES',
  providerStatesUrl: 'CONFORMANCE_PROVIDER_STATES_URL',
  providerStatesProtocol: 'CONFORMANCE_PROVIDER_STATES_PROTOCOL',
  requireContainer: 'CONFORMANCE_REQUIRE_CONTAINER',
  containerPort: 'CONFORMANCE_CONTAINER_PORT',
  containerEnv: 'CONFORMANCE_CONTAINER_ENV',
  healthPath: 'CONFORMANCE_HEALTH_PATH',
  startTimeout: 'CONFORMANCE_START_TIMEOUT',
  bail: 'CONFORMANCE_BAIL',
  reporterVerbose: 'CONFORMANCE_REPORTER_VERBOSE',
  config: 'CONFORMANCE_CONFIG',
  include: 'CONFORMANCE_INCLUDE',
  baseline: 'CONFORMANCE_BASELINE',
  expectedFailures: 'CONFORMANCE_EXPECTED_FAILURES',
  targetLabel: 'CONFORMANCE_TARGET_LABEL',
  seed: 'CONFORMANCE_SEED',
  skipShrink: 'CONFORMANCE_SKIP_SHRINK',
  minJudged: 'CONFORMANCE_MIN_JUDGED',
  requireProtocol: 'CONFORMANCE_REQUIRE_PROTOCOL',
  retries: 'CONFORMANCE_RETRIES',
  failOnFlaky: 'CONFORMANCE_FAIL_ON_FLAKY',
};

const CONFIG_KEYS = new Set([...Object.keys(ENV_VARS).filter((k) => k !== 'config'), 'bindings']);

function kebabToCamel(s: string): string {
  return s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read config file ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new UsageError(`config file ${file} is not valid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`config file ${file} must be a mapping`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    const key = kebabToCamel(k);
    if (!CONFIG_KEYS.has(key))
      throw new UsageError(`config file ${file}: unknown key '${k}' (known: ${[...CONFIG_KEYS].join(', ')})`);
    out[key] = v;
  }
  return out;
}

function truthy(v: string): boolean {
  return /^(1|true|yes|on)$/i.test(v.trim());
}

/**
 * Resolves the run options. `cli` holds only options given on the command line.
 * Throws UsageError on anything invalid.
 */
export function resolveRunOptions(
  cli: RawOptions,
  env: NodeJS.ProcessEnv = process.env,
  opts: { catalogue?: Catalogue; cwd?: string } = {},
): RunOptions {
  const cwd = opts.cwd ?? process.cwd();
  const configFile = (cli.config as string | undefined) ?? env.CONFORMANCE_CONFIG;
  const file = configFile ? readConfigFile(path.resolve(cwd, configFile)) : {};
  const fileDir = configFile ? path.dirname(path.resolve(cwd, configFile)) : cwd;

  const sources: Source[] = [
    { name: 'command line', get: (k) => cli[k] },
    {
      name: 'environment',
      get: (k) => {
        const v = ENV_VARS[k] ? env[ENV_VARS[k]] : undefined;
        return v === undefined || v === '' ? undefined : v;
      },
    },
    {
      name: `config file`,
      get: (k) => {
        const v = file[k];
        if (v === undefined || v === null) return undefined;
        if (typeof v === 'number') return String(v);
        if (Array.isArray(v)) return v.map(String);
        if (typeof v === 'object') {
          if (k === 'containerEnv') return Object.entries(v).map(([a, b]) => `${a}=${String(b)}`);
          throw new UsageError(`config file: '${k}' must be a scalar or a list`);
        }
        return v as string | boolean;
      },
    },
  ];
  const pick = (k: string) => {
    for (const s of sources) {
      const v = s.get(k);
      if (v !== undefined) return { v, from: s.name };
    }
    return undefined;
  };
  const str = (k: string): string | undefined => {
    const p = pick(k);
    if (!p) return undefined;
    if (Array.isArray(p.v)) return p.v.join(',');
    return String(p.v);
  };
  const bool = (k: string): boolean => {
    const p = pick(k);
    if (!p) return false;
    if (typeof p.v === 'boolean') return p.v;
    return truthy(String(p.v));
  };
  const int = (k: string, def: number, min = 1): number => {
    const s = str(k);
    if (s === undefined) return def;
    if (!/^\d+$/.test(s.trim()) || Number(s) < min)
      throw new UsageError(`--${kebab(k)} must be an integer >= ${min} (got '${s}')`);
    return Number(s);
  };
  /** A decimal number >= min (factors and seconds). */
  const num = (k: string, def: number, min: number): number => {
    const s = str(k);
    if (s === undefined) return def;
    if (!/^\d+(\.\d+)?$/.test(s.trim()) || Number(s) < min)
      throw new UsageError(`--${kebab(k)} must be a number >= ${min} (got '${s}')`);
    return Number(s);
  };
  const list = (k: string): string[] => {
    const p = pick(k);
    if (!p) return [];
    return (Array.isArray(p.v) ? p.v : [String(p.v)]).flatMap((x) => splitList(String(x)));
  };

  // target
  const baseUrl = str('baseUrl');
  const image = str('image');
  const localProcess = bool('localProcess');
  if ([baseUrl, image, localProcess].filter(Boolean).length > 1) {
    throw new UsageError('give only one of --base-url, --image and --local-process');
  }
  let target: RunOptions['target'];
  if (baseUrl) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new UsageError(`--base-url is not a URL: '${baseUrl}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new UsageError(`--base-url must be http(s): '${baseUrl}'`);
    target = { kind: 'url', baseUrl: baseUrl.replace(/\/+$/, '') };
  } else if (image) {
    target = { kind: 'image', image };
  } else if (localProcess) {
    target = { kind: 'local-process' };
  } else {
    target = { kind: 'reference' };
  }

  const providerStatesUrl = str('providerStatesUrl');
  if (providerStatesUrl) {
    try {
      new URL(providerStatesUrl);
    } catch {
      throw new UsageError(`--provider-states-url is not a URL: '${providerStatesUrl}'`);
    }
  }

  const profile = (str('profile') ?? 'core') as Profile;
  if (!['core', 'implementation-defined', 'all'].includes(profile)) {
    throw new UsageError(`--profile must be core, implementation-defined or all (got '${profile}')`);
  }

  const requirements = list('requirements');
  if (opts.catalogue && requirements.length > 0) {
    const ids = opts.catalogue.requirements.map((r) => r.id);
    const bad = requirements.filter((p) => !ids.some((id) => id === p || id.startsWith(p)));
    if (bad.length) throw new UsageError(`--requirements: no requirement matches ${bad.join(', ')}`);
  }

  const shard = str('shard');
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard.trim());
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > Number(m[2])) {
      throw new UsageError(`--shard must be i/n with 1 <= i <= n (got '${shard}')`);
    }
  }

  const fixturesRaw = str('fixtures');
  let fixtures: FixtureEntry[] | undefined;
  let fixturesFile: string | undefined;
  if (fixturesRaw) {
    fixturesFile = path.resolve(pick('fixtures')!.from === 'config file' ? fileDir : cwd, fixturesRaw);
    fixtures = loadFixturesFile(fixturesFile);
    if (providerStatesUrl) throw new UsageError('give either --fixtures or --provider-states-url, not both');
  }
  const providerStatesProtocol =
    str('providerStatesProtocol') ?? (fixturesFile ? fixturesProtocol(fixturesFile) : undefined);
  if (providerStatesProtocol !== undefined) {
    const n = negotiate(providerStatesProtocol);
    if ('problem' in n)
      throw new UsageError(
        `--provider-states-protocol: ${n.problem.replace('the provider-state endpoint declared', 'got')}`,
      );
  }

  const containerEnv: Record<string, string> = {};
  for (const kv of pickList(pick('containerEnv'))) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--container-env must be K=V (got '${kv}')`);
    containerEnv[kv.slice(0, i)] = kv.slice(i + 1);
  }

  const bailStr = str('bail');
  let bail: number | undefined;
  if (bailStr !== undefined && bailStr !== 'false') {
    bail = bailStr === 'true' ? 1 : int('bail', 1);
  }

  const healthPath = str('healthPath') ?? '/health';
  if (!healthPath.startsWith('/')) throw new UsageError(`--health-path must start with '/' (got '${healthPath}')`);

  let bindings: Bindings;
  try {
    bindings = resolveBindings(file.bindings);
  } catch (e) {
    throw new UsageError(`config file: ${(e as Error).message}`);
  }

  const reportDir = path.resolve(cwd, str('reportDir') ?? 'reports/latest');

  // a file named in the config file is relative to the config file
  const fileOption = (k: string): string | undefined => {
    const v = str(k);
    return v ? path.resolve(pick(k)!.from === 'config file' ? fileDir : cwd, v) : undefined;
  };
  const baselineFile = fileOption('baseline');
  const baseline = baselineFile ? loadBaseline(baselineFile) : undefined;
  const expectedFailuresFile = fileOption('expectedFailures');
  const expectedFailures = expectedFailuresFile
    ? loadExpectedFailures(expectedFailuresFile, opts.catalogue)
    : undefined;
  const targetLabel = str('targetLabel')?.trim() || undefined;
  const seed = parseSeed(str('seed'));
  const minJudgedRaw = str('minJudged');
  const minJudged = minJudgedRaw === undefined ? undefined : parseMinJudged(minJudgedRaw);
  if (minJudgedRaw !== undefined && !minJudged)
    throw new UsageError(
      `--min-judged must be a count (e.g. 120) or a percentage up to 100% (e.g. 100%) (got '${minJudgedRaw}')`,
    );
  const requireProtocol = str('requireProtocol')?.trim();
  if (requireProtocol !== undefined) {
    const n = negotiate(requireProtocol);
    if ('problem' in n)
      throw new UsageError(`--require-protocol: ${n.problem.replace('the provider-state endpoint declared', 'got')}`);
  }

  return {
    target,
    providerStatesUrl,
    fixturesFile,
    fixtures,
    ...(providerStatesProtocol !== undefined ? { providerStatesProtocol } : {}),
    profile,
    requirements,
    readOnly: bool('readOnly'),
    timeoutMs: int('timeout', 10_000),
    testTimeoutMs: int('testTimeout', 60_000),
    asyncTimeoutMs: int('asyncTimeout', DEFAULT_ASYNC_TIMEOUT_MS),
    clockToleranceMs: int('clockTolerance', DEFAULT_CLOCK_TOLERANCE_MS),
    absenceFactor: num('absenceFactor', DEFAULT_ABSENCE_FACTOR, 1),
    absenceFloorS: num('absenceFloor', DEFAULT_ABSENCE_FLOOR_S, 0),
    concurrency: int('concurrency', DEFAULT_CONCURRENCY),
    concurrencyGiven: str('concurrency') !== undefined,
    shard,
    reportDir,
    requireContainer: bool('requireContainer') || env.CI === 'true',
    containerPort: int('containerPort', 8080),
    containerEnv,
    healthPath,
    healthPathGiven: str('healthPath') !== undefined,
    startTimeoutMs: int('startTimeout', 60_000),
    bail,
    verbose: bool('reporterVerbose'),
    bindings,
    configFile,
    include: list('include').length ? list('include') : undefined,
    baselineFile,
    baseline,
    expectedFailuresFile,
    expectedFailures,
    targetLabel,
    seed,
    skipShrink: bool('skipShrink'),
    ...(minJudged ? { minJudged } : {}),
    ...(requireProtocol !== undefined ? { requireProtocol } : {}),
    retries: int('retries', 1, 0),
    failOnFlaky: bool('failOnFlaky'),
  };
}

/** A seed is a 32-bit signed integer (what fast-check takes). */
export function parseSeed(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s.trim());
  if (!/^-?\d+$/.test(s.trim()) || n < -(2 ** 31) || n > 2 ** 31 - 1)
    throw new UsageError(`--seed must be an integer from -2147483648 to 2147483647 (got '${s}')`);
  return n;
}

/** A random seed, for a run that was given none (printed and reported, so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

function pickList(p: { v: string | boolean | string[] } | undefined): string[] {
  if (!p) return [];
  if (Array.isArray(p.v)) return p.v;
  return String(p.v)
    .split(/[,;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function kebab(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The `protocol:` a fixtures file declares at its top (a mapping with `fixtures:`), if any. */
function fixturesProtocol(file: string): string | undefined {
  const doc = parseYaml(fs.readFileSync(file, 'utf8')) as unknown;
  const p =
    doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { protocol?: unknown }).protocol : undefined;
  return p === undefined || p === null ? undefined : String(p);
}

function loadFixturesFile(file: string): FixtureEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read fixtures file ${file}: ${(e as Error).message}`);
  }
  try {
    return parseFixtures(parseYaml(text), path.basename(file));
  } catch (e) {
    throw new UsageError(`fixtures file ${file}: ${(e as Error).message}`);
  }
}
