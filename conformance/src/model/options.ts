// The options of `conformance run`, declared once. Each row of RUN_OPTIONS gives an option's key
// (camel case: the library's key, the config file's key, also accepted in kebab case, and
// commander's attribute), its command-line flag, its CONFORMANCE_* variable, whether the config file
// takes it, its kind (how a value is read and validated), its default and its help. Derived from the
// table, nowhere written by hand:
//   - the flags of `conformance run` and their help (cli/run.ts, runOptionFlags below), with the
//     variable in brackets and `{default}` replaced by the default;
//   - the environment map (ENV_VARS) and the "Environment:" line of `conformance run --help`;
//   - the keys the config file takes (CONFIG_KEYS; `conformance init` writes them commented out);
//   - the validation of each value (readOption, one reader per kind, the same messages for the
//     command line, the environment, the config file and the library);
//   - the library's typed options (ConformanceOptions: numbers as numbers, booleans as booleans,
//     bindings as an object), and the error with a suggestion for an unknown key (unknownKeyError);
//   - the context of a suite file run by plain vitest (context.ts contextFromEnv);
//   - the resolved options (RunOptions, run/config.ts): a row's value as read is a field of it
//     (RunFields, resolveFields), named by the row's `field` or its key;
//   - what the test workers get (RunContext, context.ts) and what the reports say the run was
//     (RunInfo, report/run-results.ts): the fields of the rows marked `context: true` and
//     `report: true` (fieldsMarked, pickMarked), not copied one by one.
// What spans several options (only one target; --fixtures or --provider-states-url; a file named in
// the config file is relative to it) is marked `derived` and stays in run/config.ts
// resolveRunOptions, which reads every value through this table.
//
// Adding an option is one row here: append { key, flag, env, kind, help } (and `default`, `min`,
// `choices`, `field`, `config: false`, `envInHelp: false` as needed) at the place its flag should
// appear in `--help`; its resolved value is then `RunOptions[field]`, typed by its kind. Only an
// option that needs more than its own value is `derived: true` plus its lines in
// resolveRunOptions; a kind this table lacks (e.g. `N|N%`) is one reader in readOption and one type
// in InputOf. Add a line to CHANGELOG.md (`## Unreleased`): a new option is a public contract.
// conformance/test/options.test.ts checks that every row reaches the flags, the environment map,
// the config file and the library type, and that help shows the default it declares.
import type { Bindings } from './bindings.js';
import { UsageError } from './errors.js';

/** The profiles a run may select (--profile). */
export const PROFILES = ['core', 'implementation-defined', 'all'] as const;

/**
 * Defaults of --absence-factor and --absence-floor: an effect a refused request must not have is
 * judged absent after this many times as long as the accepted case took to show it, and never
 * sooner than the floor (seconds). A real queue may run a rejected job later than an accepted one
 * (other work ahead of it, retries), so the accepted case's time alone is too short a window.
 */
export const DEFAULT_ABSENCE_FACTOR = 3;
export const DEFAULT_ABSENCE_FLOOR_S = 2;

/** Tests in flight at once by default (--concurrency): sized for I/O, not for the CPU. A test spends
 * its time waiting for answers; against a target 200 ms away 16 tests in flight took the core
 * run from ~134 s to the figure in docs/benchmarks.md, and on loopback it costs nothing. */
export const DEFAULT_CONCURRENCY = 16;
/** Tests in flight by default against a target at least REMOTE_ROUND_TRIP_MS away: there every
 * test waits on the network, and more of them at once buy wall time for little CPU (at 200 ms per
 * request under load ~20: 102 s with 16, 67 s with 64, for 2.6 s more suite CPU; with the long
 * chains started first, at load ~6: 33.1 s with 64, 30.0 s with 128 = 8 workers of 16 tests, the
 * largest file's tests no longer queued behind each other; docs/benchmarks.md). */
export const REMOTE_CONCURRENCY = 128;

/** Most tests of one file in flight at once (run/vitest-run.ts concurrencyPlan). A run lasts as long
 * as its busiest worker: a file whose tests wait for an effect's absence (at least 2 s) holds its
 * worker meanwhile, so at the default concurrency 16 the core run against the reference container
 * took 7.5 s with 2 workers of 8 tests and 6.2 s with 4 workers of 4 (farm-bench, 4 pairs; 1.2 s
 * more CPU for the two threads). Here, beside the option, so that its help cannot say otherwise. */
export const TESTS_PER_FILE = 4;

/** Most worker threads, whatever the concurrency: each costs a thread and its own module graph
 * (the OpenAPI document and its compiled validators), and past this a far target is served as well
 * by more tests in flight per file. */
export const MAX_WORKERS = 8;
export const REMOTE_ROUND_TRIP_MS = 20;

/**
 * How a value is read:
 * - string: text (a list given is joined with commas);
 * - boolean: a flag; from text 1, true, yes or on (any case) is true, anything else false;
 * - integer: a whole number >= min; number: a decimal number >= min (text or number);
 * - seed: a 32-bit signed integer (what fast-check takes);
 * - choice: one of `choices`;
 * - list: comma- or space-separated text, or a list;
 * - keyValues: K=V pairs: repeated flags, a list, text separated by `,` `;` or newlines, or a mapping;
 * - count: a flag with an optional whole number (`--bail` = 1, `--bail 3`, `false` = off);
 * - bindings: an object of names the spec leaves open (bindings.ts).
 */
type Kind =
  'string' | 'boolean' | 'integer' | 'number' | 'seed' | 'choice' | 'list' | 'keyValues' | 'count' | 'bindings';

interface OptionRow {
  /** camel case: the library's key, the config file's (also in kebab case), commander's attribute */
  readonly key: string;
  /** commander flag with its argument (`<x>` required, `[x]` optional); absent: no flag */
  readonly flag?: string;
  /** the CONFORMANCE_* variable; absent: none */
  readonly env?: string;
  /** false: not taken from the config file (default: taken) */
  readonly config?: false;
  readonly kind: Kind;
  /** the value when the option is not given; `{default}` in the help shows it */
  readonly default?: string | number;
  /** integer and number: the smallest value allowed (integer default 1) */
  readonly min?: number;
  /** choice: the values allowed */
  readonly choices?: readonly string[];
  readonly help: string;
  /** false: the help does not name the variable (default: ` [VARIABLE]` is appended) */
  readonly envInHelp?: false;
  /** the field of RunOptions (run/config.ts) that carries the resolved value (default: the key) */
  readonly field?: string;
  /**
   * true: resolveRunOptions derives this option's field(s) itself (the target from three options, a
   * file that is read, a path resolved, a value joined with another); absent: the field is the
   * value as read (RunFields, resolveFields).
   */
  readonly derived?: true;
  /** true: the test workers get the resolved value, under its field (RunContext, model/context.ts) */
  readonly context?: true;
  /** true: the reports say what it was, under its field (RunInfo, report/run-results.ts) */
  readonly report?: true;
}

export const RUN_OPTIONS = [
  {
    key: 'baseUrl',
    derived: true,
    flag: '--base-url <url>',
    env: 'CONFORMANCE_BASE_URL',
    kind: 'string',
    help: 'test a running implementation at this URL',
  },
  {
    key: 'image',
    derived: true,
    flag: '--image <image>',
    env: 'CONFORMANCE_IMAGE',
    kind: 'string',
    help: 'test this container image (testcontainers)',
  },
  {
    key: 'localProcess',
    derived: true,
    flag: '--local-process',
    env: 'CONFORMANCE_LOCAL_PROCESS',
    kind: 'boolean',
    help: 'run the reference server as a local process instead of its image',
  },
  {
    key: 'providerStatesUrl',
    flag: '--provider-states-url <url>',
    env: 'CONFORMANCE_PROVIDER_STATES_URL',
    kind: 'string',
    help: 'provider-state endpoint (default <base-url>/_provider-states)',
  },
  {
    key: 'providerStatesProtocol',
    derived: true,
    flag: '--provider-states-protocol <version>',
    env: 'CONFORMANCE_PROVIDER_STATES_PROTOCOL',
    kind: 'string',
    help: 'the provider-state protocol version the endpoint implements (default: what its setup answers declare as `protocol`, else 1.0.0); the suite sends nothing newer',
  },
  {
    key: 'fixtures',
    derived: true,
    flag: '--fixtures <file>',
    env: 'CONFORMANCE_FIXTURES',
    kind: 'string',
    help: 'YAML/JSON list of {state, params?, values} used instead of provider states',
  },
  {
    key: 'profile',
    context: true,
    report: true,
    flag: '--profile <profile>',
    env: 'CONFORMANCE_PROFILE',
    kind: 'choice',
    choices: PROFILES,
    default: 'core',
    help: 'core | implementation-defined | all (default {default})',
  },
  {
    key: 'requirements',
    context: true,
    report: true,
    flag: '--requirements <ids>',
    env: 'CONFORMANCE_REQUIREMENTS',
    kind: 'list',
    help: 'comma list of requirement IDs or prefixes, e.g. SCHED-,AUTH-001',
  },
  {
    key: 'readOnly',
    context: true,
    report: true,
    flag: '--read-only',
    env: 'CONFORMANCE_READ_ONLY',
    kind: 'boolean',
    help: 'leave out tests that change data',
  },
  {
    key: 'timeout',
    context: true,
    field: 'timeoutMs',
    flag: '--timeout <ms>',
    env: 'CONFORMANCE_TIMEOUT',
    kind: 'integer',
    // what a patient client allows: the spec states no latency, so a slow answer is no verdict
    // (a read that times out is asked once more, transport.ts)
    default: 30_000,
    help: 'per-request timeout; a read (GET, HEAD) that times out is asked once more (default {default})',
  },
  {
    key: 'testTimeout',
    field: 'testTimeoutMs',
    flag: '--test-timeout <ms>',
    env: 'CONFORMANCE_TEST_TIMEOUT',
    kind: 'integer',
    default: 60_000,
    help: 'per-test timeout (default {default}; at least --async-timeout + 30000)',
  },
  {
    key: 'asyncTimeout',
    context: true,
    field: 'asyncTimeoutMs',
    flag: '--async-timeout <ms>',
    env: 'CONFORMANCE_ASYNC_TIMEOUT',
    kind: 'integer',
    // generous, since the spec sets no deadline for asynchronous work
    default: 60_000,
    help: 'deadline for asynchronous outcomes (binding), polled, never slept; also the longest wait before an effect is judged absent (default {default})',
  },
  {
    key: 'absenceFactor',
    context: true,
    flag: '--absence-factor <n>',
    env: 'CONFORMANCE_ABSENCE_FACTOR',
    kind: 'number',
    min: 1,
    default: DEFAULT_ABSENCE_FACTOR,
    help: 'an effect a refused request must not have is judged absent after n times as long as the accepted case took to show it (default {default})',
  },
  {
    key: 'absenceFloor',
    context: true,
    field: 'absenceFloorS',
    flag: '--absence-floor <s>',
    env: 'CONFORMANCE_ABSENCE_FLOOR',
    kind: 'number',
    min: 0,
    default: DEFAULT_ABSENCE_FLOOR_S,
    help: '... and never sooner than this many seconds (default {default}; both capped by --async-timeout)',
  },
  {
    key: 'clockTolerance',
    context: true,
    field: 'clockToleranceMs',
    flag: '--clock-tolerance <ms>',
    env: 'CONFORMANCE_CLOCK_TOLERANCE',
    kind: 'integer',
    // 50 minutes, under the smallest whole-hour zone offset, so a local time written as UTC is
    // still told apart from UTC while ordinary clock drift passes
    default: 50 * 60_000,
    help: "how far the target's clock may be from the runner's when a timestamp is checked against now (default {default} = 50 min)",
  },
  {
    key: 'concurrency',
    flag: '--concurrency <n>',
    env: 'CONFORMANCE_CONCURRENCY',
    kind: 'integer',
    default: DEFAULT_CONCURRENCY,
    help: `most tests in flight at once: ${TESTS_PER_FILE} per suite file in ceil(n/${TESTS_PER_FILE}) worker threads, at most ${MAX_WORKERS} threads and then more tests per file (default: ${REMOTE_CONCURRENCY} when the target answers in ${REMOTE_ROUND_TRIP_MS} ms or more, else {default}; 1 = one test at a time)`,
  },
  {
    key: 'shard',
    report: true,
    flag: '--shard <i/n>',
    env: 'CONFORMANCE_SHARD',
    kind: 'string',
    help: 'run shard i of n of the suite files',
  },
  {
    key: 'reportDir',
    derived: true,
    flag: '--report-dir <dir>',
    env: 'CONFORMANCE_REPORT_DIR',
    kind: 'string',
    default: 'reports/latest',
    help: 'where report.html, results.json, junit.xml and badge.svg go (default {default})',
  },
  {
    key: 'requireContainer',
    derived: true,
    flag: '--require-container',
    env: 'CONFORMANCE_REQUIRE_CONTAINER',
    kind: 'boolean',
    help: 'fail (exit 3) instead of falling back to a local process when no container engine answers; implied by CI=true',
  },
  {
    key: 'containerPort',
    flag: '--container-port <port>',
    env: 'CONFORMANCE_CONTAINER_PORT',
    kind: 'integer',
    default: 8080,
    help: 'port the image serves on (default {default})',
  },
  {
    key: 'containerEnv',
    flag: '--container-env <K=V>',
    env: 'CONFORMANCE_CONTAINER_ENV',
    kind: 'keyValues',
    help: 'extra container environment (repeatable)',
    envInHelp: false,
  },
  {
    key: 'healthPath',
    flag: '--health-path <path>',
    env: 'CONFORMANCE_HEALTH_PATH',
    kind: 'string',
    default: '/health',
    help: 'health endpoint waited for until it answers 200 (image and reference default {default}; a --base-url target is waited for only when this is given, else GET / must answer anything)',
  },
  {
    key: 'startTimeout',
    field: 'startTimeoutMs',
    flag: '--start-timeout <ms>',
    env: 'CONFORMANCE_START_TIMEOUT',
    kind: 'integer',
    default: 60_000,
    help: 'how long the target may take to become healthy (default {default})',
  },
  {
    key: 'bail',
    flag: '--bail [n]',
    env: 'CONFORMANCE_BAIL',
    kind: 'count',
    help: 'stop after n failed tests (default 1)',
  },
  {
    key: 'reporterVerbose',
    field: 'verbose',
    flag: '--reporter-verbose',
    env: 'CONFORMANCE_REPORTER_VERBOSE',
    kind: 'boolean',
    help: "also print vitest's per-test output and every requirement",
  },
  {
    key: 'include',
    derived: true,
    flag: '--include <globs>',
    env: 'CONFORMANCE_INCLUDE',
    kind: 'list',
    help: 'suite files to run, comma list of globs relative to the repository root (default conformance/suite/**/*.test.ts)',
  },
  {
    key: 'baseline',
    derived: true,
    flag: '--baseline <results.json>',
    env: 'CONFORMANCE_BASELINE',
    kind: 'string',
    help: 'an earlier results.json: report what newly failed and what got fixed; fail (exit 1) only on regressions',
  },
  {
    key: 'expectedFailures',
    derived: true,
    flag: '--expected-failures <file>',
    env: 'CONFORMANCE_EXPECTED_FAILURES',
    kind: 'string',
    help: "YAML list of {id, reason, expires: YYYY-MM-DD}: listed failures do not fail the run until they expire; entries {id, kind: disputed, quote, reason} dispute the suite's reading (see --allow-disputed)",
  },
  {
    key: 'allowDisputed',
    flag: '--allow-disputed',
    env: 'CONFORMANCE_ALLOW_DISPUTED',
    kind: 'boolean',
    help: 'a failure a disputed expected-failures entry lists does not fail the run (exit 0); it stays red in every report and count',
  },
  {
    key: 'minJudged',
    derived: true,
    flag: '--min-judged <n|n%>',
    env: 'CONFORMANCE_MIN_JUDGED',
    kind: 'string',
    help: 'fail (exit 1) a run that judged (passed or failed) fewer of its selected testable requirements, e.g. 100% or 120; without it only a run that judged nothing is refused (exit 4, inconclusive)',
  },
  {
    key: 'requireProtocol',
    derived: true,
    flag: '--require-protocol <version>',
    env: 'CONFORMANCE_REQUIRE_PROTOCOL',
    kind: 'string',
    help: 'fail (exit 1) a run whose provider-state endpoint speaks an older protocol than this, e.g. 1.1.0',
  },
  {
    key: 'retries',
    flag: '--retries <n>',
    env: 'CONFORMANCE_RETRIES',
    kind: 'integer',
    default: 1,
    min: 0,
    help: 'run a test that ended error because the target did not answer in time again, alone, after the run, up to n times (default {default}; 0 = never); one that passes then is reported flaky',
  },
  {
    key: 'failOnFlaky',
    flag: '--fail-on-flaky',
    env: 'CONFORMANCE_FAIL_ON_FLAKY',
    kind: 'boolean',
    help: 'a test that passed only when run again fails the run (exit 1)',
  },
  {
    key: 'targetLabel',
    derived: true,
    flag: '--target-label <text>',
    env: 'CONFORMANCE_TARGET_LABEL',
    kind: 'string',
    help: 'a name for the target shown in the reports, e.g. "Acme API 2.3"',
  },
  {
    key: 'seed',
    context: true,
    flag: '--seed <n>',
    env: 'CONFORMANCE_SEED',
    kind: 'seed',
    help: 'seed of the generated (model-based) tests; default random, printed and kept in results.json',
  },
  {
    key: 'modelRuns',
    context: true,
    flag: '--model-runs <n>',
    env: 'CONFORMANCE_MODEL_RUNS',
    kind: 'integer',
    min: 1,
    help: 'sequences the core model-based test generates (default 8, within the core run budget; the reference one makes half as many): more for a nightly run, with --test-timeout raised to match',
  },
  {
    key: 'skipShrink',
    context: true,
    flag: '--skip-shrink',
    env: 'CONFORMANCE_SKIP_SHRINK',
    kind: 'boolean',
    help: 'a failing model-based test reports the first failing sequence as found instead of shrinking it to a shorter one (faster when only the verdict matters, as in the mutation run)',
  },
  {
    key: 'recordHar',
    flag: '--record-har <file>',
    config: false,
    kind: 'string',
    help: "write the suite's own traffic as HAR 1.2 (credentials redacted), e.g. for a browser's developer tools",
  },
  {
    key: 'bundle',
    derived: true,
    field: 'bundleFile',
    flag: '--bundle <file>',
    env: 'CONFORMANCE_BUNDLE',
    kind: 'string',
    help: "also write a conformance bundle (.tar.gz): results.json, junit.xml, report.html, the run's traffic as HAR (credentials redacted), its options and bindings, and an in-toto statement over them signed with --sign-key; a customer checks it offline with `conformance verify-bundle`",
  },
  {
    key: 'signKey',
    derived: true,
    field: 'signKeyFile',
    flag: '--sign-key <file>',
    env: 'CONFORMANCE_SIGN_KEY',
    kind: 'string',
    help: "the vendor's Ed25519 private key (PEM) that signs the bundle's statement; without it the bundle is unsigned and says so",
  },
  {
    key: 'targetVersion',
    flag: '--target-version <text>',
    env: 'CONFORMANCE_TARGET_VERSION',
    kind: 'string',
    help: "the implementation's version, named in the bundle's statement (--bundle), e.g. 2.3.1",
  },
  {
    key: 'config',
    derived: true,
    flag: '--config <file>',
    env: 'CONFORMANCE_CONFIG',
    config: false,
    kind: 'string',
    help: 'YAML config file: any option above (kebab or camel case) and `bindings:`',
  },
  {
    key: 'bindings',
    derived: true,
    kind: 'bindings',
    help: "names the spec leaves open, mapped to yours (the config file's `bindings:`, or an object in code; conformance/README.md section 3)",
  },
] as const satisfies readonly OptionRow[];

type Row = (typeof RUN_OPTIONS)[number];
export type OptionKey = Row['key'];
type RowOf<K extends OptionKey> = Extract<Row, { key: K }>;

/** Every level of an object optional (the library's and the config file's bindings). */
type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** What a caller in code may give for an option of kind K (numbers also as their text, as before 0.3). */
type InputOf<R extends Row> = R['kind'] extends 'integer' | 'number' | 'seed'
  ? number | string
  : R['kind'] extends 'boolean'
    ? boolean
    : R['kind'] extends 'list'
      ? string | string[]
      : R['kind'] extends 'keyValues'
        ? Record<string, string> | string[] | string
        : R['kind'] extends 'count'
          ? number | boolean | string
          : R['kind'] extends 'choice'
            ? R extends { choices: readonly (infer C)[] }
              ? C
              : never
            : R['kind'] extends 'bindings'
              ? DeepPartial<Bindings>
              : string;

/** The value an option of kind K is read into. */
type ValueOf<R extends Row> = R['kind'] extends 'integer' | 'number' | 'seed' | 'count'
  ? number
  : R['kind'] extends 'boolean'
    ? boolean
    : R['kind'] extends 'list'
      ? string[]
      : R['kind'] extends 'keyValues'
        ? Record<string, string>
        : R['kind'] extends 'choice'
          ? R extends { choices: readonly (infer C)[] }
            ? C
            : never
          : R['kind'] extends 'bindings'
            ? DeepPartial<Bindings>
            : string;

/**
 * The options of `conformance run` as a caller in code gives them (runConformance), in camel case:
 * `{ baseUrl: 'http://localhost:8080', profile: 'core', requirements: 'SCHED-', timeout: 5000 }`.
 * `conformance run --help` lists them; `bindings` is the config file's `bindings:` as an object.
 * An unknown key is a UsageError that names the nearest known one.
 */
export type ConformanceOptions = { [R in Row as R['key']]?: InputOf<R> };

/** The resolved value of a row: its default when it has one; a flag false, a list or mapping empty. */
type ResolvedOf<R extends Row> = R extends { default: unknown }
  ? ValueOf<R>
  : R['kind'] extends 'boolean' | 'list' | 'keyValues'
    ? ValueOf<R>
    : ValueOf<R> | undefined;
type FieldOf<R extends Row> = R extends { field: infer F extends string } ? F : R['key'];

/**
 * The fields of the resolved options (RunOptions, run/config.ts) that are an option's value as read,
 * one per row that is not `derived`, named by its `field` (else its key).
 */
export type RunFields = { [R in Exclude<Row, { derived: true }> as FieldOf<R>]: ResolvedOf<R> };

/** What a flag, a list or a mapping is when not given (a new one each time). */
function notGiven(kind: Kind): unknown {
  return kind === 'boolean' ? false : kind === 'list' ? [] : kind === 'keyValues' ? {} : undefined;
}

/**
 * The RunFields from `get`, which reads an option's given value (validated by readOption) or else
 * its default; in the order of the table.
 */
export function resolveFields(get: (key: OptionKey) => unknown): RunFields {
  const out: Record<string, unknown> = {};
  for (const r of RUN_OPTIONS as readonly OptionRow[])
    if (!r.derived) out[r.field ?? r.key] = get(r.key as OptionKey) ?? notGiven(r.kind);
  return out as RunFields;
}

/** The marks a row may carry for where its resolved value goes besides RunOptions. */
export type Mark = 'context' | 'report';
type MarkedRow<M extends Mark> = Extract<Exclude<Row, { derived: true }>, { [K in M]: true }>;

/** The fields of the rows marked `m`, typed as resolved (ContextFields: what RunContext takes of them). */
export type MarkedFields<M extends Mark> = { [R in MarkedRow<M> as FieldOf<R>]: ResolvedOf<R> };

const markedRows = (m: Mark) => (RUN_OPTIONS as readonly OptionRow[]).filter((r) => !r.derived && r[m]);

/** Of resolved options, the fields of the rows marked `m` (those undefined left out). */
export function pickMarked<M extends Mark>(fields: RunFields, m: M): MarkedFields<M> {
  const all = fields as Record<string, unknown>;
  return Object.fromEntries(
    markedRows(m).flatMap((r) => {
      const v = all[r.field ?? r.key];
      return v === undefined ? [] : [[r.field ?? r.key, v]];
    }),
  ) as MarkedFields<M>;
}

/**
 * The fields of the rows marked `m` from `get` (an option's given value, read and validated), else
 * the row's default, else what a flag, list or mapping is when not given (undefined left out).
 */
export function fieldsMarked<M extends Mark>(m: M, get: (key: OptionKey) => unknown): MarkedFields<M> {
  return Object.fromEntries(
    markedRows(m).flatMap((r) => {
      const v = get(r.key as OptionKey) ?? r.default ?? notGiven(r.kind);
      return v === undefined ? [] : [[r.field ?? r.key, v]];
    }),
  ) as MarkedFields<M>;
}

/** An option's value as read from one place, with that place's name (for messages and relative paths). */
export interface Given {
  v: unknown;
  from: 'command line' | 'environment' | 'config file';
}

export function optionRow<K extends OptionKey>(key: K): RowOf<K> {
  return RUN_OPTIONS.find((r) => r.key === key) as RowOf<K>;
}

/** An option's value once resolved: never undefined when the option has a default. */
export type Resolved<K extends OptionKey> =
  RowOf<K> extends { default: unknown } ? ValueOf<RowOf<K>> : ValueOf<RowOf<K>> | undefined;

/** The option's default (undefined: none). */
export function optionDefault<K extends OptionKey>(key: K): Resolved<K> {
  return (optionRow(key) as OptionRow).default as Resolved<K>;
}

/** Option key → CONFORMANCE_* variable. */
export const ENV_VARS: Readonly<Record<string, string>> = Object.fromEntries(
  RUN_OPTIONS.flatMap((r: OptionRow) => (r.env ? [[r.key, r.env]] : [])),
);

/** The keys the config file takes (camel case; kebab case is read as camel). */
export const CONFIG_KEYS: ReadonlySet<string> = new Set(
  RUN_OPTIONS.filter((r: OptionRow) => r.config !== false).map((r) => r.key),
);

const LIBRARY_KEYS: ReadonlySet<string> = new Set(RUN_OPTIONS.map((r) => r.key));

/** A flag of `conformance run` as commander declares it (cli/run.ts). */
export interface FlagSpec {
  key: OptionKey;
  flags: string;
  description: string;
  choices?: readonly string[];
  /** repeatable: every occurrence is kept (a list) */
  repeatable: boolean;
}

/** The flags of `conformance run`, in the order of the table, with their help as printed. */
export function runOptionFlags(): FlagSpec[] {
  return RUN_OPTIONS.flatMap((r: OptionRow): FlagSpec[] => {
    if (!r.flag) return [];
    const help = r.help.replace('{default}', String(r.default));
    return [
      {
        key: r.key as OptionKey,
        flags: r.flag,
        description: r.env && r.envInHelp !== false ? `${help} [${r.env}]` : help,
        ...(r.choices ? { choices: r.choices } : {}),
        repeatable: r.kind === 'keyValues',
      },
    ];
  });
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

export function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) of two short names. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** The known name nearest to `name` (case and dashes ignored), if near enough to be a slip. */
export function suggest(name: string, known: Iterable<string>): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(norm(name), norm(k));
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(norm(name).length / 3)) ? best.k : undefined;
}

/**
 * The error for a key no option has: `where` names the place (`options`, `config file x.yaml`),
 * `known` the keys taken there, written as the caller writes them (`kebab`: as a config file's
 * kebab-case key).
 */
export function unknownKeyError(
  where: string,
  key: string,
  known: Iterable<string>,
  style: 'camel' | 'kebab',
): UsageError {
  const names = [...known].map((k) => (style === 'kebab' ? kebab(k) : k));
  const near = suggest(key, names);
  return new UsageError(
    `${where}: unknown ${where === 'options' ? 'option' : 'key'} '${key}' (${near ? `did you mean ${near}?` : `known: ${names.join(', ')}`})`,
  );
}

/** Throws for the first key of a caller's options no option has (with the nearest known key). */
export function checkOptionKeys(options: object): void {
  for (const k of Object.keys(options))
    if (!LIBRARY_KEYS.has(k)) throw unknownKeyError('options', k, LIBRARY_KEYS, 'camel');
}

export function splitList(s: string): string[] {
  return s
    .split(/[,\s]+/)
    .map((x) => x.trim())
    .filter(Boolean);
}

function truthy(v: string): boolean {
  return /^(1|true|yes|on)$/i.test(v.trim());
}

function text(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(',') : String(v);
}

function integer(name: string, s: string, min: number): number {
  if (!/^\d+$/.test(s.trim()) || Number(s) < min)
    throw new UsageError(`${name} must be an integer >= ${min} (got '${s}')`);
  return Number(s);
}

/** A seed is a 32-bit signed integer (what fast-check takes). */
export function parseSeed(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s.trim());
  if (!/^-?\d+$/.test(s.trim()) || n < -(2 ** 31) || n > 2 ** 31 - 1)
    throw new UsageError(`--seed must be an integer from -2147483648 to 2147483647 (got '${s}')`);
  return n;
}

/**
 * Reads and validates a given value of option `key` by its kind; undefined for a value that means
 * "not set" (`--bail false`). Bindings are checked by their own resolver (resolveBindings, called by
 * config.ts). Throws UsageError naming the flag (`--timeout must be ...`).
 */
export function readOption<K extends OptionKey>(key: K, given: Given): ValueOf<RowOf<K>> | undefined {
  const r: OptionRow = optionRow(key);
  const name = `--${kebab(r.key)}`;
  const v = given.v;
  const out = (x: unknown) => x as ValueOf<RowOf<K>>;
  switch (r.kind) {
    case 'string':
      return out(text(v));
    case 'boolean':
      return out(typeof v === 'boolean' ? v : truthy(text(v)));
    case 'integer':
      return out(integer(name, text(v), r.min ?? 1));
    case 'number': {
      const s = text(v);
      const min = r.min ?? 0;
      if (!/^\d+(\.\d+)?$/.test(s.trim()) || Number(s) < min)
        throw new UsageError(`${name} must be a number >= ${min} (got '${s}')`);
      return out(Number(s));
    }
    case 'seed':
      return out(parseSeed(text(v)));
    case 'choice': {
      const s = text(v);
      const choices = r.choices ?? [];
      if (!choices.includes(s))
        throw new UsageError(
          `${name} must be ${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]} (got '${s}')`,
        );
      return out(s);
    }
    case 'list':
      return out((Array.isArray(v) ? v : [v]).flatMap((x) => splitList(String(x))));
    case 'keyValues': {
      const pairs: string[] =
        v !== null && typeof v === 'object' && !Array.isArray(v)
          ? Object.entries(v).map(([a, b]) => `${a}=${String(b)}`)
          : Array.isArray(v)
            ? v.map(String)
            : String(v)
                .split(/[,;\n]/)
                .map((s) => s.trim())
                .filter(Boolean);
      const map: Record<string, string> = {};
      for (const kv of pairs) {
        const i = kv.indexOf('=');
        if (i <= 0) throw new UsageError(`${name} must be K=V (got '${kv}')`);
        map[kv.slice(0, i)] = kv.slice(i + 1);
      }
      return out(map);
    }
    case 'count': {
      const s = text(v);
      if (s === 'false') return undefined;
      return out(s === 'true' ? 1 : integer(name, s, 1));
    }
    case 'bindings':
      // its keys and values: resolveBindings (bindings.ts), called by resolveRunOptions
      return out(v);
  }
}

/**
 * The options a suite file run by plain vitest takes from CONFORMANCE_* variables (context.ts
 * contextFromEnv), read and validated as a run reads them; absent: not set.
 */
export function envOption<K extends OptionKey>(key: K, env: NodeJS.ProcessEnv): ValueOf<RowOf<K>> | undefined {
  const name = (optionRow(key) as OptionRow).env;
  const v = name ? env[name] : undefined;
  return v === undefined || v === '' ? undefined : readOption(key, { v, from: 'environment' });
}
