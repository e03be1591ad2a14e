// Error classes whose `name` decides how a test's result is classified (see outcome.ts).

/** A provider state (or fixture) could not be set up: the test is `precondition-failed`, never a pass. */
export class PreconditionFailedError extends Error {
  override name = 'PreconditionFailedError';
}

/**
 * A step the test needs failed (`t.needs(requirement, step, fn)`, or a response shape the generic
 * checks refused): the test's requirements are `blocked` by `requirement`, not failed themselves.
 */
export class BlockedError extends Error {
  override name = 'BlockedError';
  constructor(
    readonly requirement: string,
    readonly step: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by `t.notApplicable(reason)`. */
export class NotApplicableError extends Error {
  override name = 'NotApplicableError';
  constructor(
    message: string,
    /** thrown as the test's last step, after every request it makes (t.notApplicable's afterEveryRequest) */
    readonly afterEveryRequest = false,
  ) {
    super(message);
  }
}

/** The target could not be reached: network error, timeout, connection refused. Result `error`. */
export class TargetError extends Error {
  override name = 'TargetError';
}

/** The suite built a request from a missing value (request-guard.ts): not sent; result `error`. */
export class SuiteRequestError extends Error {
  override name = 'SuiteRequestError';
}

/** Generic check violations ([GEN-001] / [GEN-002]) found in a test's exchanges. Result `failed`. */
export class GenericCheckError extends Error {
  override name = 'GenericCheckError';
}

/** The suite itself is wrong (unknown requirement ID, duplicate test id): exit 2. */
export class SuiteDefinitionError extends Error {
  override name = 'SuiteDefinitionError';
}

/** Bad options or configuration: exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The target or the harness failed (did not start, health never answered): exit 3. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

/** One line for an error and its cause (e.g. a fetch failure and the socket error under it). */
export function describeError(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause ? ` (${err.cause.code ?? err.cause.message ?? String(err.cause)})` : '';
  return `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}${cause}`;
}
