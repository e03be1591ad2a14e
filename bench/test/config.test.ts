// The bench's options (bench/config.ts), parsed in main and never at module level, and the one
// Markdown renderer of its targets (bench/lib/markdown.ts) that README.md's speed table shares.
import { describe, expect, it } from 'vitest';
import { configOf, parseOptions } from '../config.js';
import { targetsTable } from '../lib/markdown.js';

describe('bench options', () => {
  it('defaults: every section, 5 s runs, the full sizes', () => {
    const { cfg, help, render } = parseOptions([]);
    expect([...cfg.sections]).toEqual(['throughput', 'scale', 'latency', 'suite', 'mutation', 'ci']);
    expect([cfg.duration, cfg.warmup, cfg.sizes, cfg.suiteRequirements]).toEqual([
      5,
      1,
      [10_000, 100_000, 1e6],
      undefined,
    ]);
    expect([help, render]).toEqual([false, false]);
  });

  it('--quick: small sizes, the two-file subset and its requirements, no ci', () => {
    const { cfg } = parseOptions(['--quick', '--only', 'latency,suite']);
    expect([...cfg.sections]).toEqual(['latency', 'suite']);
    expect(cfg.sizes).toEqual([1000, 10_000]);
    expect(cfg.suiteRequirements).toBe('REC-,DOM-');
    expect(cfg.out).toMatch(/reports\/tmp\/bench-quick$/);
  });

  it('refuses an unknown section, a bad size and an unknown option', () => {
    expect(() => parseOptions(['--only', 'bogus'])).toThrow("--only: unknown section 'bogus'");
    expect(() => parseOptions(['--sizes', 'ten'])).toThrow("bad size 'ten'");
    expect(() => parseOptions(['--bogus'])).toThrow(/bogus/);
  });

  it('a stored configuration (bench.json meta.config) is read back with its sections', () => {
    const { cfg } = parseOptions(['--only', 'scale']);
    const stored = JSON.parse(JSON.stringify({ ...cfg, sections: [...cfg.sections] }));
    expect(configOf(stored)).toEqual(cfg);
  });
});

describe('the targets table', () => {
  const targets = [
    { name: 'a', goal: '<= 1 s', measured: '0.5 s', met: true },
    { name: 'b', goal: '<= 2 s', measured: '3 s', met: false },
    { name: 'c', goal: '<= 3 s', measured: '1 s (quick)', met: undefined },
  ];
  it('renders met, not met and not judged, right-aligned in the report and left-aligned in README.md', () => {
    expect(targetsTable(targets)).toBe(
      [
        '| target | goal | measured | met |',
        '|---|---:|---:|---:|',
        '| a | <= 1 s | 0.5 s | yes |',
        '| b | <= 2 s | 3 s | **no** |',
        '| c | <= 3 s | 1 s (quick) | n/a |',
      ].join('\n'),
    );
    expect(targetsTable(targets.slice(0, 1), 'left').split('\n').slice(1)).toEqual([
      '|---|---|---|---|',
      '| a | <= 1 s | 0.5 s | yes |',
    ]);
  });
});
