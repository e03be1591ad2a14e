// The shape of a fault: one realistic implementation bug, imitated by rewriting exchanges.
import type { Grants, Json, ProxyRequest, ProxyResponse } from './exchange.js';

/** Spec areas (docs/architecture.md section 1). */
export const AREAS = [
  'GEN',
  'DOM',
  'REC',
  'COL',
  'QRY',
  'FILE',
  'LINK',
  'PROP',
  'BIND',
  'MEM',
  'SCHED',
  'AUTH',
] as const;
export type Area = (typeof AREAS)[number];

/** Forwards a request to the upstream (the next step of the chain). */
export type Next = (req: ProxyRequest) => Promise<ProxyResponse>;

export interface SideResponse {
  status: number;
  text: string;
  /** the parsed body, undefined when not JSON */
  json: Json;
}

/** What a fault may use besides the exchange: the upstream, as a buggy server uses its own data. */
export interface FaultContext {
  /** Header that carries the token (lower-case). */
  readonly tokenHeader: string;
  /** Token of an administrator, obtained through the provider-state endpoint. */
  adminToken(): Promise<string>;
  /** A request straight to the upstream, as the administrator unless `token` is given (null: none). */
  call(method: string, pathAndQuery: string, opts?: { token?: string | null; body?: Json }): Promise<SideResponse>;
  /** Name → DomainID of every domain (the administrator's list). */
  domainIds(): Promise<Map<string, number>>;
  /** Grants of a user created through the provider state 'a user'; 'admin' when created without grants. */
  grantsOf(token: string | undefined): Grants | 'admin' | undefined;
  /** Memory of this proxy's fault (stateful bugs, e.g. a fake link). */
  readonly memory: Map<string, any>;
  /** The proxy's own base URL as the client sees it (for absolute URLs). */
  readonly publicUrl: string;
}

export interface Fault {
  /** kebab-case, unique */
  name: string;
  area: Area;
  /** One line: the bug being imitated. */
  description: string;
  /** Core, testable requirement IDs of spec/requirements.yaml the bug violates. */
  requirements: string[];
  /**
   * Requirement IDs or prefixes whose tests the mutation run executes (default: `requirements`).
   * Needed when the violated requirement is verified by generic checks over other tests' exchanges.
   */
  select?: string[];
  /** The imitation: rewrite the request, the response, or both (call `next` to reach the upstream). */
  rewrite(req: ProxyRequest, ctx: FaultContext, next: Next): Promise<ProxyResponse>;
}

/** Bindings a control needs the suite to be run with (the `bindings:` section of a config file). */
type ControlBindings = Record<string, unknown>;

/**
 * A control: a behaviour the specification allows but the reference server does not show. The
 * suite must still pass every core requirement through it (a failure is a false alarm of the
 * suite, to be fixed in the suite, the bindings or the generic checks, never in the control).
 */
export interface Control {
  /** kebab-case, unique among faults and controls */
  name: string;
  area: Area;
  /** One line: the allowed behaviour being imitated. */
  description: string;
  /** Why it is allowed: the sentence of spec/interface-spec.md (quoted, with its section). */
  allowedBy: string;
  /** The `x-implementation-defined` markers of spec/openapi.yaml the control exercises (names or pointers). */
  markers?: string[];
  /**
   * Requirement IDs or prefixes whose suite files run through the control (default: every core file).
   * Every core requirement of those files that passes on the plain reference must still pass.
   */
  select?: string[];
  /** Bindings the suite is run with (runConformance's `bindings` option, as a config file's `bindings:`). */
  config?: { bindings: ControlBindings };
  /** Extra command-line flags of the reference server behind the proxy (a setting a rewrite cannot imitate). */
  serverFlags?: string[];
  /** The imitation (default: none, the server flags alone make the difference). */
  rewrite?(req: ProxyRequest, ctx: FaultContext, next: Next): Promise<ProxyResponse>;
  /**
   * How the run is judged. Default: every requirement that passed in the baseline passes again.
   * `state-endpoint` (a control of the provider-state endpoint, not of the interface): such a
   * requirement may also end not-applicable or precondition-failed when its tests name a provider
   * state as the reason (judge-state-endpoint.ts); never failed, blocked or error.
   * `undocumented-part` (a control that refuses an undocumented part a binding names): such a
   * requirement may also end not-applicable when its tests name that binding as the reason
   * (judge-undocumented-part.ts).
   */
  judge?: 'state-endpoint' | 'undocumented-part';
  /** How long the rewrite holds an outcome back (a slow but allowed service): any test of the run
   * may wait that long, which the baseline's test times do not show. The runner counts it into the
   * run's expected cost, so the run starts early instead of last (runner/select.ts expectedCost). */
  delaysMs?: number;
}
