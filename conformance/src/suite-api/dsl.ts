// The conformance test DSL (docs/architecture.md section 8):
//
//   conformance({ id, title, requirements, profile?, mutates?, timeoutMs? }, async (t) => { ... })
//
// registers a vitest test named `<title> [<ID> <ID>]`, keeps the record in `task.meta`, skips it
// (not-applicable, with the reason) when the profile, the requirement selection or --read-only
// leave it out, checks the requirement IDs against the catalogue at load time, sets up and tears
// down provider states, records every exchange and fails the test on generic check violations.
import { test, inject, afterAll, TestRunner, type TestContext as VitestTestContext } from 'vitest';
import type { Client } from 'openapi-fetch';
import type { paths } from '../../../spec/generated/openapi.js';
import type { ProviderStates, StateName } from '../../../spec/generated/provider-states.js';
import { poll } from './poll.js';
import { setAtPath, type Bindings } from '../model/bindings.js';
import { describeListPlace, locateList, locateTotalCount } from '../model/not-shown-shapes.js';
import { loadCatalogue } from '../spec/catalogue.js';
import {
  ExchangeLog,
  makeClient,
  rawRequest,
  type ClientOptions,
  type Exchange,
  type RawInit,
  type RawResponse,
} from './client.js';
import { GenericChecker } from './generic-checks/checker.js';
import type { Finding, GenericCode, SchemaView, Violation } from './generic-checks/types.js';
import type { ModelCoverage } from '../model/model-coverage.js';
import { loadOpenApi } from '../spec/openapi.js';
import { absenceWindowMs, contextFromEnv, selectTest, type RunContext } from '../model/context.js';
import {
  FixtureStateProvider,
  HttpStateProvider,
  ServiceWideStateError,
  StateSession,
  type StateProvider,
  type StateValues,
} from './states.js';
import { negotiate } from './protocol.js';
import { ProtocolNeedError } from './state-values.js';
import {
  BlockedError,
  GenericCheckError,
  NotApplicableError,
  PreconditionFailedError,
  SuiteDefinitionError,
  TargetError,
} from '../model/errors.js';
import { classifyError, type TestOutcome } from '../model/outcome.js';
import { writeTrace } from './trace.js';
import { decideOutcome } from './decide-outcome.js';
import { spoolInto } from './spool.js';
import { documentedSurface, type RequestSurface } from './request-guard.js';

export type { RawResponse, RawInit } from './client.js';
export type { Bindings } from '../model/bindings.js';
export { PreconditionFailedError, NotApplicableError, BlockedError, TargetError } from '../model/errors.js';

export interface ConformanceRecord {
  /** 'area.kebab-name', unique in the suite. */
  id: string;
  title: string;
  /** Requirement IDs from spec/requirements.yaml. */
  requirements: string[];
  /** Default 'core'. */
  profile?: 'core' | 'implementation-defined';
  /** Default false; --read-only leaves mutating tests out (not-applicable). */
  mutates?: boolean;
  /** vitest timeout of the test (default: the run's --test-timeout). */
  timeoutMs?: number;
  /**
   * The test changes a setting of the whole service (provider state 'a setting'): it runs in the
   * service-wide phase, after every other test, alone (docs: conformance/README.md).
   */
  serviceWide?: boolean;
  /**
   * The equivalence classes of its requirements the test exercises, as `REQ-ID:class` (the classes
   * of spec/requirements.yaml); the coverage gate checks every class is exercised (coverage/partitions.ts).
   */
  classes?: string[];
}

export interface LinkArgs {
  parentDomain: string;
  parentId?: number;
  parentMatch?: { field: string; key: string | number };
  childDomain: string;
  childId?: number;
  childMatch?: { field: string; key: string | number };
  relationship?: string;
  /** Upsert only: the new relationship of an existing link (reference: `NewRelationship`). */
  newRelationship?: string;
}

export type ApiClient = Client<paths>;

/** The params of a state: optional where the state needs none. */
type GivenParams<S extends StateName> =
  Record<string, never> extends ProviderStates[S]['params']
    ? [params?: ProviderStates[S]['params']]
    : [params: ProviderStates[S]['params']];

export interface TestContext {
  /** openapi-fetch client typed from spec/generated/openapi.ts, with the run's admin token. */
  api: ApiClient;
  /** The same client with another token; null = no credentials. */
  as(token: string | null): ApiClient;
  /** An untyped request (path relative to the base URL, query included); still recorded and checked. */
  raw(path: string, init?: RawInit): Promise<RawResponse>;
  /**
   * Sets up a provider state; torn down after the test. A failure ends the test as precondition-failed.
   * Typed per state from spec/provider-states.yaml (`x-states`): the params it takes, the values it answers.
   */
  given<S extends StateName>(state: S, ...params: GivenParams<S>): Promise<ProviderStates[S]['values']>;
  /**
   * Runs a step the test needs but is not about (reading a record back, creating a fixture through
   * the API) and that `requirement` documents. When the step fails (an assertion in `fn`, or any
   * error but an unreachable target), the test ends `blocked` by `requirement` instead of failing
   * its own requirements; a test is never blocked by one of its own requirements (it fails then).
   */
  needs<T>(requirement: string, step: string, fn: () => Promise<T>): Promise<T>;
  bindings: Bindings;
  /**
   * The total count of a query response: where the bindings put it (body path or header), else the
   * one count named "total" the answer shows (a finding `not-shown-shape-recognised`); undefined when
   * there is none. Two or more such counts: a text naming them and the bindings to set, which fails
   * any assertion on the count (model/not-shown-shapes.ts).
   */
  totalCount(res: { json: unknown; headers: Headers }): unknown;
  /**
   * The domain list of a GET /api/Domains body: where the bindings put it, else the one list the
   * answer holds (a finding `not-shown-shape-recognised`); undefined when it cannot be found without
   * doubt (support/domain-list.ts turns that into one failure naming the binding).
   */
  domainList(body: unknown): unknown[] | undefined;
  links: {
    upsert(a: LinkArgs, token?: string): Promise<RawResponse>;
    remove(a: LinkArgs, token?: string): Promise<RawResponse>;
  };
  /**
   * Calls `fn` until `done(value)` holds; fails after the run's --async-timeout (or `timeoutMs`).
   * Never sleep for an asynchronous outcome: poll it.
   */
  poll<T>(
    fn: () => Promise<T>,
    done: (v: T) => boolean,
    opts?: { timeoutMs?: number; intervalMs?: number },
  ): Promise<T>;
  /**
   * The absence of an asynchronous effect after a refused request, judged after a window that fits
   * a real queue, which may run a rejected job later than an accepted one. Runs `positive` first
   * when given (a control that makes the same kind of effect happen and waits for it with t.poll)
   * and measures it; otherwise takes the longest successful t.poll of this test file so far. The
   * window is --absence-factor times that (default 3), at least --absence-floor seconds (default 2),
   * at most --async-timeout. Waits until the window has passed since `since` (when the refused
   * request was sent; default: now; a timer, so the other tests of the file run meanwhile) and runs
   * `check`, the assertions that the effect did not happen. Returns the window (ms), which the
   * report shows (`absenceWatchedMs` of the test in results.json).
   */
  expectStaysAbsent(
    check: () => Promise<void>,
    opts?: { since?: number; positive?: () => Promise<unknown> },
  ): Promise<number>;
  /**
   * Ends the test as not-applicable. `afterEveryRequest`: this is the test's last step, after every
   * request it makes (a timing it could not arrange, never a step it skipped), so the operations it
   * called are all known: results.json marks it `afterEveryRequest` and the coverage gate vouches
   * for it as for a test that passed.
   */
  notApplicable(reason: string, opts?: { afterEveryRequest?: boolean }): never;
  /**
   * What a model-based test's generated sequences drew (commands, pairs, (command, user, object)
   * triples): kept as the test's `modelCoverage` in results.json and printed in the summary.
   */
  modelCoverage(c: ModelCoverage): void;
  /**
   * Records that the implementation refused (or left out) an undocumented part of the interface
   * that a binding names, such as the relationship column of a link row (spec 2.3: "not shown"): a
   * finding `undocumented-part-refused`, never a failure. The test goes on with the documented
   * parts; `consequence` says which of its assertions were not made for want of the part.
   */
  undocumentedRefused(
    part: string,
    where: { operationId?: string; method: string; url: string; status: number },
    consequence: string,
  ): void;
  /** The run's admin token (provider state 'a user' without grants). */
  adminToken(): Promise<string>;
  /** The run context (base URL, profile, ...). */
  run: Readonly<RunContext>;
  /**
   * The values of provider-state answers this test read, as `<state>.<value>` (live: it grows as the
   * test reads; the report's `stateValuesUsed`). A test that waits on work another test did with
   * its own states (a generated run shared by several tests) adds that test's reads here: it
   * depended on those values as much as if it had read them.
   */
  stateValuesRead: Set<string>;
  /** The exchanges this test recorded so far (live: it grows as the test sends requests). */
  readonly exchanges: readonly Exchange[];
  /**
   * The test's verdict rests on requests another test sent (a generated run shared by several
   * tests): their operations count as the test's own in the results (`operations`), so a run that
   * selects tests by the operations they call (the fault runner) keeps this test with them.
   */
  dependsOnRequests(exchanges: readonly Exchange[]): void;
}

/** What the harness keeps in `task.meta` of every conformance test (read by the reporter). */
export interface ConformanceMeta {
  conformance?: true;
  id?: string;
  title?: string;
  requirements?: string[];
  profile?: 'core' | 'implementation-defined';
  mutates?: boolean;
  serviceWide?: boolean;
  /** The equivalence classes the test exercises (`REQ-ID:class`). */
  classes?: string[];
  /** How long each t.expectStaysAbsent of the test watched before judging (ms). */
  absenceWatchedMs?: number[];
  /** What a model-based test drew (t.modelCoverage). */
  modelCoverage?: ModelCoverage;
  /** Set when the test belongs to the other phase of this run (the reporter leaves it out). */
  otherPhase?: boolean;
  /** Set when the run names the tests it runs (RunContext.tests) and not this one: left out of the results. */
  leftOut?: boolean;
  /** Set when the test is outside the run's selection (profile, --requirements): counted as not selected, not in the results. */
  notSelected?: boolean;
  /** Operations of requests another test sent that this test's verdict rests on (t.dependsOnRequests). */
  dependedOperations?: string[];
  /** Collection only: requirement IDs that are not in the catalogue (or retired). */
  unknownRequirements?: string[];
  /** Set when the test is left out at collection. */
  skipReason?: string;
  outcome?: TestOutcome;
  outcomeReason?: string;
  /** For outcome 'blocked': the requirement whose step failed, and the step. */
  blockedBy?: { requirement: string; step: string };
  /** The provider-state protocol version the test spoke (spec/provider-states.yaml). */
  protocol?: string;
  /** For a test that did not run for want of a newer protocol: what it needed. */
  needsProtocol?: { since: string; what: string };
  /** ... and everything it lacks that was known where it stopped (the first is needsProtocol). */
  lacksProtocol?: Array<{ since: string; what: string }>;
  /** The optional values of state answers the test read and found absent (`<state>.<value>`), sorted. */
  missingValues?: string[];
  /** The values of state answers the test read (`<state>.<value>`), sorted. */
  stateValuesUsed?: string[];
  /** Ended not-applicable as its last step, after every request it makes (t.notApplicable). */
  afterEveryRequest?: boolean;
  exchanges?: Exchange[];
  violations?: Violation[];
  findings?: Finding[];
  warnings?: string[];
  checked?: Record<GenericCode, number>;
}

declare module '@vitest/runner' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging adds the fields
  interface TaskMeta extends ConformanceMeta {}
}

// ------------------------------------------------------------------------- per-run state

/**
 * What the harness keeps for one run, in the worker that runs its files. A worker runs several files
 * with one module instance (vitest-run.ts, isolate: false), and in a suite session
 * (suite-session.ts) several runs, one after another, each against another target: all of it is
 * kept under the run's id (RunContext.runId) and starts empty when a run with another id begins.
 */
interface RunState {
  ctx: RunContext;
  provider?: StateProvider;
  admin?: { session: StateSession; values: Promise<StateValues>; token: Promise<string> };
  /** The suite file whose afterAll tears the admin user down. Per file, not once per module. */
  adminTeardownFile?: string;
  /** Test IDs seen so far (duplicates are a definition error). */
  seenIds: Set<string>;
  /** The longest time a successful t.poll needed: how long an asynchronous effect takes here. */
  longestPollMs: number;
}

let run: RunState | undefined;
function runState(): RunState {
  let provided: RunContext | undefined;
  try {
    provided = inject('conformance');
  } catch {
    provided = undefined;
  }
  if (!run || (provided && provided.runId !== run.ctx.runId)) {
    run = { ctx: provided ?? contextFromEnv(), seenIds: new Set(), longestPollMs: 0 };
    // this run's exchanges go to its own spool (or none), whatever an earlier run of the thread recorded
    spoolInto(run.ctx.harSpool);
  }
  return run;
}

function ctx(): RunContext {
  return runState().ctx;
}

/** The run's context (profile, timeouts, tolerances) for helpers outside a test body. */
export function currentRun(): Readonly<RunContext> {
  return ctx();
}

function stateProvider(): StateProvider {
  const r = runState();
  if (!r.provider) {
    const c = r.ctx;
    if (c.fixtures) r.provider = new FixtureStateProvider(c.fixtures);
    else if (c.stateUrl) r.provider = new HttpStateProvider(c.stateUrl, c.timeoutMs);
    else throw new PreconditionFailedError('no provider-state URL and no fixtures file configured');
  }
  return r.provider;
}

const checkers = new Map<SchemaView, GenericChecker>();
/** A core test's exchanges are checked against the core view; an implementation-defined test's against the full document. */
function genericChecker(profile: 'core' | 'implementation-defined'): GenericChecker {
  const view: SchemaView = profile === 'core' ? 'core' : 'full';
  let c = checkers.get(view);
  if (!c) {
    c = new GenericChecker(loadOpenApi(), view);
    checkers.set(view, c);
  }
  return c;
}

/** The documented surface of core requests (request-guard.ts), one per bindings object. */
const surfaces = new WeakMap<Bindings, RequestSurface>();
function coreSurface(bindings: Bindings): RequestSurface {
  let s = surfaces.get(bindings);
  if (!s) surfaces.set(bindings, (s = documentedSurface(genericChecker('core').index, bindings)));
  return s;
}

function adminSetup(): NonNullable<RunState['admin']> {
  const r = runState();
  if (!r.admin) {
    const session = new StateSession(stateProvider(), 'run-admin');
    const values = session.given('a user', {});
    // the value is validated where it is read: a missing or empty token is a precondition failure
    const token = values.then((v) => v.token as string);
    values.catch(() => undefined); // handled by the awaiting test
    token.catch(() => undefined);
    r.admin = { session, values, token };
  }
  return r.admin;
}

function adminToken(): Promise<string> {
  return adminSetup().token;
}

/**
 * The provider-state protocol version of this run (spec/provider-states.yaml, "Versions and
 * negotiation"): --provider-states-protocol (or the fixtures file's `protocol:`) when given, else
 * what the answer to the admin user's setup declares (`protocol`), else 1.0.0.
 */
async function protocolVersion(): Promise<string> {
  const c = ctx();
  const declared = c.providerStatesProtocol ?? (await adminSetup().values).protocol;
  const n = negotiate(declared);
  if ('problem' in n) throw new PreconditionFailedError(n.problem);
  return n.version;
}

// ------------------------------------------------------------------------- the DSL

export function conformance(record: ConformanceRecord, body: (t: TestContext) => Promise<void>): void {
  const r = runState();
  const c = r.ctx;
  validateRecord(record, c);
  const file = TestRunner.getCurrentSuite()?.file?.filepath ?? '';
  if (r.adminTeardownFile !== file) {
    r.adminTeardownFile = file;
    afterAll(async () => {
      if (!r.admin) return;
      const a = r.admin;
      r.admin = undefined;
      const warnings = await a.session.teardownAll();
      for (const w of warnings) console.warn(`conformance: WARNING: ${w}`);
    });
  }
  const profile = record.profile ?? 'core';
  const sel = selectTest(record, c);
  const meta: ConformanceMeta = {
    conformance: true,
    id: record.id,
    title: record.title,
    requirements: [...record.requirements],
    profile,
    mutates: record.mutates ?? false,
    ...(record.serviceWide ? { serviceWide: true } : {}),
    ...(record.classes?.length ? { classes: [...record.classes] } : {}),
  };
  if (c.collectOnly) meta.unknownRequirements = unknownIds(record.requirements);
  // two phases: everything else first (files in parallel), then the service-wide tests alone
  const otherPhase = c.phase !== undefined && (c.phase === 'service-wide') !== (record.serviceWide === true);
  if (otherPhase) meta.otherPhase = true;
  const leftOut = c.tests !== undefined && !c.tests.includes(record.id);
  if (leftOut) {
    meta.leftOut = true;
    meta.skipReason = 'not among the tests this run names';
  } else if (!sel.run && sel.notSelected) {
    meta.notSelected = true;
    meta.skipReason = sel.reason;
  } else if (!sel.run) {
    meta.skipReason = sel.reason;
    meta.outcome = 'not-applicable';
    meta.outcomeReason = sel.reason;
  }
  const name = `${record.title} [${record.requirements.join(' ')}]`;
  // a test's own timeout never cuts a poll to the async deadline short
  const timeout = record.timeoutMs === undefined ? undefined : Math.max(record.timeoutMs, c.asyncTimeoutMs + 30_000);
  // in their own phase, the service-wide tests run one at a time (vitest-run.ts runs that phase
  // with the main phase's configuration, tests of a file concurrently)
  const sequential = record.serviceWide === true && c.phase === 'service-wide';
  test(
    name,
    {
      skip: !sel.run || otherPhase || leftOut,
      timeout,
      meta,
      ...(sequential ? { sequential, concurrent: false } : {}),
    },
    async (vctx) => {
      await runBody(record, body, vctx);
    },
  );
}

async function runBody(
  record: ConformanceRecord,
  body: (t: TestContext) => Promise<void>,
  vctx: VitestTestContext,
): Promise<void> {
  const c = ctx();
  const meta = vctx.task.meta as ConformanceMeta;
  const log = new ExchangeLog();
  const used = new Set<string>();
  const missing = new Set<string>();
  let spoken: string | undefined;
  const session = new StateSession(stateProvider(), record.id, record.serviceWide === true, {
    version: async () => (spoken = await protocolVersion()),
    onUse: (u) => used.add(u),
    onMissing: (u) => missing.add(u),
  });
  let tornDown = false;
  const teardown = async () => {
    if (tornDown) return [];
    tornDown = true;
    return session.teardownAll();
  };
  // a test that times out never reaches the end of runBody: tear down from the hook as well
  vctx.onTestFinished(async () => {
    const w = await teardown();
    if (w.length) meta.warnings = [...(meta.warnings ?? []), ...w];
  });

  const depended = new Set<string>();
  const t = makeTestContext(
    c,
    log,
    session,
    vctx.signal,
    record,
    used,
    (ms) => {
      meta.absenceWatchedMs = [...(meta.absenceWatchedMs ?? []), ms];
    },
    depended,
    (cov) => {
      meta.modelCoverage = cov;
    },
  );
  let thrown: unknown;
  try {
    await body(t);
  } catch (e) {
    thrown = e;
  }
  const warnings = await teardown();
  meta.exchanges = log.exchanges;
  meta.violations = log.violations;
  meta.findings = log.findings;
  meta.checked = { ...log.checked };
  if (spoken !== undefined) meta.protocol = spoken;
  if (used.size > 0) meta.stateValuesUsed = [...used].sort();
  if (depended.size > 0) meta.dependedOperations = [...depended].sort();
  if (thrown instanceof ProtocolNeedError) {
    meta.needsProtocol = { ...thrown.need };
    if (thrown.lacks.length > 1) meta.lacksProtocol = thrown.lacks.map((l) => ({ ...l }));
  }
  if (missing.size > 0) meta.missingValues = [...missing].sort();
  if (warnings.length) meta.warnings = [...(meta.warnings ?? []), ...warnings];
  writeTrace(record.id, vctx.task.file.filepath, log.exchanges, session.calls);

  if (thrown instanceof NotApplicableError) {
    meta.outcome = 'not-applicable';
    meta.outcomeReason = thrown.message;
    if (thrown.afterEveryRequest) meta.afterEveryRequest = true;
    vctx.skip(thrown.message);
  }
  const decision = decideOutcome(record.requirements, log.violations, thrown);
  meta.outcome = decision.outcome;
  if (decision.outcome === 'passed') return;
  if (decision.outcome === 'precondition-failed') meta.outcomeReason = (decision.error as Error).message;
  if (decision.outcome === 'blocked') {
    meta.blockedBy = { requirement: decision.error.requirement, step: decision.error.step };
    meta.outcomeReason = decision.error.message.split('\n')[0];
  }
  throw decision.error;
}

/**
 * A failure inside `t.needs(requirement, step, fn)` as the BlockedError that ends the test. A step
 * that got no answer (a time-out, an unreachable target) stays what it is: the test ends `error`,
 * never blocked as if the step had failed on an answer.
 */
export function blockedByStep(requirement: string, step: string, e: unknown): BlockedError | Error {
  if (classifyError(e as Error) === 'error') return e as Error;
  const err = e as { message?: string; stack?: string; expected?: unknown; actual?: unknown; showDiff?: boolean };
  const msg = err?.message ?? String(e);
  const b = new BlockedError(requirement, step, `blocked by ${requirement}: step "${step}" failed: ${msg}`);
  // keep the assertion's values and place for the report (vitest serialises these fields)
  Object.assign(b, { expected: err?.expected, actual: err?.actual, showDiff: err?.showDiff });
  if (err?.stack) b.stack = `BlockedError: ${b.message.split('\n')[0]}\n${err.stack.split('\n').slice(1).join('\n')}`;
  return b;
}

function makeTestContext(
  c: RunContext,
  log: ExchangeLog,
  session: StateSession,
  signal: AbortSignal,
  record: ConformanceRecord,
  /** The provider-state values the test read (t.stateValuesRead). */
  used: Set<string>,
  /** Called with how long each t.expectStaysAbsent watched before judging (ms), for the report. */
  onAbsence: (ms: number) => void = () => {},
  /** The operations of other tests' requests this test's verdict rests on (t.dependsOnRequests). */
  depended: Set<string> = new Set(),
  /** Called with a model-based test's coverage figure (t.modelCoverage). */
  onModelCoverage: (c: ModelCoverage) => void = () => {},
): TestContext {
  const profile = record.profile ?? 'core';
  const surface = profile === 'core' ? coreSurface(c.bindings) : undefined;
  const base = (token: ClientOptions['token']): ClientOptions => ({
    baseUrl: c.baseUrl,
    bindings: c.bindings,
    timeoutMs: c.timeoutMs,
    log,
    checker: genericChecker(profile),
    ...(surface ? { surface } : {}),
    token,
    signal,
  });
  const adminOpts = base(() => adminToken());
  /** A not-shown shape found in an answer where the bindings did not name it: a finding, never a failure. */
  const recognised = (operationId: string, url: string, message: string) =>
    log.findings.push({ kind: 'not-shown-shape-recognised', operationId, method: 'GET', url, status: 200, message });
  const raw = (path: string, init?: RawInit) => rawRequest(adminOpts, path, init);
  const link = (which: 'upsert' | 'remove') => (a: LinkArgs, token?: string) =>
    raw(which === 'upsert' ? c.bindings.paths.linkUpsert : c.bindings.paths.linkRemove, {
      method: 'POST',
      body: JSON.stringify(linkBody(a, c.bindings, which)),
      ...(token !== undefined ? { token } : {}),
    });
  return {
    api: makeClient<paths>(adminOpts),
    as: (token) => makeClient<paths>(base(() => token)),
    raw,
    given: async <S extends StateName>(state: S, ...[params]: GivenParams<S>) => {
      try {
        return (await session.given(state, (params ?? {}) as Record<string, unknown>)) as ProviderStates[S]['values'];
      } catch (e) {
        // a suite mistake (a service-wide state in a test not marked serviceWide) is not the target's
        // a want of a newer protocol, or a fixture that cannot exist here, is not-applicable
        // a state endpoint that did not answer in time is a TargetError: the test ends `error`
        if (
          e instanceof PreconditionFailedError ||
          e instanceof ServiceWideStateError ||
          e instanceof NotApplicableError ||
          e instanceof TargetError
        )
          throw e;
        throw new PreconditionFailedError(`provider state '${state}' failed: ${(e as Error)?.message ?? String(e)}`);
      }
    },
    needs: async (requirement, step, fn) => {
      if (!loadCatalogue().byId.has(requirement)) {
        throw new SuiteDefinitionError(`t.needs: unknown requirement ID ${requirement} (step "${step}")`);
      }
      try {
        return await fn();
      } catch (e) {
        // a test is never blocked by its own requirement; an unreachable target stays an error
        const kind = classifyError(e as Error);
        if (kind !== 'failed' || e instanceof GenericCheckError || record.requirements.includes(requirement)) throw e;
        throw blockedByStep(requirement, step, e);
      }
    },
    bindings: c.bindings,
    totalCount: (res) => {
      const r = locateTotalCount(c.bindings, res);
      if ('doubt' in r)
        return `no total count without doubt: ${r.doubt}; set the binding totalCountField (a body path) or totalCountHeader (a header)`;
      if ('absent' in r) return undefined;
      if (!r.found.byBinding)
        recognised(
          'queryRecords',
          '/api/{domain}/Query',
          `the total count is at ${r.found.where.startsWith('header ') ? r.found.where : `\`${r.found.where}\` of the body`}, recognised from the answer (the bindings name ${c.bindings.totalCountHeader ? `header ${c.bindings.totalCountHeader}` : `\`${c.bindings.totalCountField}\``}; setting totalCountField or totalCountHeader is not needed)`,
        );
      return r.found.value;
    },
    domainList: (body) => {
      const r = locateList(body, c.bindings.domainsListField);
      if (!('found' in r)) return undefined;
      if (!r.found.byBinding)
        recognised(
          'listDomains',
          '/api/Domains',
          `the domain list is ${describeListPlace(r.found.where)}, recognised from the answer (the binding domainsListField names \`${c.bindings.domainsListField}\`; setting it is not needed)`,
        );
      return r.found.value;
    },
    links: { upsert: link('upsert'), remove: link('remove') },
    poll: async (fn, done, opts = {}) => {
      const t0 = Date.now();
      const v = await poll(fn, done, { timeoutMs: c.asyncTimeoutMs, ...opts });
      const r = runState();
      r.longestPollMs = Math.max(r.longestPollMs, Date.now() - t0);
      return v;
    },
    expectStaysAbsent: async (check, opts = {}) => {
      const since = opts.since ?? Date.now();
      const r = runState();
      let needed = r.longestPollMs;
      if (opts.positive) {
        const t0 = Date.now();
        await opts.positive();
        needed = Date.now() - t0;
        r.longestPollMs = Math.max(r.longestPollMs, needed);
      }
      const waitMs = absenceWindowMs(needed, c);
      const left = since + waitMs - Date.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      onAbsence(Math.max(waitMs, Date.now() - since));
      await check();
      return waitMs;
    },
    notApplicable: (reason: string, opts?: { afterEveryRequest?: boolean }): never => {
      throw new NotApplicableError(reason, opts?.afterEveryRequest === true);
    },
    undocumentedRefused: (part, where, consequence) => {
      log.findings.push({
        kind: 'undocumented-part-refused',
        ...where,
        message: `${where.method} ${where.url} → ${where.status}: the implementation does not offer ${part}; ${consequence}`,
      });
    },
    adminToken,
    modelCoverage: onModelCoverage,
    run: c,
    stateValuesRead: used,
    exchanges: log.exchanges,
    dependsOnRequests: (exchanges) => {
      // an exchange without an operation counts too: the runner then keeps the test whatever it selects
      for (const e of exchanges) depended.add(e.operationId ?? '');
    },
  };
}

/** The Link/Upsert or Link/Remove body, with the field names (dotted paths) of the bindings. */
export function linkBody(a: LinkArgs, b: Bindings, which: 'upsert' | 'remove' = 'upsert'): Record<string, unknown> {
  const n = b.link;
  const out: Record<string, unknown> = {};
  const set = (path: string, v: unknown) => setAtPath(out, path, v);
  set(n.parentDomain, a.parentDomain);
  if (a.parentId !== undefined) set(n.parentRecordId, a.parentId);
  if (a.parentMatch) {
    set(n.parentRecordMatchField, a.parentMatch.field);
    set(n.parentRecordKey, a.parentMatch.key);
  }
  set(n.childDomain, a.childDomain);
  if (a.childId !== undefined) set(n.childRecordId, a.childId);
  if (a.childMatch) {
    set(n.childRecordMatchField, a.childMatch.field);
    set(n.childRecordKey, a.childMatch.key);
  }
  if (a.relationship !== undefined) set(n.relationship, a.relationship);
  if (which === 'upsert' && a.newRelationship !== undefined) set(n.newRelationship, a.newRelationship);
  return out;
}

// ------------------------------------------------------------------------- load-time checks

function unknownIds(ids: string[]): string[] {
  const cat = loadCatalogue();
  return ids.filter((id) => {
    const r = cat.byId.get(id);
    return !r || r.retired;
  });
}

function validateRecord(r: ConformanceRecord, c: RunContext): void {
  const where = `conformance test '${r?.id}'`;
  if (typeof r?.id !== 'string' || !/^[a-z0-9]+(\.[a-z0-9]+(-[a-z0-9]+)*)+$/.test(r.id)) {
    throw new SuiteDefinitionError(`${where}: id must look like 'area.kebab-name'`);
  }
  if (typeof r.title !== 'string' || r.title.trim() === '')
    throw new SuiteDefinitionError(`${where}: title is required`);
  if (!Array.isArray(r.requirements) || r.requirements.length === 0) {
    throw new SuiteDefinitionError(`${where}: requirements must be a non-empty list of requirement IDs`);
  }
  if (r.profile !== undefined && r.profile !== 'core' && r.profile !== 'implementation-defined') {
    throw new SuiteDefinitionError(`${where}: profile must be 'core' or 'implementation-defined'`);
  }
  for (const c of r.classes ?? [])
    if (typeof c !== 'string' || !r.requirements.includes(c.split(':')[0]!) || !/^[A-Z]+-\d{3}:\S+$/.test(c))
      throw new SuiteDefinitionError(`${where}: class ${String(c)} must be 'REQ-ID:class' of one of its requirements`);
  const { seenIds } = runState();
  if (seenIds.has(r.id)) throw new SuiteDefinitionError(`${where}: duplicate test id`);
  seenIds.add(r.id);
  if (c.collectOnly) return;
  const unknown = unknownIds(r.requirements);
  if (unknown.length > 0) {
    throw new SuiteDefinitionError(`${where} names unknown or retired requirement ID(s): ${unknown.join(', ')}`);
  }
}

export type { StateValues };
