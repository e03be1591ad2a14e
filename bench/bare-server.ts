// The practical ceiling: a bare Hono route on @hono/node-server that answers a constant JSON body
// (about the size of the record scenario's answer). Run as a child process by bench/run.ts; prints
// one JSON line {"url": ...} when listening.
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const BODY = {
  Record: {
    ClaimNumber: 'CLM-00000042',
    ClaimantName: 'Jane Doe',
    Status: 'Open',
    LossDate: '2014-05-17',
    ReserveAmount: 12345.67,
    'Location.Name': 'Location 42',
  },
  Domain: 'Claim',
  Id: 42,
};

/** µs of pure computation added to every answer (env BARE_SPIN_US, default 0: the ceiling itself).
 * A control for the CPU-per-request figures: the bare route made as slow as a real route by work
 * that allocates nothing and makes no system call shows what a server pays per request merely for
 * being the slower side of the load test (bench/profile-record.ts, docs/benchmarks.md). */
const SPIN_US = Number(process.env.BARE_SPIN_US ?? 0);
function spin(): void {
  const until = performance.now() + SPIN_US / 1000;
  while (performance.now() < until); // performance.now() allocates nothing (a double)
}

const app = new Hono();
app.get('/bare', SPIN_US > 0 ? (c) => (spin(), c.json(BODY)) : (c) => c.json(BODY));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${info.port}` }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => server.close(() => process.exit(0)));
