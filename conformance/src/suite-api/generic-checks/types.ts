// What the generic checks work on and what they report: the exchange as the client recorded it, the
// violations (failures of a GEN requirement) and the findings (what the implementation-defined
// profile looks at; never a core failure).
import type { OperationMatch } from '../../spec/openapi.js';
import type { Bindings } from '../../model/bindings.js';

/** The requirements the generic checks enforce, one named check each (checks.ts). */
export type GenericCode = 'GEN-001' | 'GEN-002';

export interface Violation {
  code: GenericCode;
  message: string;
  /**
   * 'implementation-defined': the body is valid in the core view and only the full document (the
   * reference's choices) refuses it; reported so by the 'full' view only. Such a violation fails
   * the implementation-defined test it occurs in and never counts against GEN-002 itself.
   */
  level?: 'implementation-defined';
  /**
   * The requirement of its own that governs the broken part (an answer's envelope, envelopes.ts):
   * judged by that requirement's test on each operation, so the violation fails that test, blocks
   * the other tests by that requirement, and is not counted against GEN-002 as well (one cause,
   * one red line).
   */
  owner?: string;
  /**
   * The requirements whose constraints the body breaks: the provenance of the schema nodes that
   * refused it (violation-provenance.ts), each a requirement that states the constraint itself. The
   * violation is theirs, not GEN-002's as well (one cause, one red line): a test of one of them is
   * about that shape (its own failure); any other test meets the shape as a step it relies on and is
   * blocked by them; the generic results count it against them (report/generic-results.ts).
   */
  requirements?: string[];
}

export interface Finding {
  kind:
    | 'undocumented-status'
    | 'implementation-defined-schema'
    | 'implementation-defined-property'
    | 'implementation-defined-not-json'
    | 'unknown-operation'
    /** an undocumented part a binding names (a column, a field) refused or left out: t.undocumentedRefused */
    | 'undocumented-part-refused'
    /** a not-shown shape (the domain list's envelope, the total count's place) recognised from the answer, not from the bindings */
    | 'not-shown-shape-recognised';
  operationId?: string;
  method: string;
  url: string;
  status: number;
  message: string;
}

export interface CheckInput {
  method: string;
  /** Full URL (for messages). */
  url: string;
  /** Path relative to the base URL, starting with `/`. */
  path: string;
  status: number;
  contentType: string | null;
  bodyText: string;
  /** Response headers, lower-case names (a binding may move a part into one: totalCountHeader). */
  headers?: Record<string, string>;
  /** The run's bindings: a choice declared through one is never a finding (bound-choices.ts). */
  bindings?: Bindings;
}

export interface CheckResult {
  operation?: OperationMatch;
  /** Which generic requirements were checked on this exchange. */
  checked: GenericCode[];
  violations: Violation[];
  findings: Finding[];
}

/** Which document bodies are validated against: the core view (core profile) or the full document. */
export type SchemaView = 'core' | 'full';
