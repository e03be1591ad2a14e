// The provider-state protocol as a versioned contract (spec/provider-states.yaml, "Versions and
// negotiation"): which version each state, param and value needs (`x-since`), which value confirms
// a param (`x-confirmed-by`), which refusal is allowed (`x-may-refuse`), and the validation of a
// setup answer value by value. Read from the generated JSON; nothing here names a state.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { SPEC_DIR } from '../paths.js';

type Schema = Record<string, any>;

interface ParamContract {
  name: string;
  since: string;
  required: boolean;
  default?: unknown;
  /** The values of the answer that show the param was honoured. */
  confirmedBy?: string[];
  /** Why a 400 to this param (with a value other than its default) is allowed. */
  mayRefuse?: string;
}

interface ValueContract {
  name: string;
  since: string;
  required: boolean;
  validate: ValidateFunction;
}

interface StateContract {
  name: string;
  since: string;
  params: Map<string, ParamContract>;
  values: Map<string, ValueContract>;
}

export interface ProtocolContract {
  /** The newest version this suite speaks (info.version). */
  version: string;
  states: Map<string, StateContract>;
  /** x-changelog: what each version added, and what a vendor must do. */
  changelog: Array<{
    version: string;
    summary?: string;
    added?: string[];
    /** `<state>: ...` entries naming (in backticks) params and values whose meaning changed. */
    changed?: string[];
    'vendor-must'?: string;
  }>;
}

/** The version every endpoint is taken to implement when it declares none. */
const BASE_PROTOCOL = '1.0.0';

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

function isVersion(v: unknown): v is string {
  return typeof v === 'string' && SEMVER.test(v);
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const x = SEMVER.exec(a)!.slice(1).map(Number);
  const y = SEMVER.exec(b)!.slice(1).map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

let cached: ProtocolContract | undefined;

/** The protocol of spec/generated/provider-states.json (once per process). */
export function loadProtocol(file = path.join(SPEC_DIR, 'generated', 'provider-states.json')): ProtocolContract {
  if (cached && file === path.join(SPEC_DIR, 'generated', 'provider-states.json')) return cached;
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Schema;
  const c = buildProtocol(doc);
  if (file === path.join(SPEC_DIR, 'generated', 'provider-states.json')) cached = c;
  return c;
}

/** The contract of a provider-state document (its JSON form). */
function buildProtocol(doc: Schema): ProtocolContract {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false });
  ajv.addSchema({ ...doc, $id: 'provider-states.json' }, 'provider-states.json');
  const schemas = doc.components.schemas as Record<string, Schema>;
  const deref = (s: Schema | undefined): Schema => {
    let cur = s ?? {};
    for (let i = 0; cur.$ref && i < 10; i++) cur = schemas[String(cur.$ref).split('/').pop()!] ?? {};
    return cur;
  };
  const refName = (s: Schema | undefined) =>
    String(s?.$ref ?? '')
      .split('/')
      .pop();
  const states = new Map<string, StateContract>();
  const op = doc.paths['/_provider-states'].post as Schema;
  for (const st of op['x-states'] as Schema[]) {
    const params = new Map<string, ParamContract>();
    const p = deref(st.params);
    for (const [name, ps] of Object.entries<Schema>(p.properties ?? {})) {
      if (name === 'setupId') continue;
      const d = deref(ps);
      params.set(name, {
        name,
        since: ps['x-since'] ?? d['x-since'] ?? BASE_PROTOCOL,
        required: (p.required ?? []).includes(name),
        ...(d.default !== undefined ? { default: d.default } : {}),
        ...(ps['x-confirmed-by'] ? { confirmedBy: [ps['x-confirmed-by']].flat().map(String) } : {}),
        ...(ps['x-may-refuse'] ? { mayRefuse: String(ps['x-may-refuse']).replace(/\s+/g, ' ').trim() } : {}),
      });
    }
    const values = new Map<string, ValueContract>();
    const vName = refName(st.values);
    const v = deref(st.values);
    for (const [name, vs] of Object.entries<Schema>(v.properties ?? {})) {
      values.set(name, {
        name,
        since: vs['x-since'] ?? deref(vs)['x-since'] ?? BASE_PROTOCOL,
        required: (v.required ?? []).includes(name),
        validate: ajv.compile({ $ref: `provider-states.json#/components/schemas/${vName}/properties/${name}` }),
      });
    }
    states.set(st.name, { name: st.name, since: st['x-since'] ?? BASE_PROTOCOL, params, values });
  }
  return { version: doc.info.version, states, changelog: doc.info['x-changelog'] ?? [] };
}

/** What a test needs of a newer protocol than the endpoint declared (the reason it did not run). */
export interface ProtocolNeed {
  /** The version that brought it. */
  since: string;
  /** `param \`touched\` of \`a file\`` */
  what: string;
}

/**
 * The version the suite uses with an endpoint that declared `declared` (undefined: none): the
 * declared one, capped at the suite's own within the same major version. A declaration of another
 * major version, or one that is not a version, is refused with the reason.
 */
export function negotiate(
  declared: unknown,
  suite: string = loadProtocol().version,
): { version: string } | { problem: string } {
  if (declared === undefined || declared === null) return { version: BASE_PROTOCOL };
  if (!isVersion(declared))
    return { problem: `the provider-state endpoint declared protocol ${JSON.stringify(declared)}, not a version` };
  if (SEMVER.exec(declared)![1] !== SEMVER.exec(suite)![1])
    return {
      problem: `the provider-state endpoint declared protocol ${declared}; this suite speaks ${suite.split('.')[0]}.x (up to ${suite})`,
    };
  return { version: compareVersions(declared, suite) > 0 ? suite : declared };
}

/** The params of `params` that are newer than `version`, as needs (unknown states and params: none). */
export function newerParams(state: string, params: Record<string, unknown>, version: string): ProtocolNeed[] {
  const c = loadProtocol().states.get(state);
  if (!c) return [];
  const out: ProtocolNeed[] = [];
  if (compareVersions(c.since, version) > 0) out.push({ since: c.since, what: `state \`${state}\`` });
  for (const [name, v] of Object.entries(params)) {
    const p = c.params.get(name);
    if (!p || v === undefined || compareVersions(p.since, version) <= 0) continue;
    if (p.default !== undefined && JSON.stringify(p.default) === JSON.stringify(v)) continue;
    out.push({ since: p.since, what: `param \`${name}\` of \`${state}\`` });
  }
  return out;
}

/** `provider state 's' refused (400) its param \`x\``: the 400 to it is allowed (x-may-refuse), with the reason; else undefined. */
export function allowedRefusal(state: string, params: Record<string, unknown>): string | undefined {
  const c = loadProtocol().states.get(state);
  for (const p of c?.params.values() ?? []) {
    const v = params[p.name];
    if (!p.mayRefuse || v === undefined) continue;
    if (p.default !== undefined && JSON.stringify(p.default) === JSON.stringify(v)) continue;
    return `provider state '${state}' refused (400) its param \`${p.name}\` = ${JSON.stringify(v)}, as the protocol allows: ${p.mayRefuse}`;
  }
  return undefined;
}

/**
 * Why the value `by` does not confirm the param `p` sent as `sent` (undefined: it does). A count is
 * confirmed by a list of that length, a list of items by a list of as many, `true` by the presence of
 * a value of another name, anything else by an equal value.
 */
function unconfirmed(p: ParamContract, by: string, sent: unknown, got: unknown): string | undefined {
  const label = `param \`${p.name}\` (since ${p.since})`;
  const shown = JSON.stringify(got)?.slice(0, 120) ?? 'nothing';
  if (typeof sent === 'number' && by !== p.name)
    return Array.isArray(got) && got.length === sent
      ? undefined
      : `${label} = ${sent}, but the value \`${by}\` holds ${Array.isArray(got) ? got.length : shown}`;
  if (Array.isArray(sent) && sent.some((x) => typeof x === 'object'))
    return Array.isArray(got) && got.length === sent.length
      ? undefined
      : `${label} has ${sent.length} items, but the value \`${by}\` holds ${Array.isArray(got) ? got.length : shown}`;
  if (sent === true && by !== p.name)
    return got === undefined || got === null ? `${label} = true, but the answer has no \`${by}\`` : undefined;
  return JSON.stringify(got) === JSON.stringify(sent)
    ? undefined
    : `${label} = ${JSON.stringify(sent).slice(0, 120)} was not confirmed: the value \`${by}\` is ${shown}`;
}

/** The values that confirm the params of `params` (x-confirmed-by of each param sent, not at its default). */
export function confirmingValues(state: string, params: Record<string, unknown>): string[] {
  const c = loadProtocol().states.get(state);
  return [...(c?.params.values() ?? [])]
    .filter((p) => p.confirmedBy && params[p.name] !== undefined && params[p.name] !== false)
    .filter((p) => p.default === undefined || JSON.stringify(p.default) !== JSON.stringify(params[p.name]))
    .flatMap((p) => p.confirmedBy!);
}

/**
 * Whether the answer honoured every param that shapes the fixture (x-confirmed-by): a problem per
 * param that it did not. A param at its default (or false) needs no confirmation.
 */
export function unconfirmedParams(
  state: string,
  params: Record<string, unknown>,
  values: Record<string, unknown>,
): string[] {
  const c = loadProtocol().states.get(state);
  const out: string[] = [];
  for (const p of c?.params.values() ?? []) {
    const sent = params[p.name];
    if (!p.confirmedBy || sent === undefined || sent === false) continue;
    if (p.default !== undefined && JSON.stringify(p.default) === JSON.stringify(sent)) continue;
    for (const by of p.confirmedBy) {
      const problem = unconfirmed(p, by, sent, values[by]);
      if (problem) out.push(problem);
    }
  }
  return out;
}

/**
 * Whether x-changelog says the meaning of `name` (a value or param of `state`) changed in some
 * version: an entry of a version's `changed` list that starts with the state's name and names it in
 * backticks. Such a value is never read from an endpoint that declared an older version.
 */
export function meaningChanged(state: string, name: string): boolean {
  return loadProtocol().changelog.some((v) =>
    (v.changed ?? []).some((e) => e.startsWith(`${state}:`) && e.includes(`\`${name}\``)),
  );
}
