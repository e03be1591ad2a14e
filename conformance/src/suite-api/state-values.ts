// A setup answer as the test sees it: every value is validated against its schema when the test
// reads it (spec/provider-states.yaml, "Versions and negotiation"), so a missing or mistyped value
// ends only the tests that use it, and no request is ever built from an undefined or empty value.
//   present and valid            the value
//   present and not valid        precondition-failed, naming the state, the value and its x-since
//   newer than declared          not-applicable: the test needs a newer protocol (even if present)
//   absent, required             precondition-failed
//   absent, optional             undefined (the test decides; most end not-applicable)
import { NotApplicableError, PreconditionFailedError } from '../errors.js';
import { compareVersions, loadProtocol, type ProtocolNeed } from './protocol.js';

/** A NotApplicableError for a want of a newer protocol (the report counts these apart). */
export class ProtocolNeedError extends NotApplicableError {
  constructor(
    readonly need: ProtocolNeed,
    readonly declared: string,
  ) {
    super(
      `needs provider-state protocol ${need.since}: ${need.what} (the endpoint declares ${declared}; it must declare ${need.since} and support that to run this test)`,
    );
  }
}

/** Where the value of a state answer was read: `<state>.<value>`. */
export type UseRecorder = (use: string) => void;

function shown(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 80)}...` : s;
}

/** The answer `values` of `state`, guarded for the protocol `version` the endpoint declared. */
export function guardedValues<T extends Record<string, unknown>>(
  state: string,
  values: T,
  version: string,
  onUse?: UseRecorder,
): T {
  const c = loadProtocol().states.get(state);
  if (!c) return values;
  return new Proxy(values, {
    get(target, key, receiver) {
      if (typeof key !== 'string') return Reflect.get(target, key, receiver);
      const v = c.values.get(key);
      if (!v) return Reflect.get(target, key, receiver);
      // the declaration itself: absent means 1.0.0, never a want of a newer protocol
      if (key === 'protocol' && target[key] === undefined) return undefined;
      onUse?.(`${state}.${key}`);
      // never relied on when newer than the endpoint declared, even if it is there
      if (compareVersions(v.since, version) > 0)
        throw new ProtocolNeedError({ since: v.since, what: `value \`${key}\` of \`${state}\`` }, version);
      const has = Object.hasOwn(target, key) && target[key] !== undefined;
      if (has) {
        const value = target[key];
        if (v.validate(value)) return value;
        const why = (v.validate.errors ?? []).map((e) => `${e.instancePath || ''} ${e.message}`.trim()).join('; ');
        throw new PreconditionFailedError(
          `provider state '${state}' answered ${shown(value)} for the value \`${key}\` (since ${v.since}), which ${why || 'is not valid'}`,
        );
      }
      if (v.required)
        throw new PreconditionFailedError(
          `provider state '${state}' answered no \`${key}\`, a required value (since ${v.since})`,
        );
      return undefined;
    },
  });
}
