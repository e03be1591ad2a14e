// A deliberately broken implementation for the report tests: the reference server (a local
// process) behind a small proxy that breaks GET /api/Domains. The real suite run through it fails
// for real (DOM-004 Incident renumbered, DOM-007 an extra domain listed without access), and the
// extra domain and a response header carry markup and shell metacharacters, so that the reports
// must escape vendor-controlled text.
import http from 'node:http';
import { LocalProcessTarget } from '../../src/targets/local-process.js';
import type { StartedTarget } from '../../src/targets/target.js';

const EVIL_NAME = `<script>window.__xss=1</script><img src="http://evil.invalid/x.png" onerror="window.__xss=2">`;
const EVIL_PLURAL = `'; touch /tmp/pwned; echo '$(id)\`id\``;

export interface Running {
  baseUrl: string;
  stop(): Promise<void>;
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

/** A proxy in front of `upstream` that applies `rewrite` to GET /api/Domains. */
async function startBreakingProxy(upstream: string): Promise<Running> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) {
          if (v === undefined || ['host', 'connection', 'content-length'].includes(k)) continue;
          headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        }
        const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
        const up = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body });
        let text = await up.text();
        const out: Record<string, string> = {};
        up.headers.forEach((v, k) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
            out[k] = v;
        });
        const url = new URL(req.url ?? '/', 'http://x');
        if (req.method === 'GET' && url.pathname === '/api/Domains' && up.status === 200) {
          const doc = JSON.parse(text);
          for (const d of doc.List ?? []) if (d.Name === 'Incident') d.DomainID = 12;
          doc.List?.push({
            DomainID: 4242,
            Name: EVIL_NAME,
            DisplayNameSingular: 'Evil',
            DisplayNamePlural: EVIL_PLURAL,
          });
          text = JSON.stringify(doc);
          out['x-evil'] = '<img src="http://evil.invalid/h.png">';
        }
        res.writeHead(up.status, out).end(text);
      } catch (e) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
      }
    });
  });
  const port = await listen(server);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The reference server as a local process (with provider states). */
async function startReference(): Promise<Running & { started: StartedTarget }> {
  const target = new LocalProcessTarget({ log: () => {} });
  const started = await target.start();
  return { baseUrl: started.baseUrl, started, stop: () => target.stop() };
}

/** The reference server behind the breaking proxy. */
export async function startBrokenReference(): Promise<Running> {
  const ref = await startReference();
  const proxy = await startBreakingProxy(ref.baseUrl);
  return {
    baseUrl: proxy.baseUrl,
    stop: async () => {
      await proxy.stop();
      await ref.stop();
    },
  };
}
