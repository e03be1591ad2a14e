// The per-file line the reporter prints counts each test as the result model decides it
// (test-result.ts): a test that timed out, or failed on a lost connection, is an `error` there and
// in results.json alike; before, the line read `failed` for it (issue 20: a test's outcome is
// decided in one module).
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { ConformanceReporter } from '../src/report/reporter.js';
import { toTestResult } from '../src/report/test-result.js';

type Fake = {
  name: string;
  state: string;
  meta: Record<string, unknown>;
  errors?: Array<{ name?: string; message: string }>;
};

function moduleOf(tests: Fake[]): TestModule {
  const cases = tests.map((t) => ({
    name: t.name,
    module: { moduleId: '/x/conformance/suite/links.test.ts' },
    meta: () => t.meta,
    result: () => ({ state: t.state, errors: t.errors }),
    diagnostic: () => ({ duration: 1 }),
  }));
  return {
    moduleId: '/x/conformance/suite/links.test.ts',
    children: { allTests: () => cases },
    errors: () => [],
    diagnostic: () => ({ duration: 1000 }),
  } as unknown as TestModule;
}

describe('the per-file line', () => {
  it('counts a timed-out test and a lost connection as errors, as results.json does', () => {
    const tests: Fake[] = [
      { name: 'a', state: 'passed', meta: { id: 'a', requirements: ['LINK-001'] } },
      {
        name: 'b',
        state: 'failed',
        meta: { id: 'b', requirements: ['LINK-001'] },
        errors: [{ name: 'Error', message: 'Test timed out in 90000ms.' }],
      },
      {
        name: 'c',
        state: 'failed',
        meta: { id: 'c', requirements: ['LINK-001'] },
        errors: [{ name: 'Error', message: 'GET http://h/api/Link/Query: UND_ERR_SOCKET other side closed' }],
      },
      {
        name: 'd',
        state: 'failed',
        meta: { id: 'd', requirements: ['LINK-001'], outcome: 'blocked' },
        errors: [{ name: 'BlockedError', message: 'blocked by QRY-001' }],
      },
      {
        name: 'e',
        state: 'failed',
        meta: { id: 'e', requirements: ['LINK-001'] },
        errors: [{ name: 'AssertionError', message: 'expected 1 to be 2' }],
      },
    ];
    let printed = '';
    const reporter = new ConformanceReporter({ out: (s: string) => (printed += s) } as never);
    reporter.onTestModuleEnd(moduleOf(tests));
    expect(printed).toMatch(/1 passed, 1 failed, 1 blocked, 2 error/);
    const results = tests.map(
      (t) =>
        toTestResult({
          name: t.name,
          file: 'conformance/suite/links.test.ts',
          meta: t.meta,
          state: t.state,
          errors: t.errors,
        } as never).result,
    );
    expect(results).toEqual(['passed', 'error', 'error', 'blocked', 'failed']);
  });
});
