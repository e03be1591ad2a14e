// `conformance init`: its conformance.yaml loads through the config loader (as written, and with
// every binding uncommented, giving exactly the defaults of bindings.ts), its expected-failures
// template loads as an empty list, and its provider-state skeleton serves the protocol with one
// stub per state of the spec. The bindings table of conformance/README.md is the generated one.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultBindings } from '../src/model/bindings.js';
import { bindingRows, bindingsMarkdown, withBindingsTable } from '../src/cli/binding-docs.js';
import { loadStateDocs } from '../src/cli/state-catalogue.js';
import { resolveRunOptions } from '../src/run/config.js';
import { loadExpectedFailures } from '../src/report/gate.js';
import { ROOT } from '../src/paths.js';
import { runCli } from './helpers/cli.js';

describe('conformance init', () => {
  // inside the repository, so that the skeleton's `hono` import resolves
  const dir = path.join(ROOT, 'reports', 'tmp', `init-test-${process.pid}`);
  const file = (f: string) => path.join(dir, f);

  beforeAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    const r = await runCli(['init', '--dir', dir]);
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the three files and refuses to overwrite them without --force', async () => {
    expect(fs.readdirSync(dir).sort()).toEqual(['conformance.yaml', 'expected-failures.yaml', 'provider-states.ts']);
    const again = await runCli(['init', '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exist/);
    expect((await runCli(['init', '--dir', dir, '--force'])).code).toBe(0);
  }, 60_000);

  it('conformance.yaml passes the config loader as written and with every binding uncommented', () => {
    const text = fs.readFileSync(file('conformance.yaml'), 'utf8');
    for (const r of bindingRows()) expect(text).toContain(`${r.key.split('.').pop()}: `);
    const asWritten = resolveRunOptions({ config: file('conformance.yaml'), baseUrl: 'http://127.0.0.1:9' }, {});
    expect(asWritten.bindings).toEqual(defaultBindings);

    // uncomment the bindings block: every key with its default must load to the defaults
    const lines = text.split('\n');
    const start = lines.indexOf('# bindings:');
    expect(start).toBeGreaterThan(0);
    const uncommented = [...lines.slice(0, start), ...lines.slice(start).map((l) => l.replace(/^# ?/, ''))].join('\n');
    fs.writeFileSync(file('uncommented.yaml'), uncommented);
    const o = resolveRunOptions({ config: file('uncommented.yaml') }, {});
    expect(o.bindings).toEqual(defaultBindings);
    // and a changed value is taken (the keys are real keys, not decoration)
    fs.writeFileSync(
      file('changed.yaml'),
      uncommented
        .replace(/^ {2}tokenHeader: Token/m, '  tokenHeader: Authorization')
        .replace(/^ {4}skip: skip/m, '    skip: offset'),
    );
    const changed = resolveRunOptions({ config: file('changed.yaml'), baseUrl: 'http://127.0.0.1:9' }, {});
    expect(changed.bindings.tokenHeader).toBe('Authorization');
    expect(changed.bindings.query.skip).toBe('offset');

    // every run option the config file takes is listed, and uncommenting one works
    expect(text).toMatch(/^# base-url: <url>$/m);
    fs.writeFileSync(file('url.yaml'), text.replace('# base-url: <url>', 'base-url: http://127.0.0.1:9'));
    expect(resolveRunOptions({ config: file('url.yaml') }, {}).target).toEqual({
      kind: 'url',
      baseUrl: 'http://127.0.0.1:9',
    });
  });

  it('expected-failures.yaml loads as an empty list', () => {
    expect(loadExpectedFailures(file('expected-failures.yaml'))).toEqual([]);
  });

  it('provider-states.ts serves the protocol with one stub per state of the spec', async () => {
    const mod = await import(file('provider-states.ts'));
    const states = loadStateDocs().map((s) => s.name);
    expect(Object.keys(mod.states)).toEqual(states);
    const post = (body: unknown) =>
      mod.providerStates.request('/_provider-states', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unknown = await post({ state: 'no such state', params: { setupId: 'x' }, action: 'setup' });
    expect(unknown.status).toBe(400);
    for (const state of states) {
      const r = await post({ state, params: { setupId: 's1' }, action: 'setup' });
      expect(r.status, state).toBe(501);
      expect((await r.json()).detail).toContain(state);
      expect((await post({ state, params: { setupId: 's1' }, action: 'teardown' })).status).toBe(200);
    }
  });
});

describe('the bindings table of conformance/README.md', () => {
  it('is the one generated from bindings.ts (npm run docs:bindings rewrites it)', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'conformance', 'README.md'), 'utf8');
    expect(readme).toContain(bindingsMarkdown());
    expect(withBindingsTable(readme)).toBe(readme);
  });
});
