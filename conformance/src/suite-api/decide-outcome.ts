// The outcome of one test, decided once: from what its body threw (or not) and the violations the
// generic checks found in its exchanges. The reports (report/test-result.ts) read the outcome the
// DSL records from this; nothing else decides it.
//
// Violations: those of the test's own concern fail it (a reference choice refused in an
// implementation-defined test, GEN-00x named by the test, a broken envelope whose owner the test
// names, or a schema constraint whose provenance is a requirement of the test); the others block
// it: GEN-001/GEN-002, the envelope owners and the requirements that state a broken constraint fail
// on their own (synthetic results per file, report/generic-results.ts).
import { BlockedError, GenericCheckError } from '../model/errors.js';
import { classifyError, type TestOutcome } from '../model/outcome.js';
import type { Violation } from './generic-checks/types.js';

export type Decision =
  | { outcome: 'passed' }
  | { outcome: 'blocked'; error: BlockedError }
  | { outcome: Exclude<TestOutcome, 'passed' | 'blocked'>; error: unknown };

const text = (list: Violation[]) => list.map((v) => v.message).join('\n');

/**
 * The BlockedError for a test whose exchanges the generic checks refused (root: GEN-001/GEN-002, or
 * the requirement that owns a broken envelope).
 */
function blockedByViolation(violations: Violation[]): BlockedError {
  const owned = violations.find((v) => v.owner);
  const stated = violations.find((v) => v.requirements?.length);
  const code = owned?.owner ?? stated?.requirements?.[0] ?? violations[0]!.code;
  const step = owned
    ? "a response the test relies on has a broken envelope (the answer's outer object)"
    : stated
      ? `a response the test relies on breaks the documented shape that ${code} states`
      : `a response the test relies on is ${code === 'GEN-001' ? 'not JSON' : 'not valid against its documented schema'}`;
  return new BlockedError(code, step, [`blocked by ${code}: ${step}`, ...violations.map((v) => v.message)].join('\n'));
}

/**
 * Own only through provenance, in a test of more requirements than the shape's: the broken shape is
 * the statement of the requirement(s) it names, not of the test's others. That one fails (the report
 * turns a block by one of the test's own requirements into its failure, as judgedAlone does) and the
 * others are left unjudged past it. Undefined when the test's violations are its own otherwise.
 */
function shapeRequirement(requirements: string[], own: Violation[]): string | undefined {
  const named = new Set(own.flatMap((v) => (v.requirements ?? []).filter((r) => requirements.includes(r))));
  const onlyByProvenance = own.every(
    (v) =>
      v.level !== 'implementation-defined' && (!!v.requirements?.length || !requirements.includes(v.owner ?? v.code)),
  );
  const r = [...named].sort()[0];
  return onlyByProvenance && r && requirements.length > named.size ? r : undefined;
}

function judgedAloneByShape(r: string, own: Violation[]): BlockedError {
  return new BlockedError(
    r,
    `the documented shape of an answer (its constraints are ${r}'s)`,
    [`blocked by ${r}: an answer breaks the documented shape that ${r} states`, ...own.map((v) => v.message)].join(
      '\n',
    ),
  );
}

/** The outcome of a test of `requirements` whose body threw `thrown` (undefined: it returned). */
export function decideOutcome(requirements: string[], violations: Violation[], thrown: unknown): Decision {
  // a violation with provenance is its requirements' own, not GEN-002's (types.ts)
  const own = violations.filter((v) =>
    v.level === 'implementation-defined'
      ? true
      : v.requirements?.length
        ? v.requirements.some((r) => requirements.includes(r))
        : requirements.includes(v.owner ?? v.code),
  );
  const blocking = violations.filter((v) => !own.includes(v));
  const shape = own.length > 0 ? shapeRequirement(requirements, own) : undefined;
  if (thrown !== undefined) {
    const err = thrown as Error;
    const outcome = classifyError(err);
    if (violations.length > 0 && err && typeof err === 'object' && typeof err.message === 'string') {
      try {
        err.message = `${err.message}\n${text(violations)}`;
      } catch {
        /* read-only message */
      }
    }
    // a failure inside t.needs arrives here as a BlockedError (outcome 'blocked'); a broken shape
    // met on the way comes first, as for a failed assertion: the step, or an oracle's blame, read
    // answers whose shape is broken (a link row with IDs as strings is not the row a model expects)
    const judged = outcome === 'failed' || thrown instanceof BlockedError;
    if (judged && shape) return { outcome: 'blocked', error: judgedAloneByShape(shape, own) };
    // An assertion that fails on answers whose documented shape is broken, where the shape is not
    // the test's own, rests on a step the generic check already failed at its root: one cause, one
    // red line, the test is blocked by it. An assertion that fails with only its own violations,
    // or none, fails the test.
    if (judged && blocking.length > 0 && own.length === 0) {
      const b = blockedByViolation(blocking);
      b.message = `${b.message}\nthe test's own assertion, not judged past the broken shape: ${String(err?.message).split('\n')[0]}`;
      return { outcome: 'blocked', error: b };
    }
    if (thrown instanceof BlockedError) return { outcome: 'blocked', error: thrown };
    return { outcome: outcome as Exclude<TestOutcome, 'passed' | 'blocked'>, error: thrown };
  }
  if (shape) return { outcome: 'blocked', error: judgedAloneByShape(shape, own) };
  if (own.length > 0) return { outcome: 'failed', error: new GenericCheckError(text(own)) };
  if (blocking.length > 0) return { outcome: 'blocked', error: blockedByViolation(blocking) };
  return { outcome: 'passed' };
}
