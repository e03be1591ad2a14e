// The suite never sends a request built from a missing value (issue 19, item 7).
import { describe, expect, it } from 'vitest';
import {
  documentedSurface,
  guardCoreSurface,
  guardSuiteRequest,
  missingValueIn,
  undocumentedPartIn,
} from '../src/suite-api/request-guard.js';
import { defaultBindings } from '../src/model/bindings.js';
import { loadOpenApi } from '../src/spec/openapi.js';
import { classifyError } from '../src/model/outcome.js';

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

describe('a core request off the documented surface', () => {
  const index = loadOpenApi();
  const surface = documentedSurface(index, defaultBindings);
  const renamed = documentedSurface(index, { ...defaultBindings, query: { ...defaultBindings.query, skip: 'offset' } });
  const why = (s: typeof surface, url: string) => undocumentedPartIn(s, 'GET', url, new URL(url).pathname);

  it('documented parameters and the names of the bindings pass', () => {
    expect(why(surface, 'http://h/api/Claim/Query?columns=ClaimID&take=5&sort=ClaimID%20desc')).toBeUndefined();
    expect(
      why(surface, 'http://h/api/Link/Query?childDomain=Contact&childRecordID=4&parentDomain=Claim'),
    ).toBeUndefined();
    // the start offset is not named by the spec: sent under the binding's name
    expect(why(surface, 'http://h/api/Claim/Query?skip=10')).toBeUndefined();
    expect(why(renamed, 'http://h/api/Claim/Query?offset=10')).toBeUndefined();
  });

  it('a parameter neither documented nor bound is the suite’s own mistake', () => {
    expect(why(surface, 'http://h/api/Claim/Query?pageSize=10')).toMatch(
      /query parameter 'pageSize' is neither documented for queryRecords nor named by a binding/,
    );
    // the reference's name for the start offset, when the vendor's binding names another
    expect(why(renamed, 'http://h/api/Claim/Query?skip=10')).toMatch(/'skip'/);
    let thrown: unknown;
    try {
      guardCoreSurface(surface, 'GET', 'http://h/api/Link/Query?limit=3', '/api/Link/Query');
    } catch (e) {
      thrown = e;
    }
    expect(classifyError(thrown as Error)).toBe('error');
    expect((thrown as Error).message).toMatch(/undocumented part of the interface .* fault of the suite/);
  });

  it('a path outside the document is left to the generic checks', () => {
    expect(why(surface, 'http://h/health?x=1')).toBeUndefined();
  });
});
