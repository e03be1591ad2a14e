// The one way to start a reference server process: it binds a port of its own choosing, so neither
// another listener nor another server started at the same time can stand in for it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningUrl, startReferenceProcess, type ReferenceProcess } from '../src/targets/reference-process.js';

const started: ReferenceProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe('startReferenceProcess', () => {
  it('reads the URL from the listening line and only that line', () => {
    expect(listeningUrl('{"msg":"listening on http://127.0.0.1:4001","url":"http://127.0.0.1:4001"}')).toBe(
      'http://127.0.0.1:4001',
    );
    expect(listeningUrl('listening on http://127.0.0.1:4001')).toBeUndefined();
    expect(listeningUrl('{"msg":"request","path":"/health"}')).toBeUndefined();
  });

  it('starts servers side by side on ports of their own, each answering for itself', async () => {
    // A decoy listening before the servers start: the race the fault runner met took a port chosen
    // ahead of the server's bind and found another listener's /health answering 200.
    const decoy = http.createServer((_req, res) => res.end('{"decoy":true}'));
    await new Promise<void>((r) => decoy.listen(0, '127.0.0.1', () => r()));
    try {
      const servers = await Promise.all([0, 1, 2].map(() => startReferenceProcess({ providerStates: true })));
      started.push(...servers);
      const ports = servers.map((s) => s.port);
      expect(new Set(ports).size).toBe(3);
      expect(ports).not.toContain((decoy.address() as AddressInfo).port);
      for (const s of servers) {
        const r = await fetch(`${s.url}/health`);
        expect(r.status).toBe(200);
        expect(await r.json()).not.toHaveProperty('decoy');
        expect(s.output()).toContain('listening on');
      }
    } finally {
      decoy.close();
    }
  });

  it('stop() ends the process and reports how it ended', async () => {
    const s = await startReferenceProcess();
    const e = await s.stop();
    expect(s.child.exitCode !== null || s.child.signalCode !== null).toBe(true);
    expect(e.code === 0 || e.signal === 'SIGTERM').toBe(true);
    await expect(fetch(`${s.url}/health`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  });

  it('a server that cannot start fails with its own output, not a timeout', async () => {
    const t0 = Date.now();
    await expect(startReferenceProcess({ args: ['--log-level', 'nonsense'] })).rejects.toThrow(/exited|log-level/);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});
