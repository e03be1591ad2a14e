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

const app = new Hono();
app.get('/bare', (c) => c.json(BODY));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${info.port}` }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => server.close(() => process.exit(0)));
