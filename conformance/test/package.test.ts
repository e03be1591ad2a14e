// The suite as vendors get it: `npm pack`, installed into an empty directory with no repository
// around it (offline, from the npm cache), then `conformance run --config ...` from there against
// the reference server. The reports must land in the working directory and nothing may be written
// into node_modules during the run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOffline, pack } from '../image/pack-install.js';
import { LocalProcessTarget } from '../src/targets/local-process.js';
import type { StartedTarget } from '../src/targets/target.js';
import { ONE_WORKER } from './helpers/cli.js';

const PKG = 'rflps-conformance';

/** path → size:mtime of every file under `dir` (to see that a run wrote nothing there). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    const st = fs.lstatSync(p);
    out.set(path.relative(dir, p), e.isFile() ? `${st.size}:${st.mtimeMs}` : e.isDirectory() ? 'dir' : 'link');
  }
  return out;
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      // a vendor's run: nothing cached in node_modules (checked below)
      env: { ...process.env, CI: '', CONFORMANCE_REQUIRE_CONTAINER: '', CONFORMANCE_FS_CACHE: '', ...env },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the packed package', () => {
  let tmp: string;
  let packed: ReturnType<typeof pack>;

  // one `npm pack` (its prepack builds the CLI bundle): its file list is checked, its tarball installed
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-package-test-'));
    packed = pack(tmp);
  }, 120_000);

  // removing the installed package tree took 15 s on a loaded machine (the default hook limit is 10 s)
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('ships the suite, spec, catalogue and image recipes, and no tests, reports or benchmarks', () => {
    const { files } = packed;
    for (const f of [
      'conformance/bin/conformance.mjs',
      // the CLI's bundle (prepack builds it): the installed command starts from it, nothing is built
      'dist/conformance-cli.mjs',
      'dist/conformance-cli.inputs.json',
      'conformance/src/cli/main.ts',
      'conformance/suite/generic.test.ts',
      'conformance/client/index.mjs',
      'conformance/client/index.d.ts',
      'conformance/image/build.sh',
      'conformance/schema/results.schema.json',
      'conformance/schema/bundle-predicate.schema.json',
      'conformance/README.md',
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'spec/provider-states.yaml',
      'spec/generated/openapi.json',
      'spec/generated/openapi.ts',
      'reference-server/image/build.sh',
      'scripts/image/assemble-rootfs.sh',
      'reference-server/src/main.ts',
      'reference-server/bin/reference-server.mjs',
    ]) {
      expect(files, f).toContain(f);
    }
    const devOnly =
      /^(conformance\/test|conformance\/faults|reference-server\/test|spec\/test|bench|reports|scripts|docs)\//;
    // scripts/ holds the repository's own tools; only scripts/image/ (the rootfs assembly both image
    // recipes source) ships
    const unwanted = files.filter((f) => devOnly.test(f) && !f.startsWith('scripts/image/'));
    expect(unwanted).toEqual([]);
  }, 60_000);

  describe('installed into an empty directory', () => {
    let project: string;
    let target: LocalProcessTarget;
    let started: StartedTarget;

    beforeAll(async () => {
      project = path.join(tmp, 'vendor');
      fs.mkdirSync(project);
      installOffline(project, packed.tarball);
      target = new LocalProcessTarget({ log: () => undefined });
      started = await target.start();
    }, 180_000);

    afterAll(async () => {
      await target?.stop();
    }, 60_000);

    it('runs the core suite with --config from the working directory, writing only there', async () => {
      const work = path.join(tmp, 'work');
      fs.mkdirSync(work);
      // two areas: every suite file is still loaded from the installed package (a selection only
      // leaves tests out), and the whole core run of the packed package is the suite image's
      // smoke test in CI (scripts/ci/smoke-suite-image.sh: the image holds this same tarball)
      fs.writeFileSync(
        path.join(work, 'conformance.yaml'),
        `base-url: ${started.baseUrl}\nprofile: core\nrequirements: DOM-,REC-\nreport-dir: out\ntarget-label: packed package\n`,
      );
      const modules = path.join(project, 'node_modules');
      const before = snapshot(modules);
      const bin = path.join(modules, '.bin', 'conformance');
      // one worker thread (helpers/cli.ts): the point is the package, not how the run spreads over threads
      const r = await run(bin, ['run', '--config', 'conformance.yaml'], work, ONE_WORKER);
      expect(r.out).toMatch(/Verdict: PASS \(exit 0\)/);
      expect(r.code).toBe(0);
      expect(fs.readdirSync(path.join(work, 'out')).sort()).toEqual(
        ['badge.svg', 'junit.xml', 'report.html', 'results.json'].sort(),
      );
      const results = JSON.parse(fs.readFileSync(path.join(work, 'out', 'results.json'), 'utf8'));
      expect(results.profile).toBe('core');
      expect(results.verdict).toBe('pass');
      expect(results.counts.passed).toBeGreaterThanOrEqual(10);
      expect(results.counts.failed).toBe(0);
      // every suite file was loaded: the ones outside the selection report their tests as not selected
      expect(r.out.match(/^✓ conformance\/suite\/\S+\.test\.ts /gm)?.length).toBeGreaterThanOrEqual(15);

      const after = snapshot(modules);
      const changed = [...after].filter(([p, v]) => before.get(p) !== v).map(([p]) => p);
      const removed = [...before.keys()].filter((p) => !after.has(p));
      expect({ changed, removed }).toEqual({ changed: [], removed: [] });
    }, 240_000);

    it('exports the typed client: a vendor script reaches the server with it', async () => {
      const script = path.join(project, 'use-client.mjs');
      fs.writeFileSync(
        script,
        [
          `import { createServiceClient } from '${PKG}/client';`,
          `const anonymous = createServiceClient({ baseUrl: process.argv[2] });`,
          `console.log('anonymous', (await anonymous.GET('/api/Domains')).response.status);`,
          `const client = createServiceClient({ baseUrl: process.argv[2], token: process.argv[3] });`,
          `const { data, response } = await client.GET('/api/Domains');`,
          `console.log('with token', response.status, data.List.some((d) => d.Name === 'Claim'));`,
        ].join('\n'),
      );
      const state = await fetch(started.stateUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'a user', params: { setupId: 'package-test' }, action: 'setup' }),
      });
      const { token } = (await state.json()) as { token: string };
      const r = await run(process.execPath, [script, started.baseUrl, token], project);
      expect(r.out).toContain('anonymous 401');
      expect(r.out).toContain('with token 200 true');
      expect(r.code).toBe(0);
      const pkg = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', PKG, 'package.json'), 'utf8'));
      expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['./client', './types']));
      expect(fs.existsSync(path.join(project, 'node_modules', PKG, pkg.exports['./types'].types))).toBe(true);
    }, 60_000);

    it('answers --help and --version through npx without a repository', async () => {
      const env = { npm_config_update_notifier: 'false' };
      const version = JSON.parse(
        fs.readFileSync(path.join(project, 'node_modules', PKG, 'package.json'), 'utf8'),
      ).version;
      const v = await run('npx', ['--no-install', 'conformance', '--version'], project, env);
      expect(v.code).toBe(0);
      expect(v.out).toContain(version);
      const help = await run('npx', ['--no-install', 'conformance', '--help'], project, env);
      expect(help.code).toBe(0);
      for (const cmd of ['run', 'merge', 'init', 'states']) expect(help.out).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    }, 60_000);
  });
});
