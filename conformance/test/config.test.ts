import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveRunOptions } from '../src/run/config.js';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { UsageError } from '../src/model/errors.js';
import { absenceWindowMs, selectTest, matchesSelection } from '../src/model/context.js';
import { resolveBindings } from '../src/model/bindings.js';

const catalogue = loadCatalogue();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-config-'));

describe('run options', () => {
  it('defaults: reference target, core profile, 30 s per request (what a patient client allows)', () => {
    const o = resolveRunOptions({}, {}, { catalogue, cwd: tmp });
    expect(o).toMatchObject({
      target: { kind: 'reference' },
      profile: 'core',
      timeoutMs: 30_000,
      readOnly: false,
      requireContainer: false,
      containerPort: 8080,
      healthPath: '/health',
    });
    expect(o.reportDir).toBe(path.join(tmp, 'reports/latest'));
    expect(o.bindings.tokenHeader).toBe('Token');
  });

  it('absence window: factor and floor (seconds) with defaults, from flag, env or config file, validated', () => {
    const d = resolveRunOptions({}, {}, { catalogue, cwd: tmp });
    expect([d.absenceFactor, d.absenceFloorS]).toEqual([3, 2]);
    const file = path.join(tmp, 'absence.yaml');
    fs.writeFileSync(file, 'absence-factor: 5\nabsence-floor: 0.5\n');
    const f = resolveRunOptions({ config: file }, {}, { catalogue, cwd: tmp });
    expect([f.absenceFactor, f.absenceFloorS]).toEqual([5, 0.5]);
    const e = resolveRunOptions({ absenceFactor: '2' }, { CONFORMANCE_ABSENCE_FLOOR: '10' }, { catalogue, cwd: tmp });
    expect([e.absenceFactor, e.absenceFloorS]).toEqual([2, 10]);
    expect(() => resolveRunOptions({ absenceFactor: '0.5' }, {}, { catalogue, cwd: tmp })).toThrow(/absence-factor/);
    expect(() => resolveRunOptions({ absenceFloor: '2000ms' }, {}, { catalogue, cwd: tmp })).toThrow(/absence-floor/);
  });

  it('the absence window is factor x the accepted case, at least the floor, at most the async timeout', () => {
    const c = { absenceFactor: 3, absenceFloorS: 2, asyncTimeoutMs: 60_000 };
    expect(absenceWindowMs(100, c)).toBe(2000);
    expect(absenceWindowMs(1500, c)).toBe(4500);
    expect(absenceWindowMs(30_000, c)).toBe(60_000);
    expect(absenceWindowMs(100, { asyncTimeoutMs: 60_000 })).toBe(2000); // defaults
  });

  it('async timeout and clock tolerance: generous defaults, from flag, env or config file', () => {
    const d = resolveRunOptions({}, {}, { catalogue, cwd: tmp });
    expect([d.asyncTimeoutMs, d.clockToleranceMs]).toEqual([60_000, 50 * 60_000]);
    const file = path.join(tmp, 'async.yaml');
    fs.writeFileSync(file, 'async-timeout: 120000\nclock-tolerance: 600000\n');
    const f = resolveRunOptions({ config: file }, {}, { catalogue, cwd: tmp });
    expect([f.asyncTimeoutMs, f.clockToleranceMs]).toEqual([120_000, 600_000]);
    const e = resolveRunOptions(
      { asyncTimeout: '90000' },
      { CONFORMANCE_ASYNC_TIMEOUT: '5000' },
      { catalogue, cwd: tmp },
    );
    expect(e.asyncTimeoutMs).toBe(90_000);
    expect(() => resolveRunOptions({ asyncTimeout: 'soon' }, {}, { catalogue, cwd: tmp })).toThrow(UsageError);
  });

  it('command line beats environment beats config file', () => {
    const file = path.join(tmp, 'c.yaml');
    fs.writeFileSync(
      file,
      'profile: all\ntimeout: 3000\nread-only: true\nbindings:\n  tokenHeader: Authorization\n  tokenPrefix: "Bearer "\n',
    );
    const o = resolveRunOptions(
      { config: file, timeout: '5000' },
      { CONFORMANCE_PROFILE: 'implementation-defined' },
      { catalogue, cwd: tmp },
    );
    expect(o.timeoutMs).toBe(5000);
    expect(o.profile).toBe('implementation-defined');
    expect(o.readOnly).toBe(true);
    expect(o.bindings.tokenHeader).toBe('Authorization');
    expect(o.bindings.tokenPrefix).toBe('Bearer ');
  });

  it('CI=true requires a container', () => {
    expect(resolveRunOptions({}, { CI: 'true' }, { catalogue }).requireContainer).toBe(true);
    expect(resolveRunOptions({}, { CONFORMANCE_REQUIRE_CONTAINER: '1' }, { catalogue }).requireContainer).toBe(true);
  });

  it.each([
    [{ profile: 'gold' }, /--profile/],
    [{ baseUrl: 'http://a', image: 'b' }, /only one of/],
    [{ baseUrl: 'not a url' }, /not a URL/],
    [{ timeout: '-5' }, /--timeout/],
    [{ shard: '3/2' }, /--shard/],
    [{ requirements: 'NOPE-' }, /no requirement matches NOPE-/],
    [{ containerEnv: ['novalue'] }, /K=V/],
    [{ fixtures: '/does/not/exist.yaml' }, /cannot read fixtures/],
    [{ config: '/does/not/exist.yaml' }, /cannot read config/],
  ])('usage error for %j', (raw, msg) => {
    expect(() => resolveRunOptions(raw as any, {}, { catalogue, cwd: tmp })).toThrow(msg);
    try {
      resolveRunOptions(raw as any, {}, { catalogue, cwd: tmp });
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
    }
  });

  it('unknown config keys and bindings are errors', () => {
    const f1 = path.join(tmp, 'bad1.yaml');
    fs.writeFileSync(f1, 'profiel: core\n');
    expect(() => resolveRunOptions({ config: f1 }, {}, { catalogue })).toThrow(/unknown key 'profiel'/);
    const f2 = path.join(tmp, 'bad2.yaml');
    fs.writeFileSync(f2, 'bindings:\n  query:\n    skipp: offset\n');
    expect(() => resolveRunOptions({ config: f2 }, {}, { catalogue })).toThrow(/unknown binding bindings.query.skipp/);
  });

  it('bindings only rename', () => {
    const b = resolveBindings({ query: { skip: 'offset' } });
    expect(b.query.skip).toBe('offset');
    expect(b.query.filter).toBe('filter');
  });
});

describe('test selection', () => {
  const ctx = { profile: 'core' as const, requirements: [] as string[], readOnly: false };
  it('by profile, requirement prefix and read-only', () => {
    expect(selectTest({ requirements: ['A-1'] }, ctx)).toEqual({ run: true });
    expect(selectTest({ requirements: ['A-1'], profile: 'implementation-defined' }, ctx)).toMatchObject({
      run: false,
      reason: expect.stringMatching(/profile/),
    });
    expect(
      selectTest({ requirements: ['A-1'], profile: 'implementation-defined' }, { ...ctx, profile: 'all' }),
    ).toEqual({ run: true });
    expect(selectTest({ requirements: ['SCHED-035'] }, { ...ctx, requirements: ['SCHED-'] })).toEqual({ run: true });
    expect(selectTest({ requirements: ['AUTH-001'] }, { ...ctx, requirements: ['SCHED-'] })).toMatchObject({
      run: false,
    });
    expect(selectTest({ requirements: ['A-1'], mutates: true }, { ...ctx, readOnly: true })).toMatchObject({
      run: false,
      reason: expect.stringMatching(/read-only/),
    });
    expect(matchesSelection('SCHED-035', ['SCHED-035'])).toBe(true);
  });
});

describe('the provider-state protocol version', () => {
  it('is unset by default: the endpoint’s answers declare it', () => {
    expect(resolveRunOptions({}, {}, { catalogue, cwd: tmp }).providerStatesProtocol).toBeUndefined();
  });

  it('comes from the flag, the variable, or the top of a fixtures file', () => {
    expect(resolveRunOptions({ providerStatesProtocol: '1.0.0' }, {}, { catalogue, cwd: tmp })).toMatchObject({
      providerStatesProtocol: '1.0.0',
    });
    expect(
      resolveRunOptions({}, { CONFORMANCE_PROVIDER_STATES_PROTOCOL: '1.1.0' }, { catalogue, cwd: tmp }),
    ).toMatchObject({ providerStatesProtocol: '1.1.0' });
    const file = path.join(tmp, 'fixtures-1.1.yaml');
    fs.writeFileSync(file, 'protocol: 1.1.0\nfixtures:\n  - state: a user\n    values: { token: t, userId: 1 }\n');
    const o = resolveRunOptions({ fixtures: file }, {}, { catalogue, cwd: tmp });
    expect(o.providerStatesProtocol).toBe('1.1.0');
    expect(o.fixtures).toHaveLength(1);
  });

  it('refuses what is not a version, or another major version, as a usage error', () => {
    expect(() => resolveRunOptions({ providerStatesProtocol: 'latest' }, {}, { catalogue, cwd: tmp })).toThrow(
      UsageError,
    );
    expect(() => resolveRunOptions({ providerStatesProtocol: '2.0.0' }, {}, { catalogue, cwd: tmp })).toThrow(
      /--provider-states-protocol: got protocol 2\.0\.0; this suite speaks 1\.x/,
    );
  });
});
