// The seed of the generated (model-based) tests: --seed, CONFORMANCE_SEED or `seed:` in the config
// file, validated as fast-check takes it; absent, the run picks one at random (and reports it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSeed, randomSeed, resolveRunOptions } from '../src/run/config.js';
import { UsageError } from '../src/model/errors.js';
import { contextFromEnv } from '../src/model/context.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-seed-'));

describe('--seed', () => {
  it('comes from the command line, the environment or the config file, in that order', () => {
    const cfg = path.join(tmp, 'c.yaml');
    fs.writeFileSync(cfg, 'seed: 11\n');
    expect(resolveRunOptions({ seed: '7', config: cfg }, { CONFORMANCE_SEED: '9' }, { cwd: tmp }).seed).toBe(7);
    expect(resolveRunOptions({ config: cfg }, { CONFORMANCE_SEED: '9' }, { cwd: tmp }).seed).toBe(9);
    expect(resolveRunOptions({ config: cfg }, {}, { cwd: tmp }).seed).toBe(11);
    expect(resolveRunOptions({}, {}, { cwd: tmp }).seed).toBeUndefined();
  });

  it('is a 32-bit signed integer', () => {
    expect(parseSeed('-2147483648')).toBe(-(2 ** 31));
    expect(parseSeed(' 2147483647 ')).toBe(2 ** 31 - 1);
    for (const bad of ['2147483648', '1.5', 'abc', '', '0x10']) expect(() => parseSeed(bad), bad).toThrow(UsageError);
  });

  it('defaults to a random seed in range; the env seed reaches a suite file run without the CLI', () => {
    for (let i = 0; i < 20; i++) {
      const s = randomSeed();
      expect(Number.isInteger(s) && s >= 0 && s < 2 ** 31).toBe(true);
    }
    expect(contextFromEnv({ CONFORMANCE_SEED: '5' }).seed).toBe(5);
    expect(contextFromEnv({}).seed).toBeUndefined();
  });
});
