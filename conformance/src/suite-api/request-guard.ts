// The suite's own requests are checked before they go out (issue 19, item 7): a request built from
// an undefined, null or empty value (an ID `undefined` in the path, `columns=,LocationName` from a
// missing field name) is the suite's mistake, not the implementation's. Sending it would make the
// implementation's refusal look like a failure of the interface; the test ends `error` instead, with
// the cause.
import { SuiteRequestError } from '../errors.js';

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
