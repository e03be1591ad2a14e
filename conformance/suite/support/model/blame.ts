// Which requirement a failed check of the model judges. The oracle knows it: every check of a step
// names the requirement whose property it verifies, and a failure carries that ID. The model-based
// test then fails that one requirement and blocks the others it covers (they were not judged past
// the failure): one bug, one red line, instead of every requirement the model covers.
import { BlockedError } from '../../../src/suite-api/dsl.js';

const BLAMED = new WeakMap<object, string>();

/**
 * Runs a check of the model; a failure of it is blamed on `requirement` (the first blame stays; a
 * BlockedError already names the requirement whose step broke, and keeps it).
 */
export function judged<T>(requirement: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e && typeof e === 'object' && !BLAMED.has(e) && !(e instanceof BlockedError)) BLAMED.set(e, requirement);
    throw e;
  }
}

/** The requirement a failure was blamed on: by a check of the model, or by the step that blocked. */
export function blamed(e: unknown): string | undefined {
  if (e instanceof BlockedError) return e.requirement;
  return e && typeof e === 'object' ? BLAMED.get(e) : undefined;
}

/**
 * Whether fast-check called a run failed only because its time limit interrupted it before any
 * sequence ended (it counts that as a failure): a slow target, no verdict on the interface either way.
 */
export function interruptedUnjudged(out: { failed: boolean; interrupted: boolean; counterexample: unknown }): boolean {
  return out.failed && out.interrupted && out.counterexample === null;
}
