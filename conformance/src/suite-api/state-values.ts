// A setup answer as the test sees it: every value is validated against its schema when the test
// reads it (spec/provider-states.yaml, "Versions and negotiation"), so a missing or mistyped value
// ends only the tests that use it, and no request is ever built from an undefined or empty value.
//   present and valid            the value
//   present and not valid        precondition-failed, naming the state, the value and its x-since
//   newer than declared          the value when the answer holds it, valid, and its meaning is the
//                                same in every version that has it (x-changelog names no change);
//                                else not-applicable: the test needs a newer protocol
//   absent, required             precondition-failed
//   absent, optional             undefined (the test decides; most end not-applicable), recorded as missing
import { NotApplicableError, PreconditionFailedError } from '../model/errors.js';
import { compareVersions, loadProtocol, meaningChanged, type ProtocolNeed } from './protocol.js';

/** A NotApplicableError for a want of a newer protocol (the report counts these apart). */
export class ProtocolNeedError extends NotApplicableError {
  constructor(
    readonly need: ProtocolNeed,
    readonly declared: string,
    /** Everything the test lacks that is known where it stopped (need first): the upgrade list's entry. */
    readonly lacks: ProtocolNeed[] = [need],
  ) {
    super(
      `needs provider-state protocol ${need.since}: ${need.what} (the endpoint declares ${declared}; it must declare ${need.since} and support that to run this test)${
        lacks.length > 1
          ? `; it also lacks ${lacks
              .slice(1)
              .map((l) => `${l.what} (${l.since})`)
              .join(', ')}`
          : ''
      }`,
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
  /** Called with `<state>.<value>` when an optional value the test reads is absent. */
  onMissing?: UseRecorder,
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
      const has = Object.hasOwn(target, key) && target[key] !== undefined;
      // newer than the endpoint declared: used when it is there, valid, and means what it meant in
      // every version that has it (the suite never reads a value whose meaning changed)
      if (compareVersions(v.since, version) > 0 && !(has && v.validate(target[key]) && !meaningChanged(state, key))) {
        const need = { since: v.since, what: `value \`${key}\` of \`${state}\`` };
        // what else of this state's newer values the answer lacks: one upgrade list entry names it all
        // (values that confirm a param are listed with their param, when the test sends it)
        const confirming = new Set([...c.params.values()].flatMap((p) => p.confirmedBy ?? []));
        const lacks = [...c.values.values()]
          .filter((o) => o.name !== 'protocol' && o.name !== key && !confirming.has(o.name))
          .filter((o) => compareVersions(o.since, version) > 0)
          .filter((o) => !(Object.hasOwn(target, o.name) && target[o.name] !== undefined))
          .map((o) => ({ since: o.since, what: `value \`${o.name}\` of \`${state}\`` }));
        throw new ProtocolNeedError(need, version, [need, ...lacks]);
      }
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
      onMissing?.(`${state}.${key}`);
      return undefined;
    },
  });
}
