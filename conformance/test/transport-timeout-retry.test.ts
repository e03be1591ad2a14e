// A read that gets no answer within its time-out is asked once more, with the whole time again: the
// spec states no latency, so one slow answer is no verdict (what a patient client does). A write is
// not asked again, since the suite cannot know whether it was applied.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError, send } from '../src/suite-api/transport.js';

let server: net.Server;
let url = '';
let requests = 0;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  // a raw server: it never answers every first request, and answers every other at once
  server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      requests++;
      if (requests % 2 === 0) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

describe('a request that gets no answer in time', () => {
  it('a GET is asked once more, and answers', async () => {
    requests = 0;
    const res = await send({ method: 'GET', url, headers: {}, timeoutMs: 300 });
    expect(res.status).toBe(200);
    expect(res.text).toBe('ok');
    expect(requests).toBe(2);
  });

  it('a POST is not asked again: the error is a time-out', async () => {
    requests = 0;
    const err = await send({ method: 'POST', url, headers: {}, body: '{}', timeoutMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.timedOut).toBe(true);
    expect(requests).toBe(1);
  });
});
