// The recording proxy of `conformance record`: an HTTP server in front of an upstream deployment
// that forwards every request unchanged and writes what passes through as HAR 1.2, credentials
// redacted unless asked. The file is rewritten shortly after each exchange, so it is complete
// whenever the proxy is stopped.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { harEntry, harLog, type HarEntry } from './har.js';
import { redactEntry } from './har-recording.js';
import { redactor } from './redact.js';

export interface RecordingProxyOptions {
  upstream: string;
  har: string;
  port?: number;
  host?: string;
  tokenHeader: string;
  keepCredentials?: boolean;
  creatorVersion: string;
  log?: (line: string) => void;
}

export interface RecordingProxy {
  url: string;
  entries: () => number;
  /** Stops listening and writes the HAR a last time. */
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
]);

export async function startRecordingProxy(o: RecordingProxyOptions): Promise<RecordingProxy> {
  const upstream = o.upstream.replace(/\/+$/, '');
  const entries: HarEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  const write = () => {
    timer = undefined;
    const red = redactor(o.tokenHeader, o.keepCredentials);
    for (const e of entries) redactEntry(e, red); // learns every credential first
    const out = entries.map((e) => redactEntry(e, red));
    fs.mkdirSync(path.dirname(path.resolve(o.har)), { recursive: true });
    const tmp = `${o.har}.tmp`;
    fs.writeFileSync(
      tmp,
      `${JSON.stringify(harLog(out, o.creatorVersion, `recorded by conformance record in front of ${upstream}`), null, 1)}\n`,
    );
    fs.renameSync(tmp, o.har);
  };
  const schedule = () => (timer ??= setTimeout(write, 200));

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const startedMs = Date.now();
        const t0 = performance.now();
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const url = `${upstream}${req.url ?? '/'}`;
        try {
          const up = await request(url, { method: req.method as 'GET', headers, body });
          const buf = Buffer.from(await up.body.arrayBuffer());
          const rh: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers))
            if (v !== undefined && !HOP_BY_HOP.has(k)) rh[k] = Array.isArray(v) ? v.join(', ') : v;
          res.writeHead(up.statusCode, rh);
          res.end(buf);
          entries.push(
            harEntry({
              startedMs,
              ms: Math.round((performance.now() - t0) * 1000) / 1000,
              method: req.method ?? 'GET',
              url,
              requestHeaders: headers,
              requestBody: body?.toString('utf8'),
              status: up.statusCode,
              responseHeaders: rh,
              responseBody: buf.toString('utf8'),
            }),
          );
          schedule();
        } catch (e) {
          o.log?.(`conformance record: ${req.method} ${url}: ${(e as Error).message}`);
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('the recording proxy could not reach the upstream');
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${addr.address}:${addr.port}`,
    entries: () => entries.length,
    async close() {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      if (timer) clearTimeout(timer);
      write();
    },
  };
}
