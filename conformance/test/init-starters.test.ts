// `conformance init --lang js|python`: each starter is written into an empty folder, started as
// written (node / python3, no dependencies), and asked for every state: a stub answers 501 with a
// problem body naming the state, its teardown 200 {}, an unknown state 400; a setup that throws the
// starter's Refused answers 400, one that throws its FixtureCannotExist 501 with that code. The protocol has no
// discovery request (POST only), so anything else answers 405. The ts starter (a Hono app to
// mount, not a program) is served in process by init.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStateDocs } from '../src/cli/state-catalogue.js';
import { STARTER_FILES } from '../src/cli/state-starters.js';
import { buildProgram } from '../src/cli/main.js';

const RUNNERS = { js: process.execPath, python: 'python3' } as const;

/** Starts a starter on a free port; resolves with its URL once it says where it listens. */
function start(cmd: string, file: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(cmd, [file], { cwd: path.dirname(file), env: { ...process.env, PORT: '0' } });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`${cmd} ${file} exited ${code}: ${out}`)));
  });
}

describe.each(Object.keys(RUNNERS) as (keyof typeof RUNNERS)[])('conformance init --lang %s', (lang) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `init-${lang}-`));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a starter that runs as written and answers 501, naming the state, for every stub', async () => {
    // in process (a spawned CLI costs a second of start-up): the same commander program as the bin
    let code: number | undefined;
    await buildProgram((c) => (code = c)).parseAsync(['init', '--lang', lang, '--dir', dir], { from: 'user' });
    expect(code).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(
      ['conformance.yaml', 'expected-failures.yaml', STARTER_FILES[lang]].sort(),
    );
    // two stubs filled in the simplest way a vendor may: refusing its params, and a fixture that
    // cannot exist (the starter's own error types, so no vendor has to edit its answer())
    const file = path.join(dir, STARTER_FILES[lang]);
    const stub = (state: string) =>
      lang === 'js' ? `throw new NotImplemented("${state}", params);` : `raise NotImplementedState("${state}", params)`;
    const fill = (error: string, message: string) =>
      lang === 'js' ? `throw new ${error}("${message}");` : `raise ${error}("${message}")`;
    const filled = fs
      .readFileSync(file, 'utf8')
      .replace(stub('an expired token'), fill('Refused', 'no expired tokens here'))
      .replace(stub('a setting'), fill('FixtureCannotExist', 'no settings in this design'));
    expect(filled).toContain(fill('Refused', 'no expired tokens here'));
    expect(filled).toContain(fill('FixtureCannotExist', 'no settings in this design'));
    fs.writeFileSync(file, filled);
    const started = await start(RUNNERS[lang], file);
    child = started.child;
    const post = async (body: unknown) => {
      const res = await fetch(started.url, { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const refused = await post({ state: 'an expired token', params: { setupId: 's0' }, action: 'setup' });
    expect(refused).toMatchObject({ status: 400, body: { status: 400, detail: 'no expired tokens here' } });
    const cannotExist = await post({ state: 'a setting', params: { setupId: 's0' }, action: 'setup' });
    expect(cannotExist).toMatchObject({
      status: 501,
      body: { status: 501, code: 'FixtureCannotExist', detail: 'no settings in this design' },
    });
    for (const { name } of loadStateDocs()) {
      if (name === 'an expired token' || name === 'a setting') continue;
      const setup = await post({ state: name, params: { setupId: 's1', domain: 'Claim' }, action: 'setup' });
      expect(setup.status, name).toBe(501);
      expect(setup.body).toMatchObject({ status: 501, title: 'Not Implemented' });
      expect(setup.body.detail).toContain(`'${name}' is not implemented yet`);
      expect(setup.body.detail).toContain('Claim');
      expect(await post({ state: name, params: { setupId: 's1' }, action: 'teardown' })).toEqual({
        status: 200,
        body: {},
      });
    }
    const unknown = await post({ state: 'no such state', params: { setupId: 'x' }, action: 'setup' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('no such state');
    expect((await fetch(started.url)).status).toBe(405);
    const notJson = await fetch(started.url, { method: 'POST', body: '{' });
    expect(notJson.status).toBe(400);
  }, 60_000);
});
