// The `reference-server` command (bin/reference-server.mjs → src/main.ts).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseServerArgs } from '../src/options.js';
import { requestTimeouts } from '../src/server.js';

const BIN = fileURLToPath(new URL('../bin/reference-server.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'rflps-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, PORT: '' },
  });
}

/** Start the server; resolve with its URL once it logs "listening". */
function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no listening line: ' + out)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exited, output: () => out };
}

describe('reference-server CLI', () => {
  it('--help lists the options and exits 0', { timeout: 30_000 }, () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const o of [
      '--port',
      '--host',
      '--db',
      '--seed',
      '--provider-states',
      '--enhanced-session-security',
      '--keep-alive-timeout',
      '--headers-timeout',
      '--request-timeout',
      '--log-level',
    ])
      expect(r.stdout).toContain(o);
  });

  it('bad arguments exit 2 with a clear message', { timeout: 60_000 }, () => {
    for (const args of [
      ['--port', 'abc'],
      ['--port', '70000'],
      ['--bogus'],
      ['--seed', 'prod'],
      ['--enhanced-session-security', 'maybe'],
      ['--log-level', 'loud'],
      ['--keep-alive-timeout', '0'],
      ['--keep-alive-timeout', 'soon'],
      ['--headers-timeout', '5000', '--request-timeout', '1000'],
      ['extra'],
    ]) {
      const r = run(args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/error/i);
    }
  });

  it('serves on a free port with a file DB, seeds demo data, logs requests as JSON, stops on SIGTERM', async () => {
    const db = join(dir, 'demo.db');
    const s = start(['--port', '0', '--db', db, '--seed', 'demo', '--enhanced-session-security', 'off']);
    const url = await s.url;
    expect(existsSync(db)).toBe(true);
    expect((await fetch(url + '/health')).status).toBe(200);
    const auth = await fetch(url + '/Authentication/Authenticate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Account: 'demo', User: 'admin', Password: 'admin', ClientName: 'cli-test' }),
    });
    const { Token } = (await auth.json()) as { Token: string };
    const claims = (await (
      await fetch(url + '/api/Claim/Query?columns=ClaimNumber', { headers: { Token } })
    ).json()) as { List: unknown[] };
    expect(claims.List.length).toBeGreaterThan(0);
    const dl = await fetch(url + '/api/File/Query?columns=DownloadURL', { headers: { Token } });
    expect(dl.status).toBe(500); // --enhanced-session-security off
    // No provider states without the flag.
    expect((await fetch(url + '/_provider-states', { method: 'POST', body: '{}' })).status).toBe(404);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    const lines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const request = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'request' && e.path === '/health');
    expect(request).toMatchObject({ method: 'GET', path: '/health', status: 200, ms: expect.any(Number) });
  }, 40_000);

  it('--keep-alive-timeout closes an idle kept-alive connection after that long', async () => {
    const s = start(['--port', '0', '--db', ':memory:', '--log-level', 'warn', '--keep-alive-timeout', '300']);
    const { port } = new URL(await s.url);
    const socket = connect(Number(port), '127.0.0.1');
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    let answered = 0;
    socket.on('data', (d: Buffer) => {
      if (!answered && d.toString().startsWith('HTTP/1.1 200')) answered = Date.now();
    });
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    // polled to a deadline: the server closes the idle connection itself, after about 300 ms
    const at = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
    socket.destroy();
    s.child.kill('SIGTERM');
    expect(answered, 'the request was answered').toBeGreaterThan(0);
    expect(at, 'the server closed the idle connection').toBeGreaterThan(0);
    // not before, and well before Node's default of 5 s
    expect(at - answered).toBeGreaterThanOrEqual(250);
    expect(at - answered).toBeLessThan(3_000);
    expect(await s.exited).toBe(0);
  }, 40_000);

  it("--headers-timeout and --request-timeout: node's own limits unless given, checked every second", () => {
    // no flag: node's 60 s and 300 s, looked for every second (node's own check every 30 s
    // answered a slow head 60 to 90 s after it began)
    expect(requestTimeouts({})).toEqual({
      headersTimeout: 60_000,
      requestTimeout: 300_000,
      connectionsCheckingInterval: 1_000,
    });
    expect(requestTimeouts({ headersTimeoutMs: 400 })).toEqual({
      headersTimeout: 400,
      requestTimeout: 300_000,
      connectionsCheckingInterval: 100,
    });
    expect(requestTimeouts({ headersTimeoutMs: 400, requestTimeoutMs: 900 })).toMatchObject({
      requestTimeout: 900,
      connectionsCheckingInterval: 100,
    });
    expect(requestTimeouts({ requestTimeoutMs: 9_999_999 }).connectionsCheckingInterval).toBe(1_000);
    expect(parseServerArgs(['node', 'x', '--headers-timeout', '400'])).toMatchObject({ headersTimeoutMs: 400 });
    // refused as the command refuses them (exit 2, the message printed): in process, no spawn each
    for (const args of [
      ['--headers-timeout', '0'],
      ['--request-timeout', 'soon'],
      ['--headers-timeout', '400000'],
      ['--request-timeout', '1000'],
    ])
      expect(() => parseServerArgs(['node', 'x', ...args]), args.join(' ')).toThrow(
        expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/^error: --(headers|request)-timeout/) }),
      );
    expect(parseServerArgs(['node', 'x'])).toMatchObject({ headersTimeoutMs: undefined, requestTimeoutMs: undefined });
  });

  it('REFERENCE_PROVIDER_STATES=1 enables the provider-state endpoint', async () => {
    const s = start(['--port', '0', '--db', ':memory:', '--log-level', 'warn'], { REFERENCE_PROVIDER_STATES: '1' });
    // the listening line is printed whatever the log level
    const url = await Promise.race([s.url, new Promise<string>((r) => setTimeout(() => r(''), 15_000))]);
    if (!url) {
      s.child.kill('SIGTERM');
      throw new Error('no url: ' + s.output());
    }
    const r = await fetch(url + '/_provider-states', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ state: 'contact relationships', params: { setupId: 'cli' }, action: 'setup' }),
    });
    expect(r.status).toBe(200);
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  }, 40_000);
});
