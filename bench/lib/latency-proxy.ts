// A loopback HTTP proxy that adds a fixed delay to every response, as a network between the
// suite and a staging deployment would: the request is forwarded at once, and the answer is
// held for `delayMs` before its status line goes back. It counts the requests by kind
// (provider-state calls vs the interface) so that the latency scenario can report them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  url: string;
  /** requests forwarded so far, by kind */
  counts: { interface: number; providerState: number };
  close(): Promise<void>;
}

export async function startLatencyProxy(o: {
  target: string;
  delayMs: number;
  /** path prefix of the provider-state endpoint (default /_provider-states) */
  statePath?: string;
}): Promise<LatencyProxy> {
  const target = new URL(o.target);
  const statePath = o.statePath ?? '/_provider-states';
  // A fresh loopback connection per request upstream: with a keep-alive pool, a request sent on an
  // idle socket just as the server closed it failed with ECONNRESET (seen in a run), and a proxy
  // cannot safely retry a POST. The client side keeps its connections alive.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 256 });
  const counts = { interface: 0, providerState: 0 };
  const server = http.createServer((req, res) => {
    if ((req.url ?? '').startsWith(statePath)) counts.providerState++;
    else counts.interface++;
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        agent,
      },
      (up) => {
        // the whole delay on the answer: a request costs one round trip of `delayMs`
        setTimeout(() => {
          res.writeHead(up.statusCode ?? 502, up.statusMessage, up.rawHeaders);
          up.pipe(res);
        }, o.delayMs);
      },
    );
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`latency proxy: upstream error: ${e.message}`);
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
