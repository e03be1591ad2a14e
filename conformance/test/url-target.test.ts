// --base-url targets: by default one GET / that may answer anything; with --health-path, a wait
// (up to --start-timeout) until GET <health-path> answers 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrencyFor, resolveRunOptions } from '../src/run/config.js';
import { UrlTarget } from '../src/targets/url.js';

describe('URL target health', () => {
  let server: http.Server;
  let base: string;
  let healthCalls = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/ready') {
        healthCalls++;
        res.writeHead(healthCalls < 3 ? 503 : 200).end('{}');
      } else if (req.url === '/never') res.writeHead(503).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('without --health-path: any answer to GET / will do', async () => {
    const started = await new UrlTarget({ baseUrl: base, log: () => undefined }).start();
    expect(started.baseUrl).toBe(base);
  });

  it('with --health-path: waits until it answers 200', async () => {
    const t = new UrlTarget({ baseUrl: base, healthPath: '/ready', startTimeoutMs: 10_000, log: () => undefined });
    await t.start();
    expect(healthCalls).toBe(3);
  });

  it('with --health-path that never answers 200: a harness error naming the path and the status', async () => {
    const t = new UrlTarget({ baseUrl: base, healthPath: '/never', startTimeoutMs: 800, log: () => undefined });
    await expect(t.start()).rejects.toThrow(/GET .*\/never answered 503/);
  });

  it('the option reaches URL targets only when given', () => {
    expect(resolveRunOptions({ baseUrl: base }, {}).healthPathGiven).toBe(false);
    expect(resolveRunOptions({ baseUrl: base, healthPath: '/ready' }, {}).healthPathGiven).toBe(true);
    expect(resolveRunOptions({ baseUrl: base }, { CONFORMANCE_HEALTH_PATH: '/ready' }).healthPathGiven).toBe(true);
  });
});

describe("the default concurrency follows the target's distance", () => {
  it('--concurrency given wins; otherwise 128 from 20 ms away, 16 nearer or unmeasured', () => {
    expect(concurrencyFor({ concurrency: 16, concurrencyGiven: false }, 200)).toBe(128);
    expect(concurrencyFor({ concurrency: 16, concurrencyGiven: false }, 20)).toBe(128);
    expect(concurrencyFor({ concurrency: 16, concurrencyGiven: false }, 3)).toBe(16);
    expect(concurrencyFor({ concurrency: 16, concurrencyGiven: false }, undefined)).toBe(16);
    expect(concurrencyFor({ concurrency: 4, concurrencyGiven: true }, 200)).toBe(4);
  });

  it('a url target measures its round trip: a target that holds every answer 60 ms is 60 ms or more away', async () => {
    const slow = http.createServer((_req, res) => setTimeout(() => res.writeHead(404).end(), 60));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      const started = await new UrlTarget({ baseUrl: base, log: () => undefined }).start();
      expect(started.roundTripMs).toBeGreaterThanOrEqual(59);
      expect(concurrencyFor({ concurrency: 16, concurrencyGiven: false }, started.roundTripMs)).toBe(128);
      const opts = resolveRunOptions({ baseUrl: base }, {});
      expect(opts.concurrencyGiven).toBe(false);
      expect(resolveRunOptions({ baseUrl: base, concurrency: '8' }, {}).concurrencyGiven).toBe(true);
    } finally {
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
