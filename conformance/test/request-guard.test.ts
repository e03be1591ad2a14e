// The suite never sends a request built from a missing value (issue 19, item 7).
import { describe, expect, it } from 'vitest';
import { guardSuiteRequest, missingValueIn } from '../src/suite-api/request-guard.js';
import { classifyError } from '../src/report/results.js';

describe('a request built from a missing value', () => {
  it.each([
    ['http://h/api/ProposalLocation/Query?columns=,LocationName', /column list ',LocationName' has an empty name/],
    ['http://h/api/ProposalLocation/Query?columns=A,,B', /empty name/],
    ['http://h/api/Claim/undefined', /segment 'undefined'/],
    ['http://h/api/undefined/Query', /segment 'undefined'/],
    ['http://h/api/Claim/Query?filter=null', /filter is 'null'/],
    ['http://h/api/Claim/NaN', /segment 'NaN'/],
  ])('%s is named as the suite’s own mistake', (url, why) => {
    expect(missingValueIn(url)).toMatch(why);
    let thrown: unknown;
    try {
      guardSuiteRequest('GET', url);
    } catch (e) {
      thrown = e;
    }
    expect(classifyError(thrown as Error)).toBe('error');
    expect((thrown as Error).message).toMatch(/not sent: this is a fault of the suite/);
  });

  it.each([
    'http://h/api/Claim/Query?columns=ClaimID,ClaimNumber',
    'http://h/api/Claim/Query?columns=',
    'http://h/api/Claim/12?columns=Notes%20as%20N',
    'http://h/api/Quotes/Proposals/5/BindStatus',
  ])('%s goes out', (url) => {
    expect(missingValueIn(url)).toBeUndefined();
    expect(() => guardSuiteRequest('GET', url)).not.toThrow();
  });
});
