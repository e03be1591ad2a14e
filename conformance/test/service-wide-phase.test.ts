// The service-wide phase (vitest-run.ts runSuite) runs on the main phase's configuration, tests of a
// file concurrently: the service-wide tests must still start only after the main phase and run one
// at a time. In a child process (fixtures/service-wide-run.ts): vitest is not nested.
import { describe, expect, it } from 'vitest';
import { runFixture } from './helpers/fixture-process.js';

describe('the service-wide phase', () => {
  it('runs the service-wide tests after the others, one at a time', async () => {
    const out = await runFixture<{ tests: Record<string, string>; order: string[] }>('service-wide-run.ts', 60_000);
    expect(out.tests).toEqual({
      'fx.main': 'passed',
      'fx.setting-1': 'passed',
      'fx.setting-2': 'passed',
      'fx.setting-3': 'passed',
    });
    expect(out.order).toEqual([
      'start main',
      'end main',
      'start setting-1',
      'end setting-1',
      'start setting-2',
      'end setting-2',
      'start setting-3',
      'end setting-3',
    ]);
  }, 90_000);
});
