// A proxy in front of the reference server that drops values from the answers of provider-state
// setups (issue 19, item 3: a missing value ends only the tests that read it). Everything else
// passes through untouched. The run's admin user (setupId `run-admin-...`) is left whole: every
// test needs it. Which values of which setup were dropped is recorded per test (the setupId is
// `<test id>-<8 hex>`).
import http from 'node:http';
import { loadProtocol } from '../../src/suite-api/protocol.js';

export interface DropProxy {
  baseUrl: string;
  /** test id → `<state>.<value>` dropped from the answers of its setups */
  dropped: Map<string, Set<string>>;
  stop(): Promise<void>;
}

/**
 * `drop(state, valueIndex)` says whether the value at that index of the state's values schema (in
 * the order of its properties) is dropped from an answer.
 */
export async function startDropProxy(
  upstream: string,
  drop: (state: string, valueIndex: number) => boolean,
): Promise<DropProxy> {
  const protocol = loadProtocol();
  const dropped = new Map<string, Set<string>>();
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
        const up = await fetch(`${upstream}${req.url}`, { method: req.method, headers, body, redirect: 'manual' });
        let text = Buffer.from(await up.arrayBuffer());
        const out: Record<string, string> = {};
        up.headers.forEach((v, k) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
            out[k] = v;
        });
        const isState = req.method === 'POST' && new URL(req.url ?? '/', 'http://x').pathname === '/_provider-states';
        if (isState && up.status === 200 && body) {
          const change = JSON.parse(body.toString('utf8')) as {
            state: string;
            action?: string;
            params?: { setupId?: string };
          };
          const setupId = String(change.params?.setupId ?? '');
          const values = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
          const names = [...(protocol.states.get(change.state)?.values.keys() ?? [])];
          if ((change.action ?? 'setup') === 'setup' && !setupId.startsWith('run-admin')) {
            const test = setupId.replace(/-[0-9a-f]{8}$/, '');
            names.forEach((name, i) => {
              if (name === 'protocol' || !(name in values) || !drop(change.state, i)) return;
              delete values[name];
              const set = dropped.get(test) ?? new Set<string>();
              set.add(`${change.state}.${name}`);
              dropped.set(test, set);
            });
            text = Buffer.from(JSON.stringify(values));
          }
        }
        res.writeHead(up.status, out).end(text);
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
    dropped,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
