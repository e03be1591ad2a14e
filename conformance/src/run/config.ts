// Run options from the command line (or a caller's options in code), CONFORMANCE_* env vars and a
// config file (YAML/JSON), in that order of precedence, validated into one RunOptions. Which options
// there are, where each is taken from, how it is read and its default: the table in options.ts.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { resolveBindings, type Bindings } from '../model/bindings.js';
import type { Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import type { FixtureEntry, Profile } from '../model/context.js';
import {
  CONFIG_KEYS,
  camel,
  checkOptionKeys,
  optionDefault,
  optionRow,
  parseSeed,
  readOption,
  REMOTE_CONCURRENCY,
  REMOTE_ROUND_TRIP_MS,
  unknownKeyError,
  type ConformanceOptions,
  type Given,
  type OptionKey,
  type Resolved,
} from '../model/options.js';
import { parseFixtures } from '../suite-api/states.js';
import { negotiate } from '../suite-api/protocol.js';
import { loadBaseline, loadExpectedFailures } from '../report/gate.js';
import type { ExpectedFailure, RunResults } from '../report/results.js';
import { parseMinJudged, type MinJudged } from '../report/strength.js';

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
  /** --record-har: write the suite's own traffic as HAR 1.2 to this file. */
  recordHar?: string;
  /** --min-judged: a run that judged fewer of its selected testable requirements fails (exit 1). */
  minJudged?: MinJudged;
  /** --require-protocol: a run whose provider-state endpoint spoke an older protocol fails (exit 1). */
  requireProtocol?: string;
  /** --retries: how often a test that timed out is run again, alone, after the run (default 1; 0: never). */
  retries: number;
  /** --fail-on-flaky: a test that passed only on retry fails the run. */
  failOnFlaky: boolean;
}

export { parseSeed };

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
    const key = camel(k);
    if (!CONFIG_KEYS.has(key))
      throw unknownKeyError(`config file ${file}`, k, CONFIG_KEYS, /[A-Z]/.test(k) ? 'camel' : 'kebab');
    out[key] = v;
  }
  return out;
}

/**
 * Resolves the run options: each option from the command line (or a caller's options in code),
 * else its CONFORMANCE_* variable, else the config file, else its default (the table in
 * options.ts says which places take it, how it is read and its default). `cli` holds only options
 * given on the command line. Throws UsageError on anything invalid, an unknown key included.
 */
export function resolveRunOptions(
  cli: ConformanceOptions,
  env: NodeJS.ProcessEnv = process.env,
  opts: { catalogue?: Catalogue; cwd?: string } = {},
): RunOptions {
  checkOptionKeys(cli);
  const cwd = opts.cwd ?? process.cwd();
  const given = (k: OptionKey): Given | undefined => {
    const row = optionRow(k) as { kind: string; env?: string; config?: false };
    const places: [Given['from'], unknown][] = [
      ['command line', cli[k]],
      ['environment', row.env && env[row.env] !== '' ? env[row.env] : undefined],
      ['config file', row.config === false ? undefined : file[k]],
    ];
    for (const [from, v] of places) {
      if (v === undefined || v === null) continue;
      if (typeof v === 'object' && !Array.isArray(v) && row.kind !== 'keyValues' && row.kind !== 'bindings')
        throw new UsageError(
          `${from === 'config file' ? 'config file' : 'options'}: '${k}' must be a scalar or a list`,
        );
      return { v, from };
    }
    return undefined;
  };
  /** The option's value (read and validated by its kind), else its default. */
  const get = <K extends OptionKey>(k: K): Resolved<K> => {
    const g = given(k);
    return (g ? readOption(k, g) : optionDefault(k)) as Resolved<K>;
  };
  // the config file first: every other option may come from it
  const configFile = cli.config ?? (env.CONFORMANCE_CONFIG || undefined);
  const file = configFile ? readConfigFile(path.resolve(cwd, configFile)) : {};
  const fileDir = configFile ? path.dirname(path.resolve(cwd, configFile)) : cwd;
  /** A file option: relative to the config file when named there, else to the working directory. */
  const fileOption = (k: 'fixtures' | 'baseline' | 'expectedFailures'): string | undefined => {
    const v = get(k);
    return v ? path.resolve(given(k)!.from === 'config file' ? fileDir : cwd, v) : undefined;
  };

  // target
  const baseUrl = get('baseUrl');
  const image = get('image');
  const localProcess = get('localProcess') ?? false;
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

  const providerStatesUrl = get('providerStatesUrl');
  if (providerStatesUrl) {
    try {
      new URL(providerStatesUrl);
    } catch {
      throw new UsageError(`--provider-states-url is not a URL: '${providerStatesUrl}'`);
    }
  }

  const profile: Profile = get('profile');

  const requirements = get('requirements') ?? [];
  if (opts.catalogue && requirements.length > 0) {
    const ids = opts.catalogue.requirements.map((r) => r.id);
    const bad = requirements.filter((p) => !ids.some((id) => id === p || id.startsWith(p)));
    if (bad.length) throw new UsageError(`--requirements: no requirement matches ${bad.join(', ')}`);
  }

  const shard = get('shard');
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard.trim());
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 1 || Number(m[1]) > Number(m[2])) {
      throw new UsageError(`--shard must be i/n with 1 <= i <= n (got '${shard}')`);
    }
  }

  const fixturesFile = fileOption('fixtures');
  let fixtures: FixtureEntry[] | undefined;
  if (fixturesFile) {
    fixtures = loadFixturesFile(fixturesFile);
    if (providerStatesUrl) throw new UsageError('give either --fixtures or --provider-states-url, not both');
  }
  const providerStatesProtocol =
    get('providerStatesProtocol') ?? (fixturesFile ? fixturesProtocol(fixturesFile) : undefined);
  if (providerStatesProtocol !== undefined) {
    const n = negotiate(providerStatesProtocol);
    if ('problem' in n)
      throw new UsageError(
        `--provider-states-protocol: ${n.problem.replace('the provider-state endpoint declared', 'got')}`,
      );
  }

  const healthPath = get('healthPath');
  if (!healthPath.startsWith('/')) throw new UsageError(`--health-path must start with '/' (got '${healthPath}')`);

  let bindings: Bindings;
  const bindingsGiven = given('bindings');
  try {
    bindings = resolveBindings(bindingsGiven?.v);
  } catch (e) {
    throw new UsageError(
      `${bindingsGiven?.from === 'config file' ? 'config file' : 'options'}: ${(e as Error).message}`,
    );
  }

  const reportDir = path.resolve(cwd, get('reportDir'));
  const baselineFile = fileOption('baseline');
  const baseline = baselineFile ? loadBaseline(baselineFile) : undefined;
  const expectedFailuresFile = fileOption('expectedFailures');
  const expectedFailures = expectedFailuresFile
    ? loadExpectedFailures(expectedFailuresFile, opts.catalogue)
    : undefined;
  const include = get('include') ?? [];
  const minJudgedRaw = get('minJudged');
  const minJudged = minJudgedRaw === undefined ? undefined : parseMinJudged(minJudgedRaw);
  if (minJudgedRaw !== undefined && !minJudged)
    throw new UsageError(
      `--min-judged must be a count (e.g. 120) or a percentage up to 100% (e.g. 100%) (got '${minJudgedRaw}')`,
    );
  const requireProtocol = get('requireProtocol')?.trim();
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
    readOnly: get('readOnly') ?? false,
    timeoutMs: get('timeout'),
    testTimeoutMs: get('testTimeout'),
    asyncTimeoutMs: get('asyncTimeout'),
    clockToleranceMs: get('clockTolerance'),
    absenceFactor: get('absenceFactor'),
    absenceFloorS: get('absenceFloor'),
    concurrency: get('concurrency'),
    concurrencyGiven: given('concurrency') !== undefined,
    shard,
    reportDir,
    requireContainer: (get('requireContainer') ?? false) || env.CI === 'true',
    containerPort: get('containerPort'),
    containerEnv: get('containerEnv') ?? {},
    healthPath,
    healthPathGiven: given('healthPath') !== undefined,
    startTimeoutMs: get('startTimeout'),
    bail: get('bail'),
    verbose: get('reporterVerbose') ?? false,
    bindings,
    configFile,
    include: include.length ? include : undefined,
    baselineFile,
    baseline,
    expectedFailuresFile,
    expectedFailures,
    targetLabel: get('targetLabel')?.trim() || undefined,
    seed: get('seed'),
    skipShrink: get('skipShrink') ?? false,
    recordHar: get('recordHar'),
    ...(minJudged ? { minJudged } : {}),
    ...(requireProtocol !== undefined ? { requireProtocol } : {}),
    retries: get('retries'),
    failOnFlaky: get('failOnFlaky') ?? false,
  };
}

/** A random seed, for a run that was given none (printed and reported, so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
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
