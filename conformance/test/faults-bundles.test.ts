// The fault runner's servers: many reference servers in a few host processes (the bundle of
// reference-server/src/host.ts), each a server of its own, started and stopped on request.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildRunBundles } from '../faults/bundles.js';
import { ServerPool } from '../faults/runner/servers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-pool-test-'));
let host: string;
beforeAll(async () => {
  host = (await buildRunBundles()).host;
}, 60_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const domains = (url: string, token: string) => fetch(`${url}/api/Domains`, { headers: { Token: token } });

async function userToken(url: string): Promise<string> {
  const res = await fetch(`${url}/_provider-states`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'a user', params: { setupId: 'pool-test' } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

it('runs each server with its own database and port, stops it on request, and ends its hosts on close', async () => {
  const pool = new ServerPool(dir, 2, host);
  try {
    const [a, b] = await Promise.all([pool.take([]), pool.take(['--single-id-sequence'])]);
    expect(a.url).not.toBe(b.url);
    // a user set up on one server is unknown to the other: two databases
    const token = await userToken(a.url);
    expect((await domains(a.url, token)).status).toBe(200);
    expect((await domains(b.url, token)).status).toBe(401);
    await pool.release(a);
    await expect(fetch(`${a.url}/health`)).rejects.toThrow();
    expect((await fetch(`${b.url}/health`)).status).toBe(200);
    // each server has a log of its own
    const logs = fs.readdirSync(dir).filter((d) => d.startsWith('server-'));
    expect(logs.sort()).toEqual(['server-1', 'server-2']);
    await pool.release(b);
  } finally {
    await pool.close();
  }
  await expect(pool.take([])).rejects.toThrow(/closed/);
}, 60_000);

it('refuses a server with a flag it does not know, and goes on serving', async () => {
  const pool = new ServerPool(dir, 1, host);
  try {
    await expect(pool.take(['--no-such-flag'])).rejects.toThrow(/usage error|unknown option/);
    const ok = await pool.take([]);
    expect((await fetch(`${ok.url}/health`)).status).toBe(200);
    await pool.release(ok);
  } finally {
    await pool.close();
  }
}, 60_000);
