// The table of run options (src/model/options.ts): every row reaches the flags of `conformance run`,
// the environment map, the config file and the library's typed options; an unknown key is an error
// with a suggestion wherever it is given; numbers may be numbers and bindings an object.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { resolveRunOptions } from '../src/run/config.js';
import { contextFromEnv } from '../src/model/context.js';
import {
  CONFIG_KEYS,
  ENV_VARS,
  RUN_OPTIONS,
  pickMarked,
  runOptionFlags,
  suggest,
  type ConformanceOptions,
} from '../src/model/options.js';
import { registerRun } from '../src/cli/run.js';
import { UsageError } from '../src/model/errors.js';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { ROOT } from '../../spec/paths.js';

const catalogue = loadCatalogue();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-options-'));
const BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');

function usageError(f: () => unknown): UsageError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error('no error thrown');
}

describe('the table of run options', () => {
  const program = new Command();
  registerRun(program, () => {});
  const run = program.commands.find((c) => c.name() === 'run')!;

  it('every row with a flag is a flag of `conformance run`, with its variable and its default in the help', () => {
    const flags = runOptionFlags();
    expect(run.options.map((o) => o.attributeName())).toEqual(flags.map((f) => f.key));
    for (const row of RUN_OPTIONS) {
      const o = run.options.find((x) => x.attributeName() === row.key);
      if (!('flag' in row)) {
        expect(o, row.key).toBeUndefined();
        continue;
      }
      expect(o?.flags, row.key).toBe(row.flag);
      if ('env' in row && !('envInHelp' in row)) expect(o?.description, row.key).toContain(`[${row.env}]`);
      if ('default' in row)
        expect(o?.description, row.key).toMatch(
          new RegExp(`default[^)]*${String(row.default).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
        );
      expect(o?.description, row.key).not.toContain('{default}');
    }
  });

  it('the help names every variable; the environment map and the config keys come from the same rows', () => {
    let help = '';
    run.configureOutput({ writeOut: (s) => (help += s) });
    run.outputHelp();
    for (const v of Object.values(ENV_VARS)) expect(help).toContain(v);
    const rowsWithEnv = RUN_OPTIONS.filter((r) => 'env' in r);
    expect(Object.keys(ENV_VARS)).toEqual(rowsWithEnv.map((r) => r.key));
    expect(new Set(Object.values(ENV_VARS)).size).toBe(rowsWithEnv.length);
    for (const v of Object.values(ENV_VARS)) expect(v).toMatch(/^CONFORMANCE_[A-Z_]+$/);
    // taken by the config file: all but the config file itself and the HAR file; bindings only there
    expect([...CONFIG_KEYS]).toEqual(RUN_OPTIONS.map((r) => r.key).filter((k) => k !== 'config' && k !== 'recordHar'));
  });

  it('each flag and variable is named after its key', () => {
    // written out in each row (a vendor reads them there), checked here so they cannot drift
    const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    for (const row of RUN_OPTIONS) {
      if ('flag' in row) expect(row.flag.split(' ')[0], row.key).toBe(`--${kebab(row.key)}`);
      if ('env' in row) expect(row.env, row.key).toBe(`CONFORMANCE_${kebab(row.key).replace(/-/g, '_').toUpperCase()}`);
    }
  });

  /** The resolved field of a row (RunOptions): named by `field`, else by its key. */
  const fieldOf = (row: (typeof RUN_OPTIONS)[number]): string => ('field' in row ? row.field : row.key);

  it('every option with a default resolves to it when not given', () => {
    const o = resolveRunOptions({}, {}, { catalogue, cwd: tmp }) as unknown as Record<string, unknown>;
    const withDefault = RUN_OPTIONS.filter((r) => 'default' in r);
    expect(withDefault.length).toBeGreaterThan(10);
    for (const row of withDefault) {
      const v = o[fieldOf(row)];
      // the report directory is resolved against the working directory
      expect(row.key === 'reportDir' ? path.relative(tmp, v as string) : v, row.key).toEqual(row.default);
    }
  });

  it('a row that is not derived is a field of the resolved options: its value as read', () => {
    // a value of each kind, and one that passes each option's own check
    const sample: Record<string, unknown> = {
      integer: 7,
      number: 4.5,
      boolean: true,
      seed: -12,
      count: 3,
      list: 'A-,B-',
      keyValues: { K: 'V' },
      string: 'text',
      providerStatesUrl: 'http://states.example.test/x',
      shard: '2/3',
      healthPath: '/ready',
    };
    const plain = RUN_OPTIONS.filter((r) => !('derived' in r));
    expect(plain.length).toBeGreaterThan(15);
    const given = Object.fromEntries(
      plain.map((r) => [r.key, r.key in sample ? sample[r.key] : 'choices' in r ? r.choices.at(-1) : sample[r.kind]]),
    );
    const o = resolveRunOptions(given as ConformanceOptions, {}, { cwd: tmp }) as unknown as Record<string, unknown>;
    const expected: Record<string, unknown> = { list: ['A-', 'B-'], count: 3, seed: -12 };
    for (const row of plain) {
      const g = given[row.key];
      expect(o[fieldOf(row)], row.key).toEqual(row.kind in expected ? expected[row.kind] : g);
    }
  });
});

describe('an unknown key is an error with a suggestion', () => {
  it('from the library', () => {
    const e = usageError(() =>
      resolveRunOptions({ baseUrl: 'http://example.test', profil: 'all' } as ConformanceOptions, {}, { cwd: tmp }),
    );
    expect(e.message).toBe("options: unknown option 'profil' (did you mean profile?)");
    // no near name: the known ones are listed
    expect(
      usageError(() => resolveRunOptions({ zzzzzzzz: 1 } as ConformanceOptions, {}, { cwd: tmp })).message,
    ).toMatch(/unknown option 'zzzzzzzz' \(known: baseUrl, image, /);
    // a hook given as an option is not silently ignored either
    expect(() => resolveRunOptions({ tests: ['x'] } as ConformanceOptions, {}, { cwd: tmp })).toThrow(UsageError);
  });

  it('from the config file, in the case it was written in', () => {
    const kebab = path.join(tmp, 'typo.yaml');
    fs.writeFileSync(kebab, 'profil: all\nasync-timout: 5\n');
    expect(usageError(() => resolveRunOptions({ config: kebab }, {}, { cwd: tmp })).message).toMatch(
      /config file .*typo\.yaml: unknown key 'profil' \(did you mean profile\?\)/,
    );
    const camelFile = path.join(tmp, 'typo2.yaml');
    fs.writeFileSync(camelFile, 'asyncTimout: 5\n');
    expect(usageError(() => resolveRunOptions({ config: camelFile }, {}, { cwd: tmp })).message).toMatch(
      /unknown key 'asyncTimout' \(did you mean asyncTimeout\?\)/,
    );
    const dashed = path.join(tmp, 'typo3.yaml');
    fs.writeFileSync(dashed, 'async-timout: 5\n');
    expect(usageError(() => resolveRunOptions({ config: dashed }, {}, { cwd: tmp })).message).toMatch(
      /unknown key 'async-timout' \(did you mean async-timeout\?\)/,
    );
  });

  it('from the command line (exit 2)', () => {
    const r = spawnSync(process.execPath, [BIN, 'run', '--profil', 'all'], {
      cwd: ROOT,
      env: { ...process.env, CI: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("unknown option '--profil'");
    expect(r.stderr).toContain('Did you mean --profile?');
  });

  it('suggests only what is near', () => {
    expect(suggest('profil', ['profile', 'image'])).toBe('profile');
    expect(suggest('requirments', ['requirements', 'readOnly'])).toBe('requirements');
    expect(suggest('basurl', ['baseUrl'])).toBe('baseUrl');
    expect(suggest('colour', ['profile', 'image', 'seed'])).toBeUndefined();
  });
});

describe('typed options for a caller in code', () => {
  it('numbers as numbers (their text still accepted), booleans as booleans, lists as lists', () => {
    const typed = resolveRunOptions(
      { timeout: 5000, absenceFactor: 1.5, seed: -7, readOnly: true, requirements: ['REC-', 'AUTH-001'], bail: 2 },
      {},
      { catalogue, cwd: tmp },
    );
    expect(typed).toMatchObject({
      timeoutMs: 5000,
      absenceFactor: 1.5,
      seed: -7,
      readOnly: true,
      requirements: ['REC-', 'AUTH-001'],
      bail: 2,
    });
    const asText = resolveRunOptions(
      { timeout: '5000', absenceFactor: '1.5', seed: '-7' },
      {},
      { catalogue, cwd: tmp },
    );
    expect([asText.timeoutMs, asText.absenceFactor, asText.seed]).toEqual([5000, 1.5, -7]);
    expect(() => resolveRunOptions({ timeout: 0 }, {}, { cwd: tmp })).toThrow(
      /--timeout must be an integer >= 1 \(got '0'\)/,
    );
    expect(() => resolveRunOptions({ timeout: 2.5 }, {}, { cwd: tmp })).toThrow(/--timeout/);
    expect(resolveRunOptions({ containerEnv: { A: '1', B: 'x=y' } }, {}, { cwd: tmp }).containerEnv).toEqual({
      A: '1',
      B: 'x=y',
    });
  });

  it('bindings as an object, checked as the config file checks them, winning over the file', () => {
    const o = resolveRunOptions(
      { bindings: { tokenHeader: 'Authorization', query: { skip: 'offset' } } },
      {},
      { cwd: tmp },
    );
    expect([o.bindings.tokenHeader, o.bindings.query.skip, o.bindings.query.filter]).toEqual([
      'Authorization',
      'offset',
      'filter',
    ]);
    expect(() =>
      resolveRunOptions({ bindings: { query: { skipp: 'offset' } } } as ConformanceOptions, {}, { cwd: tmp }),
    ).toThrow(/options: unknown binding bindings\.query\.skipp/);
    const file = path.join(tmp, 'bindings.yaml');
    fs.writeFileSync(file, 'bindings:\n  tokenHeader: X-Key\n');
    expect(resolveRunOptions({ config: file }, {}, { cwd: tmp }).bindings.tokenHeader).toBe('X-Key');
    expect(
      resolveRunOptions({ config: file, bindings: { tokenHeader: 'Y' } }, {}, { cwd: tmp }).bindings.tokenHeader,
    ).toBe('Y');
  });

  it('the type has no string-keyed record: a misspelt key or a wrong value does not compile', () => {
    // @ts-expect-error: no option 'profil'
    const misspelt: ConformanceOptions = { profil: 'all' };
    // @ts-expect-error: not a profile
    const wrong: ConformanceOptions = { profile: 'gold' };
    // @ts-expect-error: not a binding
    const badBinding: ConformanceOptions = { bindings: { tokenHeaderr: 'X' } };
    expect([misspelt, wrong, badBinding]).toHaveLength(3);
  });
});

describe('a suite file run by plain vitest reads CONFORMANCE_* through the same table', () => {
  it('values read and validated as a run reads them', () => {
    const c = contextFromEnv({
      CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/',
      CONFORMANCE_PROFILE: 'all',
      CONFORMANCE_REQUIREMENTS: 'REC-, AUTH-001',
      CONFORMANCE_READ_ONLY: 'yes',
      CONFORMANCE_ASYNC_TIMEOUT: '5000',
      CONFORMANCE_ABSENCE_FACTOR: '1.5',
    });
    expect(c).toMatchObject({
      baseUrl: 'http://127.0.0.1:9',
      stateUrl: 'http://127.0.0.1:9/_provider-states',
      profile: 'all',
      requirements: ['REC-', 'AUTH-001'],
      readOnly: true,
      timeoutMs: 30_000,
      asyncTimeoutMs: 5000,
      clockToleranceMs: 50 * 60_000,
      absenceFactor: 1.5,
    });
    expect(() => contextFromEnv({ CONFORMANCE_PROFILE: 'gold' })).toThrow(/--profile must be core/);
    expect(() => contextFromEnv({ CONFORMANCE_TIMEOUT: 'soon' })).toThrow(/--timeout/);
  });
});

describe('what the workers and the reports are given is the rows marked for them, not a copy', () => {
  const fieldOf = (row: (typeof RUN_OPTIONS)[number]): string => ('field' in row ? row.field : row.key);

  it('every row marked `context` reaches the context under its field; `report` rows are picked under theirs', () => {
    const marked = RUN_OPTIONS.filter((r) => 'context' in r);
    expect(marked.length).toBeGreaterThan(0);
    const c = contextFromEnv({ CONFORMANCE_SEED: '7', CONFORMANCE_MODEL_RUNS: '3' });
    for (const r of marked) expect(c, r.key).toHaveProperty(fieldOf(r));
    const resolved = resolveRunOptions(
      { baseUrl: 'http://example.test', profile: 'all', requirements: 'REC-', readOnly: true, shard: '1/2' },
      {},
      { cwd: os.tmpdir() },
    );
    expect(pickMarked(resolved, 'report')).toEqual({
      profile: 'all',
      requirements: ['REC-'],
      readOnly: true,
      shard: '1/2',
    });
  });
});
