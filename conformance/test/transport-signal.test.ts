// A test's signal carries one abort listener however many of its requests are in flight: with one
// per request, a test with more than ten in flight made Node print MaxListenersExceededWarning
// during a conformance run. Aborting the signal still aborts every request in flight.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../src/suite-api/transport.js';

let server: http.Server;
let url = '';
const held: http.ServerResponse[] = [];

beforeAll(async () => {
  // answers only when released, so that the requests stay in flight
  server = http.createServer((_req, res) => void held.push(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('the transport and the caller signal', () => {
  it('twenty requests in flight on one signal add one abort listener; all answer', async () => {
    const ac = new AbortController();
    const pending = Array.from({ length: 20 }, () =>
      send({ method: 'GET', url, headers: {}, timeoutMs: 10_000, signal: ac.signal }),
    );
    await until(() => held.length === 20);
    expect(held).toHaveLength(20);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    for (const res of held.splice(0)) res.end('ok');
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  });

  it('aborting the signal aborts every request in flight', async () => {
    const ac = new AbortController();
    const pending = Array.from({ length: 12 }, () =>
      send({ method: 'GET', url, headers: {}, timeoutMs: 10_000, signal: ac.signal }).then(
        () => 'answered',
        () => 'aborted',
      ),
    );
    await until(() => held.length === 12);
    ac.abort();
    expect(await Promise.all(pending)).toEqual(Array(12).fill('aborted'));
    held.splice(0).forEach((res) => res.destroy());
  });
});
