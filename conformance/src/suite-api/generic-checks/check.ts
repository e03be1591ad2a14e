// What a generic check is: a named function for one requirement, run on every exchange.
import type { CheckedExchange } from './checked-exchange.js';
import type { CheckResult, GenericCode } from './types.js';

export interface GenericCheck {
  /** The requirement of spec/requirements.yaml the check enforces. */
  requirement: GenericCode;
  /** A short snake_case name (shown in the docs; stable). */
  name: string;
  /** One line: what the check asserts. */
  description: string;
  /** Checks one exchange: adds what it checked, the violations and the findings to `out`. */
  run(x: CheckedExchange, out: CheckResult): void;
}
