// The transport's reading of an answer (transport.ts, dispatchOnce): a body in each content
// encoding fetch decodes comes back decoded, a truncated gzip stream gives what it holds, an
// informational answer is passed over for the final one, a body over the limit ends the request
// (announced, as sent, or once decoded), and the time limit covers the body too.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetError } from '../src/model/errors.js';
import { TransportError, send } from '../src/suite-api/transport.js';

const TEXT = JSON.stringify({ List: Array.from({ length: 50 }, (_, i) => ({ ID: i, Name: `name ${i} é` })) });

/** The raw answer of each path (a raw server: informational answers and broken streams as sent). */
function answer(path: string): Buffer | 'drip' {
  const head = (status: string, headers: Record<string, string | number>) =>
    `HTTP/1.1 ${status}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
  const ok = (body: Buffer, headers: Record<string, string | number> = {}) =>
    Buffer.concat([Buffer.from(head('200 OK', { 'content-length': body.length, ...headers })), body]);
  switch (path) {
    case '/gzip':
      return ok(zlib.gzipSync(TEXT), { 'content-encoding': 'gzip' });
    case '/deflate':
      return ok(zlib.deflateSync(TEXT), { 'content-encoding': 'deflate' });
    case '/br':
      return ok(zlib.brotliCompressSync(TEXT), { 'content-encoding': 'br' });
    case '/gzip-truncated': {
      const whole = zlib.gzipSync(TEXT, { level: 0 });
      return ok(whole.subarray(0, whole.length - 40), { 'content-encoding': 'gzip' });
    }
    case '/early-hints':
      return Buffer.concat([
        Buffer.from(head('103 Early Hints', { link: '</x>; rel=preload' })),
        ok(Buffer.from(TEXT)),
      ]);
    case '/bom':
      return ok(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]));
    case '/announced-large':
      return Buffer.from(head('200 OK', { 'content-length': 5000 }));
    case '/large':
      return ok(Buffer.alloc(2000, 0x61));
    case '/bomb':
      return ok(zlib.gzipSync(Buffer.alloc(100_000, 0x20)), { 'content-encoding': 'gzip' });
    default:
      return 'drip';
  }
}

let server: net.Server;
let base = '';

beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (d) => {
      const path = d.toString('latin1').split(' ')[1] ?? '/';
      const a = answer(path);
      if (a !== 'drip') return void socket.end(a);
      // headers, then one byte of the body every 100 ms, never the whole body
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n');
      const t = setInterval(() => socket.write('x'), 100);
      socket.on('close', () => clearInterval(t));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const get = (path: string, maxBytes?: number, timeoutMs = 5_000) =>
  send({ method: 'GET', url: `${base}${path}`, headers: {}, timeoutMs, ...(maxBytes ? { maxBytes } : {}) });

describe('the transport reads an answer', () => {
  it.each(['/gzip', '/deflate', '/br'])('%s: the body comes back decoded, its encoding named', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.text).toBe(TEXT);
    expect(res.headers['content-encoding']).toBe(path.slice(1));
  });

  it('a truncated gzip stream gives the text it holds', async () => {
    const res = await get('/gzip-truncated');
    expect(res.text.length).toBeGreaterThan(0);
    expect(TEXT.startsWith(res.text)).toBe(true);
    expect(res.text.length).toBeLessThan(TEXT.length);
  });

  it('an informational answer (103) is passed over for the final one', async () => {
    const res = await get('/early-hints');
    expect(res.status).toBe(200);
    expect(res.text).toBe(TEXT);
  });

  it('a leading byte order mark is dropped, as Response.text() drops it', async () => {
    expect((await get('/bom')).text).toBe('{}');
  });

  it('a body over the limit ends the request with a TargetError: announced, as sent, or once decoded', async () => {
    for (const path of ['/announced-large', '/large', '/bomb']) {
      const err = await get(path, 1000).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(TargetError);
      expect(String((err as Error).message), path).toMatch(/larger than the client reads \(1000 bytes/);
    }
  });

  it('the time limit covers the body: a body that never ends is a timed-out error of the body', async () => {
    const t0 = Date.now();
    const err = await get('/drip', undefined, 400).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).phase).toBe('body');
    expect((err as TransportError).timedOut).toBe(true);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
});
