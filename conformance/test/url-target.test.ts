// --base-url targets: by default one GET / that may answer anything; with --health-path, a wait
// (up to --start-timeout) until GET <health-path> answers 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../src/run/config.js';
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
