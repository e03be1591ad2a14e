// A request that arrives too slowly, on the wire (issue 35): the real server process started with
// short request timeouts (--headers-timeout, --request-timeout) answers a head or a body that
// stops half way with 408 problem+json, the answer spec/openapi.yaml declares on every operation
// ("Answers before routing"), within the configured time instead of node's 60 s.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auditor, startSeededServer, type SeededServer } from './support.js';

const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 900;
/** how long a test waits for the answer at most: far below node's default of 60 s */
const DEADLINE_MS = 10_000;

let seeded: SeededServer | undefined;
const auditor = new Auditor();

beforeAll(async () => {
  seeded = await startSeededServer('slow', [
    '--log-level',
    'warn',
    '--headers-timeout',
    String(HEADERS_TIMEOUT_MS),
    '--request-timeout',
    String(REQUEST_TIMEOUT_MS),
  ]);
}, 60_000);

afterAll(async () => {
  await seeded?.stop();
});

interface Answer {
  status?: number;
  contentType?: string;
  body: string;
  /** ms from the last byte sent until the server closed the connection (or the deadline) */
  ms: number;
  closed: boolean;
}

/** Sends `parts` on a fresh connection, each once the previous one is written (no pause), then
 * waits for the server to answer and close the connection, or for the deadline. */
function exchange(parts: string[]): Promise<Answer> {
  return new Promise((resolve) => {
    const s = net.connect(seeded!.server.port, '127.0.0.1');
    let raw = '';
    let sentAt = 0;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      s.destroy();
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = headEnd < 0 ? raw : raw.slice(0, headEnd);
      resolve({
        status: /^HTTP\/1\.1 (\d{3}) /.exec(head) ? Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)![1]) : undefined,
        contentType: /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1],
        body: headEnd < 0 ? '' : raw.slice(headEnd + 4),
        ms: performance.now() - sentAt,
        closed,
      });
    };
    const deadline = setTimeout(() => finish(false), DEADLINE_MS);
    s.setEncoding('latin1');
    s.on('data', (d: string) => (raw += d));
    s.on('close', () => finish(true));
    s.on('error', () => finish(true));
    s.on('connect', () => {
      const send = (i: number) => {
        if (i === parts.length) {
          sentAt = performance.now();
          return;
        }
        s.write(parts[i]!, () => send(i + 1));
      };
      send(0);
    });
  });
}

function expectTimeoutAnswer(a: Answer, method: string, url: string, timeoutMs: number): void {
  expect(a.closed, `the server closed the connection within ${DEADLINE_MS} ms`).toBe(true);
  expect(a.status).toBe(408);
  expect(a.contentType).toBe('application/problem+json');
  expect(JSON.parse(a.body)).toMatchObject({ status: 408, code: 'MalformedRequest' });
  // not before the timeout (less node's check interval's rounding), and not node's 60 s either
  expect(a.ms).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(a.ms).toBeLessThan(timeoutMs + 5_000);
  const problems = auditor.audit({
    method,
    url,
    status: a.status!,
    contentType: a.contentType ?? null,
    bodyText: a.body,
  });
  expect(problems).toEqual([]);
}

describe('a request that arrives too slowly (--headers-timeout, --request-timeout)', () => {
  it('half a request head is answered 408 problem+json after --headers-timeout', { timeout: 20_000 }, async () => {
    const a = await exchange(['GET /api/Domains HTTP/1.1\r\n', 'Host: 127.0.0.1\r\nToken: x\r\n']);
    expectTimeoutAnswer(a, 'GET', '/api/Domains', HEADERS_TIMEOUT_MS);
  });

  it(
    'a body that stops half way is answered 408 problem+json after --request-timeout',
    { timeout: 20_000 },
    async () => {
      const body = JSON.stringify({ Account: 'demo', User: 'admin', Password: 'admin', ClientName: 'slow' });
      const a = await exchange([
        'POST /Authentication/Authenticate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${body.length}\r\n\r\n`,
        body.slice(0, 20),
      ]);
      expectTimeoutAnswer(a, 'POST', '/Authentication/Authenticate', REQUEST_TIMEOUT_MS);
    },
  );

  it(
    'a whole request sent in parts is answered as usual (the timeouts end only slow ones)',
    { timeout: 20_000 },
    async () => {
      const a = await exchange(['GET /health HTTP/1.1\r\n', 'Host: 127.0.0.1\r\n', 'Connection: close\r\n\r\n']);
      expect(a.closed).toBe(true);
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toMatchObject({ status: 'ok' });
    },
  );
});
