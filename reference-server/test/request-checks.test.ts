// The request checks run inside each route's handler (request-checks.ts): the order of the
// refusals, the token for '/api' and everything under it, one handler per route, and a GET
// answered synchronously (the reason the checks are not Hono middleware).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

describe('request checks', () => {
  it('a record read is answered synchronously (no promise between the parsed request and the answer)', async () => {
    // (whether Claim 1 exists does not matter: a 404 is an answer of the route handler too)
    const id = 1;
    const res = h.created.app.fetch(
      new Request(`http://x/api/Claim/${id}?columns=ClaimNumber`, { headers: { Token: h.admin } }),
    );
    expect(res).toBeInstanceOf(Response);
    expect([200, 404]).toContain((res as Response).status);
    // and the checks still run first: no token, 401, synchronously too
    const refused = h.created.app.fetch(new Request(`http://x/api/Claim/${id}`));
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(401);
  });

  it('refuses in order: URL length, then the method (405 before the token), then the token', async () => {
    const long = `/api/Claim/1?columns=${'a'.repeat(10_001)}`;
    expectProblem(await h.call('DELETE', long, { token: null }), 414, 'UriTooLong');
    expectProblem(await h.call('DELETE', '/api/Claim/1', { token: null }), 405, 'MethodNotAllowed');
    expectProblem(await h.call('GET', '/api/Claim/1', { token: null }), 401, 'Unauthenticated');
  });

  it("'/api' itself and unknown paths under it need a token before the 404; other paths do not", async () => {
    for (const path of ['/api', '/api/', '/api/Claim/1/Nope/More'])
      expectProblem(await h.call('GET', path, { token: null }), 401, 'Unauthenticated');
    expectProblem(await h.call('GET', '/api/Claim/1/Nope/More'), 404, 'NotFound');
    expectProblem(await h.call('GET', '/apix', { token: null }), 404, 'NotFound');
    expect((await h.call('GET', '/health', { token: null })).status).toBe(200);
  });

  it('a route registered with two handlers is refused at start-up (the checks would run twice)', () => {
    const app = h.created.app;
    expect(() =>
      app.get(
        '/two-handlers',
        (c, next) => next(),
        (c) => c.text('x'),
      ),
    ).toThrow(/one handler per route/);
  });
});
