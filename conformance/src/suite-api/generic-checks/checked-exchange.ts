// One recorded exchange as every generic check sees it: the request and response, the operation and
// documented response they belong to, and the body parsed once.
import type { ValidateFunction } from 'ajv';
import type { OperationMatch, ResponseSpec } from '../../spec/openapi.js';
import type { CheckInput, SchemaView } from './types.js';

export interface CheckedExchange {
  input: CheckInput;
  /** The operation the request addresses; undefined when no operation of the spec matches. */
  operation?: OperationMatch;
  /** The documented response of the operation for the status; undefined when undocumented. */
  response?: ResponseSpec;
  /** `METHOD url → status (operationId)`: how every message names the exchange. */
  where: string;
  body: ParsedBody;
  /** The checker's view: 'core' (core profile) or 'full' (implementation-defined profile). */
  view: SchemaView;
  /** The compiled validator of a schema (a JSON pointer) of the core view or of the full document. */
  validator(doc: SchemaView, pointer: string): ValidateFunction;
}

interface ParsedBody {
  /** Nothing but white space. */
  empty: boolean;
  /** Set when the non-empty body parses as JSON. */
  json?: { value: unknown };
  /** Why a non-empty body does not parse as JSON. */
  parseError?: string;
}

export function parseBody(text: string): ParsedBody {
  if (text.trim().length === 0) return { empty: true };
  try {
    return { empty: false, json: { value: JSON.parse(text) } };
  } catch (e) {
    return { empty: false, parseError: (e as Error).message };
  }
}
