// A small HTTP proxy for the harness tests: forwards every request to `upstream` and lets `rewrite`
// change the answer (its body and headers) before it goes back. The tests use it to put a
// deliberately broken implementation in front of the reference server.
import http from 'node:http';

/** One exchange as the proxy saw it; `rewrite` may replace `body` and change `headers`. */
export interface ProxiedExchange {
  method: string;
  /** path and query as requested */
  url: string;
  requestBody: Buffer | undefined;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RewritingProxy {
  baseUrl: string;
  stop(): Promise<void>;
}

const REQUEST_HOP = ['host', 'connection', 'content-length'];
const RESPONSE_HOP = ['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'];

export async function startRewritingProxy(
  upstream: string,
  rewrite: (x: ProxiedExchange) => void,
): Promise<RewritingProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) {
          if (v === undefined || REQUEST_HOP.includes(k)) continue;
          headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        }
        const requestBody =
          chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
        const up = await fetch(`${upstream}${req.url}`, {
          method: req.method,
          headers,
          body: requestBody,
          redirect: 'manual',
        });
        const x: ProxiedExchange = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          requestBody,
          status: up.status,
          headers: {},
          body: Buffer.from(await up.arrayBuffer()),
        };
        up.headers.forEach((v, k) => {
          if (!RESPONSE_HOP.includes(k)) x.headers[k] = v;
        });
        rewrite(x);
        res.writeHead(x.status, x.headers).end(x.body);
      } catch (e) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
      }
    });
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
