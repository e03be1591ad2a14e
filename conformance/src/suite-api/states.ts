// Provider states (docs/architecture.md section 5): the Pact v3 state endpoint, or a fixtures file.
import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { FixtureEntry } from '../model/context.js';
import { describeError, NotApplicableError, PreconditionFailedError, TargetError } from '../model/errors.js';
import { send, TransportError, type HttpResponse } from './transport.js';
import { allowedRefusal, confirmingValues, negotiate, newerParams, unconfirmedParams } from './protocol.js';
import { guardedValues, ProtocolNeedError, type UseRecorder } from './state-values.js';

export type StateValues = Record<string, any>;

/** A state endpoint answered something other than 200: its status and what its body said. */
class StateAnswerError extends PreconditionFailedError {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The `detail` and `code` of a problem-details body, else the text itself (shortened). */
function problemOf(text: string): { detail: string; code?: string } {
  try {
    const b = JSON.parse(text) as { detail?: unknown; code?: unknown };
    if (b && typeof b === 'object' && typeof b.detail === 'string')
      return { detail: b.detail, ...(typeof b.code === 'string' ? { code: b.code } : {}) };
    if (typeof b === 'string') return { detail: b };
  } catch {
    /* not JSON */
  }
  return { detail: text.slice(0, 300) };
}

/** The problem `code` of a 501 that says a fixture cannot exist here by design (protocol 1.1.0). */
const CANNOT_EXIST = 'FixtureCannotExist';

export interface StateProvider {
  readonly kind: 'url' | 'fixtures';
  /** Whether `teardown` does anything (fixtures: no). */
  readonly tearsDown: boolean;
  setup(state: string, params: Record<string, unknown>): Promise<StateValues>;
  teardown(state: string, params: Record<string, unknown>): Promise<void>;
}

/** POST {stateUrl} {state, params, action} (Pact v3). */
export class HttpStateProvider implements StateProvider {
  readonly kind = 'url' as const;
  readonly tearsDown = true;
  constructor(
    readonly stateUrl: string,
    readonly timeoutMs = 10_000,
  ) {}

  private async post(state: string, params: Record<string, unknown>, action: 'setup' | 'teardown'): Promise<unknown> {
    const post = () =>
      send({
        method: 'POST',
        url: this.stateUrl,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ state, params, action }),
        timeoutMs: this.timeoutMs,
      });
    let res: HttpResponse;
    try {
      // Once more on a connection the server closed as the request went out (a kept-alive socket
      // the server had just timed out): the request never reached it. Anything else is reported.
      res = await post().catch((e: unknown) => (isStaleConnection(e) ? post() : Promise.reject(e)));
    } catch (e) {
      // no answer in time is the endpoint's slowness, not a state it cannot set up: the test ends
      // `error` (a time-out is never a failed requirement nor a failed precondition)
      if (e instanceof TransportError && e.timedOut)
        throw new TargetError(
          `provider state '${state}' ${action}: POST ${this.stateUrl}: no answer within ${this.timeoutMs} ms (--timeout)`,
        );
      const why =
        e instanceof TargetError
          ? e.message
          : e instanceof TransportError && e.phase === 'body'
            ? `reading the answer failed: ${e.message}`
            : `POST ${this.stateUrl} failed: ${e instanceof TransportError && e.timedOut ? `no answer within ${this.timeoutMs} ms` : describeError(e)}`;
      throw new PreconditionFailedError(`provider state '${state}' ${action}: ${why}`);
    }
    const text = res.text;
    if (res.status !== 200) {
      throw new StateAnswerError(
        `provider state '${state}' ${action} answered ${res.status}${res.status === 400 ? ' (unknown or refused state)' : ''}: ${text.slice(0, 500)}`,
        res.status,
        problemOf(text).detail,
        problemOf(text).code,
      );
    }
    if (text.trim() === '') return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new PreconditionFailedError(
        `provider state '${state}' ${action} answered a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }

  async setup(state: string, params: Record<string, unknown>): Promise<StateValues> {
    const v = await this.post(state, params, 'setup');
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw new PreconditionFailedError(
        `provider state '${state}' setup answered ${JSON.stringify(v)}, not a JSON object`,
      );
    }
    return v as StateValues;
  }

  async teardown(state: string, params: Record<string, unknown>): Promise<void> {
    await this.post(state, params, 'teardown');
  }
}

/**
 * Fixed values from a fixtures file: an entry matches by state name and deep-equal params
 * (`setupId` ignored; absent params equal `{}`). No teardown.
 */
export class FixtureStateProvider implements StateProvider {
  readonly kind = 'fixtures' as const;
  readonly tearsDown = false;
  constructor(readonly entries: FixtureEntry[]) {}

  find(state: string, params: Record<string, unknown>): FixtureEntry | undefined {
    return findFixture(this.entries, state, params);
  }

  async setup(state: string, params: Record<string, unknown>): Promise<StateValues> {
    const hit = this.find(state, params);
    if (!hit) {
      const { setupId: _ignored, ...p } = params;
      throw new PreconditionFailedError(`no fixture for state '${state}' with params ${JSON.stringify(p)}`);
    }
    return structuredClone(hit.values);
  }

  async teardown(): Promise<void> {}
}

export function findFixture(
  entries: FixtureEntry[],
  state: string,
  params: Record<string, unknown> = {},
): FixtureEntry | undefined {
  const want = withoutSetupId(params);
  return entries.find((e) => e.state === state && isDeepStrictEqual(withoutSetupId(e.params ?? {}), want));
}

function withoutSetupId(p: Record<string, unknown>): Record<string, unknown> {
  const { setupId: _ignored, ...rest } = p;
  // drop undefined values so `{a: undefined}` equals `{}`
  return JSON.parse(JSON.stringify(rest));
}

/** Validates parsed fixtures-file content. */
export function parseFixtures(doc: unknown, source = 'fixtures'): FixtureEntry[] {
  const list = Array.isArray(doc) ? doc : ((doc as any)?.fixtures ?? (doc as any)?.states);
  if (!Array.isArray(list)) throw new Error(`${source}: expected a list of {state, params?, values}`);
  return list.map((e: any, i: number) => {
    if (typeof e?.state !== 'string') throw new Error(`${source}[${i}]: 'state' must be a string`);
    if (e.params !== undefined && (typeof e.params !== 'object' || e.params === null || Array.isArray(e.params)))
      throw new Error(`${source}[${i}]: 'params' must be a mapping`);
    if (typeof e.values !== 'object' || e.values === null || Array.isArray(e.values))
      throw new Error(`${source}[${i}]: 'values' must be a mapping`);
    return { state: e.state, params: e.params, values: e.values };
  });
}

export interface StateSetup {
  state: string;
  params: Record<string, unknown>;
  values: StateValues;
  /** Setups of one wave were in flight together (see StateSession.given). */
  wave: number;
}

/** Most teardowns of one wave in flight at once. */
const TEARDOWNS_AT_ONCE = 16;

/** One provider-state call of a session, timed (the benchmark's critical path reads these). */
export interface StateCall {
  action: 'setup' | 'teardown';
  state: string;
  /** start, ms since the epoch (fractional) */
  at: number;
  ms: number;
}

const now = () => performance.timeOrigin + performance.now();

/** A request that failed because the kept-alive connection it went out on was already closed. */
function isStaleConnection(e: unknown): boolean {
  return (
    e instanceof TransportError &&
    e.phase === 'request' &&
    !e.timedOut &&
    (e.code === 'ECONNRESET' || e.code === 'UND_ERR_SOCKET')
  );
}

/** One test's states: `given()` sets up with a fresh setupId; `teardownAll()` undoes in reverse order. */
/**
 * Provider states that change a setting of the whole service (every other test would see it): a
 * test that sets one up must be marked `serviceWide: true`, and runs in a phase of its own.
 */
const SERVICE_WIDE_STATES: ReadonlySet<string> = new Set(['a setting']);

/**
 * A refusal the protocol allows, as the not-applicable that ends the test: 501 with the code
 * FixtureCannotExist (since 1.1.0; a bare 501, a state not implemented yet, excuses nothing) and a
 * 400 to a param marked x-may-refuse. Anything else: undefined.
 */
function refusalAsNotApplicable(e: unknown, state: string, params: Record<string, unknown>): Error | undefined {
  if (!(e instanceof StateAnswerError)) return undefined;
  if (e.status === 501 && e.code === CANNOT_EXIST)
    return new NotApplicableError(`provider state '${state}' cannot exist here: ${e.detail}`);
  if (e.status === 400) {
    const allowed = allowedRefusal(state, params);
    if (allowed) return new NotApplicableError(`${allowed} (${e.detail})`);
  }
  return undefined;
}

/** The version an answer declares (`protocol`), as negotiated; a declaration that cannot be used: 1.0.0. */
function declaredIn(values: StateValues): string {
  const n = negotiate(values.protocol);
  return 'version' in n ? n.version : '1.0.0';
}

export class ServiceWideStateError extends Error {
  override name = 'SuiteDefinitionError';
}

/** How a session speaks the versioned protocol (spec/provider-states.yaml, "Versions and negotiation"). */
export interface SessionProtocol {
  /** The version the endpoint declared (or the run was told), once known. */
  version(): Promise<string>;
  /** Called with `<state>.<value>` whenever a test reads a value of an answer. */
  onUse?: UseRecorder;
  /** Called with `<state>.<value>` when a test reads an optional value the answer does not hold. */
  onMissing?: UseRecorder;
}

export class StateSession {
  readonly setups: StateSetup[] = [];
  private wave = 0;
  private inFlight = 0;
  readonly calls: StateCall[] = [];
  constructor(
    readonly provider: StateProvider,
    readonly prefix: string,
    /** Whether this session may set up SERVICE_WIDE_STATES (the test is marked serviceWide). */
    readonly serviceWide = false,
    /** Absent: the session of the run's admin user, whose answer declares the version. */
    readonly protocol?: SessionProtocol,
  ) {}

  async given(state: string, params: Record<string, unknown> = {}): Promise<StateValues> {
    if (SERVICE_WIDE_STATES.has(state) && !this.serviceWide) {
      throw new ServiceWideStateError(
        `provider state '${state}' changes the whole service: the test '${this.prefix}' must be marked serviceWide: true (it then runs alone, after the other tests)`,
      );
    }
    // Never a param newer than the endpoint declared: the test needs a newer protocol.
    const version = this.protocol ? await this.protocol.version() : undefined;
    if (version !== undefined) {
      // every newer param of the call is named, so one upgrade covers the test
      const needs = newerParams(state, params, version);
      if (needs[0]) throw new ProtocolNeedError(needs[0], version, needs);
    }
    const full = { ...params, setupId: `${this.prefix}-${randomUUID().slice(0, 8)}` };
    // A setup that starts while others are in flight joins their wave: none of them can depend on
    // another (their values were not known when it started), so their teardowns may run at once.
    if (this.inFlight === 0) this.wave++;
    const wave = this.wave;
    this.inFlight++;
    const at = now();
    let values: StateValues;
    try {
      values = await this.provider.setup(state, full);
    } catch (e) {
      throw refusalAsNotApplicable(e, state, params) ?? e;
    } finally {
      this.inFlight--;
      this.calls.push({ action: 'setup', state, at, ms: now() - at });
    }
    this.setups.push({ state, params: full, values, wave });
    // the confirming values are read by the suite on the test's behalf
    for (const v of confirmingValues(state, params)) this.protocol?.onUse?.(`${state}.${v}`);
    const unconfirmed = unconfirmedParams(state, params, values);
    if (unconfirmed.length > 0)
      throw new PreconditionFailedError(
        `provider state '${state}' did not honour what the test asked for: ${unconfirmed.join('; ')}`,
      );
    return guardedValues(state, values, version ?? declaredIn(values), this.protocol?.onUse, this.protocol?.onMissing);
  }

  /** Tears down every state; returns warnings for failures (never throws). */
  async teardownAll(): Promise<string[]> {
    const warnings: string[] = [];
    if (!this.provider.tearsDown) return warnings;
    // Waves in reverse order of setup; the states of one wave at once (see given()).
    while (this.setups.length > 0) {
      const last = this.setups[this.setups.length - 1]!.wave;
      const wave: StateSetup[] = [];
      while (this.setups.length > 0 && this.setups[this.setups.length - 1]!.wave === last)
        wave.push(this.setups.pop()!);
      for (let i = 0; i < wave.length; i += TEARDOWNS_AT_ONCE)
        await Promise.all(
          wave.slice(i, i + TEARDOWNS_AT_ONCE).map(async (s) => {
            const at = now();
            try {
              await this.provider.teardown(s.state, s.params);
            } catch (e) {
              warnings.push(
                `teardown of state '${s.state}' (setupId ${String(s.params.setupId)}) failed: ${(e as Error).message}`,
              );
            } finally {
              this.calls.push({ action: 'teardown', state: s.state, at, ms: now() - at });
            }
          }),
        );
    }
    return warnings;
  }
}
