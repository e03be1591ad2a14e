// The container health wait (targets/http-ready.ts): probes follow each other every 50 ms, a probe
// may take long, and a container that exited ends the wait at once with its exit code.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpReady, INTERVAL_MS } from '../src/targets/http-ready.js';

type Container = Parameters<ReturnType<typeof httpReady>['waitUntilReady']>[0];
type Ports = Parameters<ReturnType<typeof httpReady>['waitUntilReady']>[1];

describe('httpReady (container health wait)', () => {
  let server: http.Server;
  let port = 0;
  let calls = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/ready') res.writeHead(++calls < 4 ? 503 : 200).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 1_200);
      else res.writeHead(503).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ports = { getBinding: (p: number) => (p === 8080 ? port : 0) } as unknown as Ports;
  const running = (status = 'running', code = 0) =>
    ({ inspect: async () => ({ State: { Status: status, ExitCode: code } }) }) as unknown as Container;
  const wait = (path: string) => httpReady({ path, port: 8080, host: '127.0.0.1' });

  it('is ready as soon as the health path answers 200: probes every 50 ms, not every second', async () => {
    const t0 = Date.now();
    await wait('/ready').withStartupTimeout(10_000).waitUntilReady(running(), ports);
    expect(calls).toBe(4);
    expect(Date.now() - t0).toBeLessThan(3 * INTERVAL_MS + 900); // 3 pauses, never a 1 s one per probe
  });

  it('waits for a probe that answers late instead of cutting it short', async () => {
    await wait('/slow').withStartupTimeout(10_000).waitUntilReady(running(), ports);
  });

  it('ends the wait at once, with the exit code, when the container exited', async () => {
    const t0 = Date.now();
    await expect(wait('/never').withStartupTimeout(30_000).waitUntilReady(running('exited', 3), ports)).rejects.toThrow(
      /GET \/never on port 8080: the container exited \(code 3\)/,
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('gives up after the startup timeout, naming the last answer', async () => {
    const w = wait('/never').withStartupTimeout(400);
    expect(w.isStartupTimeoutSet()).toBe(true);
    expect(w.getStartupTimeout()).toBe(400);
    await expect(w.waitUntilReady(running(), ports)).rejects.toThrow(/GET \/never on port 8080: answered 503/);
  });
});
