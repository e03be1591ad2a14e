// The provider-state protocol version this endpoint speaks (spec/provider-states.yaml, "Versions and
// negotiation"), and the modes that make it answer like an endpoint of another version. The modes
// exist for the suite's controls: a vendor's endpoint of protocol 1.0.0, or one that declares 1.1.0
// but supports only what is required, must never make the suite blame the interface.
import { readFileSync } from 'node:fs';
import { findSpecFile } from '../validation.js';

export const STATE_MODES = ['full', '1.0.0', 'minimal'] as const;
/**
 * - `full`: the newest protocol, every param honoured, every value answered, `protocol` declared.
 * - `1.0.0`: an endpoint of the first published protocol: no `protocol` value, params and values
 *   newer than 1.0.0 ignored and left out, `records` in creation order with the sparse value on the
 *   first record, for Claim only (the domains the suite asks for later are refused with 400).
 * - `minimal`: declares the newest protocol but supports only what it requires: optional params
 *   newer than 1.0.0 are ignored, optional values are left out.
 *
 * REFERENCE_PROVIDER_STATES_VALUES (a comma list of value names, e.g. `scheduleKey,scheduleFilter`)
 * makes the `1.0.0` mode answer those newer values anyway, still declaring no version: an endpoint
 * that added values as the suite asked for them before the protocol had versions (the suite's
 * controls and tests of conformance/README.md section 6, "newer values without a declaration").
 */
export type StateMode = (typeof STATE_MODES)[number];

const FIRST_VERSION = '1.0.0';

type Json = Record<string, any>;

interface StateShape {
  /** params newer than 1.0.0 */
  newerParams: Set<string>;
  /** values newer than 1.0.0 */
  newerValues: Set<string>;
  /** values the answer must carry */
  requiredValues: Set<string>;
  /** param → the values that confirm it was honoured (x-confirmed-by) */
  confirmedBy: Map<string, string[]>;
}

interface ProtocolShape {
  version: string;
  states: Map<string, StateShape>;
}

let loaded: ProtocolShape | undefined;

/** The version and the per-state params and values of spec/generated/provider-states.json. */
function protocolShape(): ProtocolShape {
  if (loaded) return loaded;
  const file = findSpecFile('generated/provider-states.json');
  if (!file) throw new Error('spec/generated/provider-states.json not found (run `npm run generate`)');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const deref = (s: Json | undefined): Json => {
    let cur = s ?? {};
    while (typeof cur.$ref === 'string') {
      cur = (cur.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o?.[k], doc);
    }
    return cur;
  };
  const sinceOf = (prop: Json): string => String(prop['x-since'] ?? deref(prop)['x-since'] ?? FIRST_VERSION);
  const newer = (schema: Json): Set<string> =>
    new Set(
      Object.entries((schema.properties ?? {}) as Record<string, Json>)
        .filter(([, p]) => sinceOf(p) !== FIRST_VERSION)
        .map(([k]) => k),
    );
  const states = new Map<string, StateShape>();
  const op = doc.paths['/_provider-states'].post as Json;
  for (const s of op['x-states'] as Array<{ name: string; params?: Json; values?: Json }>) {
    const params = deref(s.params);
    const values = deref(s.values);
    states.set(s.name, {
      newerParams: newer(params),
      newerValues: newer(values),
      requiredValues: new Set((values.required ?? []) as string[]),
      confirmedBy: new Map(
        Object.entries((params.properties ?? {}) as Record<string, Json>)
          .filter(([, p]) => p['x-confirmed-by'] !== undefined)
          .map(([k, p]) => [k, ([] as string[]).concat(p['x-confirmed-by'] as string | string[])]),
      ),
    });
  }
  loaded = { version: String(doc.info.version), states };
  return loaded;
}

/** The params a setup acts on in this mode: `1.0.0` and `minimal` do not know the newer ones. */
export function paramsFor(mode: StateMode, state: string, params: Record<string, unknown>): Record<string, unknown> {
  if (mode === 'full') return params;
  const shape = protocolShape().states.get(state);
  if (!shape) return params;
  return Object.fromEntries(Object.entries(params).filter(([k]) => !shape.newerParams.has(k)));
}

/**
 * The answer of a setup in this mode, with the `protocol` declaration where the mode makes one.
 * `params` are the ones the setup acted on: `minimal` keeps the values that confirm them (the
 * protocol asks for that) and the required ones, and leaves out every other optional value.
 */
export function answerFor(
  mode: StateMode,
  state: string,
  params: Record<string, unknown>,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const { version, states } = protocolShape();
  const shape = states.get(state);
  if (mode === 'full') return { protocol: version, ...values };
  if (mode === 'minimal') {
    const confirming = new Set(
      Object.keys(params).flatMap((k) => (params[k] === undefined ? [] : (shape?.confirmedBy.get(k) ?? []))),
    );
    const kept = Object.entries(values).filter(([k]) =>
      shape ? shape.requiredValues.has(k) || confirming.has(k) : true,
    );
    return { protocol: version, ...Object.fromEntries(kept) };
  }
  const kept = keptNewerValues();
  return Object.fromEntries(
    Object.entries(values).filter(([k]) => kept.has(k) || !(shape?.newerValues.has(k) ?? false)),
  );
}

/** REFERENCE_PROVIDER_STATES_VALUES: the newer values the `1.0.0` mode answers anyway. */
function keptNewerValues(): Set<string> {
  const raw = process.env.REFERENCE_PROVIDER_STATES_VALUES ?? '';
  return new Set(
    raw
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  );
}
