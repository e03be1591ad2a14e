// The JS starter, filled in by a vendor (examples/provider-states-js, issue 43): the reference
// server runs WITHOUT its own provider states, on a temporary SQLite file; the example endpoint
// (node:http + better-sqlite3) writes its fixtures into that file; a small core selection run
// through it passes. Proof that the states came from the example: the reference has no state
// endpoint of its own (404), the run names the example's URL, and the example logged every call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { ROOT } from '../../spec/paths.js';
import { ONE_WORKER } from './helpers/cli.js';
import { startReferenceProcess, type ReferenceProcess } from '../src/targets/reference-process.js';

const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');
const EXAMPLE = path.join(ROOT, 'examples/provider-states-js/provider-states.mjs');
// a link (a contact, a file, link parents) and a record read: 4 tests, the fixtures of 5 states
const SELECTION = 'REC-001,LINK-001';

let tmp: string;
let reference: ReferenceProcess | undefined;
let endpoint: ChildProcess | undefined;
let stateUrl = '';
let endpointOut = '';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'js-starter-'));
  const db = path.join(tmp, 'vendor.db');
  reference = await startReferenceProcess({ db, providerStates: false, args: ['--log-level', 'warn'] });
  endpoint = spawn(process.execPath, [EXAMPLE], {
    env: { ...process.env, DB_FILE: db, PORT: '0', HOST: '127.0.0.1', LOG: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  endpoint.stderr!.on('data', (d) => (endpointOut += d));
  stateUrl = await new Promise<string>((resolve, reject) => {
    endpoint!.stdout!.on('data', (d) => {
      endpointOut += d;
      const m = /listening on (\S+)/.exec(endpointOut);
      if (m) resolve(m[1]!);
    });
    endpoint!.once('exit', (code) => reject(new Error(`the example endpoint exited (${code}): ${endpointOut}`)));
  });
}, 30_000);

afterAll(async () => {
  if (endpoint && endpoint.exitCode === null) {
    endpoint.kill();
    await once(endpoint, 'exit');
  }
  await reference?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; out: string; results?: Record<string, unknown> }> {
  const dir = path.join(tmp, 'report');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', '--report-dir', dir, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '', ...ONE_WORKER },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const f = path.join(dir, 'results.json');
      resolve({ code, out, results: fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : undefined });
    });
  });
}

describe('the JS starter, filled in (examples/provider-states-js)', () => {
  it('serves a small core selection against the reference without its provider states', async () => {
    const own = await fetch(`${reference!.url}/_provider-states`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'a user', action: 'setup', params: { setupId: 'x' } }),
    });
    expect(own.status, 'the reference serves no provider states of its own').toBe(404);

    const r = await run([
      '--base-url',
      reference!.url,
      '--provider-states-url',
      stateUrl,
      '--profile',
      'core',
      '--requirements',
      SELECTION,
    ]);
    expect(r.code, r.out.slice(-3000)).toBe(0);
    const results = r.results!;
    expect((results.target as { stateUrl: string }).stateUrl).toBe(stateUrl);
    const counts = results.testCounts as Record<string, number>;
    expect(counts.passed, r.out.slice(-3000)).toBeGreaterThanOrEqual(4);
    expect(counts.failed + counts['precondition-failed'] + counts.error + counts.blocked).toBe(0);

    const calls = endpointOut.split('\n').filter((l) => /^(setup|teardown) /.test(l));
    const setups = calls.filter((l) => l.startsWith('setup '));
    expect(setups.filter((l) => l.startsWith('setup "a user" -> 200')).length).toBeGreaterThan(0);
    expect(
      setups.every((l) => l.endsWith('-> 200')),
      calls.join('\n'),
    ).toBe(true);
    // every setup was torn down again
    expect(calls.filter((l) => l.startsWith('teardown ')).length).toBe(setups.length);
  }, 90_000);
});
