// Run options from the command line (or a caller's options in code), CONFORMANCE_* env vars and a
// config file (YAML/JSON), in that order of precedence, validated into one RunOptions. Which options
// there are, where each is taken from, how it is read and its default: the table in
// model/options.ts.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { resolveBindings, type Bindings } from '../model/bindings.js';
import type { Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import type { FixtureEntry } from '../model/context.js';
import {
  CONFIG_KEYS,
  camel,
  checkOptionKeys,
  optionDefault,
  optionRow,
  parseSeed,
  readOption,
  REMOTE_CONCURRENCY,
  resolveFields,
  REMOTE_ROUND_TRIP_MS,
  unknownKeyError,
  type ConformanceOptions,
  type Given,
  type OptionKey,
  type Resolved,
  type RunFields,
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

/**
 * The resolved options of a run: the fields that are an option's value as read (RunFields, derived
 * from the table in model/options.ts), and those resolveRunOptions derives.
 */
export type RunOptions = RunFields & {
  target:
    | { kind: 'url'; baseUrl: string }
    | { kind: 'image'; image: string }
    | { kind: 'reference' }
    | { kind: 'local-process' };
  fixturesFile?: string;
  fixtures?: FixtureEntry[];
  /** --provider-states-protocol (or the fixtures file's `protocol:`): the version the endpoint implements. */
  providerStatesProtocol?: string;
  /** Whether --concurrency (or its variable or config key) was given; if not, the target's distance decides. */
  concurrencyGiven: boolean;
  reportDir: string;
  /** --require-container, or CI=true. */
  requireContainer: boolean;
  /** --health-path was given (a URL target then waits for it instead of probing `/` once). */
  healthPathGiven: boolean;
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
  /** --min-judged: a run that judged fewer of its selected testable requirements fails (exit 1). */
  minJudged?: MinJudged;
  /** --require-protocol: a run whose provider-state endpoint spoke an older protocol fails (exit 1). */
  requireProtocol?: string;
  /** --bundle: where the run's conformance bundle goes (bundle/write.ts). */
  bundleFile?: string;
  /** --sign-key: the Ed25519 private key (PEM) that signs the bundle. */
  signKeyFile?: string;
};

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
  const fileOption = (k: 'fixtures' | 'baseline' | 'expectedFailures' | 'bundle' | 'signKey'): string | undefined => {
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

  // every option whose field is its value as read (the rows of the table that are not `derived`)
  const fields = resolveFields(get);
  const { providerStatesUrl, requirements, shard, healthPath } = fields;
  if (providerStatesUrl) {
    try {
      new URL(providerStatesUrl);
    } catch {
      throw new UsageError(`--provider-states-url is not a URL: '${providerStatesUrl}'`);
    }
  }

  if (opts.catalogue && requirements.length > 0) {
    const ids = opts.catalogue.requirements.map((r) => r.id);
    const bad = requirements.filter((p) => !ids.some((id) => id === p || id.startsWith(p)));
    if (bad.length) throw new UsageError(`--requirements: no requirement matches ${bad.join(', ')}`);
  }

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
  checkProtocolVersion('--provider-states-protocol', providerStatesProtocol);

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
  checkProtocolVersion('--require-protocol', requireProtocol);
  const bundleFile = fileOption('bundle');
  const signKeyFile = fileOption('signKey');
  if (signKeyFile && !bundleFile) throw new UsageError('--sign-key signs a bundle: give --bundle <file> too');

  return {
    ...fields,
    target,
    fixturesFile,
    fixtures,
    ...(providerStatesProtocol !== undefined ? { providerStatesProtocol } : {}),
    concurrencyGiven: given('concurrency') !== undefined,
    reportDir,
    requireContainer: (get('requireContainer') ?? false) || env.CI === 'true',
    healthPathGiven: given('healthPath') !== undefined,
    bindings,
    configFile,
    include: include.length ? include : undefined,
    baselineFile,
    baseline,
    expectedFailuresFile,
    expectedFailures,
    targetLabel: get('targetLabel')?.trim() || undefined,
    ...(minJudged ? { minJudged } : {}),
    ...(requireProtocol !== undefined ? { requireProtocol } : {}),
    ...(bundleFile ? { bundleFile } : {}),
    ...(signKeyFile ? { signKeyFile } : {}),
  };
}

/** A provider-state protocol version the suite knows (both options that name one). */
function checkProtocolVersion(flag: string, version: string | undefined): void {
  if (version === undefined) return;
  const n = negotiate(version);
  if ('problem' in n)
    throw new UsageError(`${flag}: ${n.problem.replace('the provider-state endpoint declared', 'got')}`);
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
