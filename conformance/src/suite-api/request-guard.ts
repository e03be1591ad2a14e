// The suite's own requests are checked before they go out (issue 19, item 7): a request built from
// an undefined, null or empty value (an ID `undefined` in the path, `columns=,LocationName` from a
// missing field name) is the suite's mistake, not the implementation's. Sending it would make the
// implementation's refusal look like a failure of the interface; the test ends `error` instead, with
// the cause. A core test's requests also stay on the documented surface (issue 21, item 3): a query
// parameter the document does not declare for the operation (or marks implementation-defined) is
// sent only under a name the bindings give.
import { SuiteRequestError } from '../model/errors.js';
import type { OpenApiIndex } from '../spec/openapi.js';

const BAD_WORD = /^(undefined|null|NaN|\[object Object\])$/;

/** Why `url` was built from a missing value (undefined: it looks whole). */
export function missingValueIn(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const segment = u.pathname.split('/').find((s) => BAD_WORD.test(decodeURIComponent(s)));
  if (segment !== undefined) return `the path holds the segment '${segment}'`;
  for (const [k, v] of u.searchParams) {
    if (BAD_WORD.test(v)) return `the query parameter ${k} is '${v}'`;
    if (k === 'columns' && v !== '' && v.split(',').some((c) => c.trim() === ''))
      return `the column list '${v}' has an empty name`;
  }
  return undefined;
}

/** Throws the error that ends the test (`error`) when the suite built `url` from a missing value. */
export function guardSuiteRequest(method: string, url: string): void {
  const why = missingValueIn(url);
  if (why)
    throw new SuiteRequestError(
      `the suite built ${method} ${url} from a missing value (${why}); not sent: this is a fault of the suite or of a provider-state answer it did not check, not of the implementation`,
    );
}

/**
 * The query parameters a core request may send to `operation`: the ones the document declares for it
 * without the x-implementation-defined marker (what the spec documents), and the names the bindings
 * give (the vendor's names for what the spec leaves unnamed: the start offset, the filter, the
 * total count, ...). The core profile sends nothing else (issue 21, item 3).
 */
export interface RequestSurface {
  /** The operation `method path` (relative to the base URL) addresses, with its documented query
   * parameter names; undefined: no operation. */
  documentedQuery(method: string, path: string): { operationId: string; names: ReadonlySet<string> } | undefined;
  /** Every name the run's bindings give (parameter names among them). */
  bindingNames: ReadonlySet<string>;
}

/** Why a core request leaves the documented surface (undefined: it stays on it). */
export function undocumentedPartIn(
  surface: RequestSurface,
  method: string,
  url: string,
  path: string,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const op = surface.documentedQuery(method, path);
  if (!op) return undefined; // not an operation of the document: the generic checks report it
  for (const name of new Set(u.searchParams.keys()))
    if (!op.names.has(name) && !surface.bindingNames.has(name))
      return `the query parameter '${name}' is neither documented for ${op.operationId} nor named by a binding`;
  return undefined;
}

/** Throws the error that ends a core test (`error`) when its request leaves the documented surface. */
export function guardCoreSurface(surface: RequestSurface, method: string, url: string, path: string): void {
  const why = undocumentedPartIn(surface, method, url, path);
  if (why)
    throw new SuiteRequestError(
      `a core test built ${method} ${url}, which uses an undocumented part of the interface (${why}); not sent: core requests use only what the spec documents and what the bindings name, so this is a fault of the suite`,
    );
}

/**
 * The documented surface of `index` for a run with `bindings`: each operation's query parameters
 * without the marker, and every name the bindings give.
 */
export function documentedSurface(index: OpenApiIndex, bindings: object): RequestSurface {
  const bindingNames = new Set<string>();
  const collect = (v: unknown): void => {
    if (typeof v === 'string') bindingNames.add(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) collect(x);
  };
  collect(bindings);
  const byTemplate = new Map<string, ReadonlySet<string>>();
  return {
    bindingNames,
    documentedQuery: (method, path) => {
      const op = index.match(method, path);
      if (!op) return undefined;
      const key = `${op.method} ${op.pathTemplate}`;
      let names = byTemplate.get(key);
      if (!names) byTemplate.set(key, (names = index.documentedQueryParameters(op)));
      return { operationId: op.operationId, names };
    },
  };
}
