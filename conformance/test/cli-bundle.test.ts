// The `conformance` command starts from an esbuild bundle of its sources (conformance/bin/cli-bundle.mjs):
// it must never run stale code. The bundle is rebuilt whenever a file it was built from has changed.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../spec/paths.js';
import { CLI_BUNDLE, buildCliBundle, cliBundleIsFresh, freshCliBundle } from '../bin/cli-bundle.mjs';

const INPUTS = path.join(ROOT, 'dist', 'conformance-cli.inputs.json');

describe('the CLI bundle', () => {
  it('lists the files it was built from, and is fresh right after a build', async () => {
    expect(await buildCliBundle()).toBe(CLI_BUNDLE);
    const inputs = Object.keys(JSON.parse(fs.readFileSync(INPUTS, 'utf8')) as Record<string, string>);
    expect(inputs).toContain('conformance/src/cli/main.ts');
    expect(inputs).toContain('conformance/src/run/vitest-run.ts');
    expect(inputs).toContain('spec/paths.ts');
    expect(inputs.every((f) => fs.existsSync(path.join(ROOT, f)))).toBe(true);
    expect(cliBundleIsFresh()).toBe(true);
  }, 60_000);

  it("is stale once a source's content changes, not its time, and freshCliBundle builds it again", async () => {
    await buildCliBundle();
    // a time of its own (an npm install or a git checkout writes files with the time of writing)
    const source = path.join(ROOT, 'conformance/src/run/collect.ts');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(source, later, later);
    expect(cliBundleIsFresh()).toBe(true);
    // a change of content: the list records the hash of another text
    const inputs = JSON.parse(fs.readFileSync(INPUTS, 'utf8')) as Record<string, string>;
    const saved = fs.readFileSync(INPUTS);
    fs.writeFileSync(INPUTS, JSON.stringify({ ...inputs, 'conformance/src/run/collect.ts': '0'.repeat(64) }));
    expect(cliBundleIsFresh()).toBe(false);
    expect(await freshCliBundle()).toBe(CLI_BUNDLE);
    expect(fs.readFileSync(INPUTS, 'utf8')).toBe(saved.toString());
    expect(cliBundleIsFresh()).toBe(true);
    const now = new Date();
    fs.utimesSync(source, now, now);
  }, 60_000);

  it('is stale when its list of inputs is missing', async () => {
    await buildCliBundle();
    const saved = fs.readFileSync(INPUTS);
    fs.rmSync(INPUTS);
    try {
      expect(cliBundleIsFresh()).toBe(false);
    } finally {
      fs.writeFileSync(INPUTS, saved);
    }
  }, 60_000);

  it('runs the command: `conformance --version` from the bundle and from the sources agree', () => {
    const version = (env: NodeJS.ProcessEnv) =>
      execFileSync(process.execPath, ['conformance/bin/conformance.mjs', '--version'], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      }).trim();
    const fromBundle = version({});
    expect(fromBundle).toMatch(/\d+\.\d+\.\d+/);
    expect(version({ CONFORMANCE_NO_BUNDLE: '1' })).toBe(fromBundle);
  }, 60_000);
});
