// Method-aware route resolution (405 + Allow) and the bound of integer IDs (2^53 - 1): findings
// of a schema-based fuzzing run of the spec against the reference.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('an undeclared method on a declared path', () => {
  it.each([
    ['GET', '/api/Link/Upsert', 'POST'],
    ['GET', '/api/Link/Remove', 'POST'],
    ['POST', '/api/Link/Query', 'GET, HEAD'],
    ['PUT', '/api/Claim/1', 'GET, HEAD'],
    ['DELETE', '/api/Claim/1', 'GET, HEAD'],
    ['PATCH', '/api/Domains', 'GET, HEAD'],
    ['POST', '/api/Claim/Query', 'GET, HEAD'],
    ['POST', '/api/File/7', 'GET, HEAD'],
    ['GET', '/api/Quotes/Proposals/1/BindQuote', 'POST'],
    ['POST', '/api/Quotes/Proposals/1/Schedules/ProposalLocation/5', 'DELETE'],
    ['GET', '/api/Quotes/Proposals/1/Schedules/ProposalLocation/UpsertMulti', 'POST'],
    ['GET', '/Authentication/Authenticate', 'POST'],
  ])('%s %s answers 405 with Allow: %s and a problem body', async (method, path, allow) => {
    const r = await h.call(method, path);
    expectProblem(r, 405, 'MethodNotAllowed');
    expect(r.headers.get('allow')).toBe(allow);
    expect(r.json.detail).toContain(path);
  });

  it('is answered before authentication and changes nothing', async () => {
    const before = h.count('Claim');
    const r = await h.call('DELETE', '/api/Claim/1', { token: null });
    expect(r.status).toBe(405);
    expect(h.count('Claim')).toBe(before);
  });

  it('route resolution is method-aware: the literal path wins, never read as domain Link', async () => {
    const r = await h.get('/api/Link/Upsert');
    expect(r.json.detail).not.toMatch(/Unknown domain/);
    expect(r.status).toBe(405);
  });

  it('declared methods still reach their routes; unknown paths stay 404', async () => {
    expect((await h.get('/api/Domains')).status).toBe(200);
    expect((await h.call('HEAD', '/api/Domains')).status).toBe(200);
    expectProblem(await h.get('/api/Claim/999999'), 404, 'RecordNotFound');
    expectProblem(await h.get('/api/Claim/1/Nope'), 404, 'NotFound');
    expectProblem(await h.call('PUT', '/no/such/path'), 404, 'NotFound');
  });
});

describe('integer IDs and parameters beyond 2^53 - 1', () => {
  it('a record ID of 16 digits within the bound is an ID like any other (404 when no record has it)', async () => {
    expectProblem(await h.get('/api/Claim/9007199254740991'), 404, 'RecordNotFound');
    expectProblem(await h.get('/api/Claim/1234567890123456'), 404, 'RecordNotFound');
  });

  it('an ID beyond the bound is refused naming the bound (not a bare "must be an integer")', async () => {
    for (const path of [
      '/api/Claim/9007199254740992',
      '/api/Claim/12345678901234567890',
      `/api/Claim/${'9'.repeat(400)}`,
      '/api/Claim/12345678901234567890/Files',
      '/api/File/12345678901234567890',
      '/api/Quotes/Proposals/12345678901234567890/BindStatus',
    ]) {
      const r = await h.get(path);
      expectProblem(r, 400, 'MalformedRequest');
      expect(r.json.detail, path).toMatch(/must be an integer from -9007199254740991 to 9007199254740991/);
    }
    // an unknown domain is still named first
    expectProblem(await h.get('/api/NoSuchDomain/12345678901234567890'), 404, 'UnknownDomain');
  });

  it('an integer query parameter beyond the bound is refused naming the bound', async () => {
    const r = await h.get('/api/Claim/Query?skip=99999999999999999999');
    expectProblem(r, 400, 'MalformedRequest');
    expect(r.json.detail).toContain('9007199254740991');
  });

  it('link IDs beyond the bound (body and Link/Query) are refused naming the bound, and nothing changes', async () => {
    // the bound is the minimum/maximum of the ID schemas in spec/openapi.yaml, which the reference
    // validates link bodies and query parameters against
    const before = h.count('links');
    for (const op of ['Upsert', 'Remove']) {
      const r = await h.call('POST', `/api/Link/${op}`, {
        raw: '{"ParentDomain":"Claim","ParentRecordID":12345678901234567890,"ChildDomain":"Contact","ChildRecordID":1}',
      });
      expectProblem(r, 400, 'MalformedRequest');
      expect(r.json.detail).toMatch(/ParentRecordID must be an integer from -9007199254740991 to 9007199254740991/);
    }
    expect(h.count('links')).toBe(before);
    const q = await h.get('/api/Link/Query?childDomain=Contact&childRecordID=-12345678901234567890');
    expectProblem(q, 400, 'MalformedRequest');
    expect(q.json.detail).toMatch(/must be an integer from -9007199254740991 to 9007199254740991/);
  });

  it('Updates and Deletes IDs beyond the bound are refused naming the bound, and nothing changes', async () => {
    const p = await h.state('a proposal', { type: 'Quote', locations: 1 });
    for (const body of [
      { Inserts: [], Updates: [{ ID: 2 ** 53 + 2, Fields: {} }], Deletes: [] },
      { Inserts: [], Updates: [], Deletes: [{ ID: 1e20 }] },
    ]) {
      const before = h.count('ProposalLocation');
      const r = await h.call('POST', `/api/Quotes/Proposals/${p.proposalId}/Schedules/ProposalLocation/UpsertMulti`, {
        raw: JSON.stringify(body).replace('9007199254740994', '9007199254740993'),
      });
      expectProblem(r, 400, 'MalformedRequest');
      expect(r.json.detail).toMatch(/must be an integer from 1 to 9007199254740991/);
      expect(h.count('ProposalLocation')).toBe(before);
    }
  });
});
