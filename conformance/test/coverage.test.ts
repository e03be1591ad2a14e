import { describe, expect, it } from 'vitest';
import { catalogueFrom } from '../src/catalogue.js';
import { buildCoverage, coverageMarkdown, coverageProblems, type CollectedTest } from '../src/coverage.js';

const cat = catalogueFrom({
  version: '1',
  requirements: [
    { id: 'GEN-001', section: '4', statement: 'json', level: 'core', testable: true },
    { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true },
    { id: 'A-002', section: '1', statement: 'b', level: 'core', testable: true },
    { id: 'A-003', section: '1', statement: 'c', level: 'core', testable: false, reason: 'not observable' },
    { id: 'A-004', section: '1', statement: 'd', level: 'implementation-defined', testable: true },
    { id: 'A-005', section: '1', statement: 'e', level: 'core', testable: true, retired: true },
  ],
});
const test = (id: string, requirements: string[], file = 'conformance/suite/a.test.ts'): CollectedTest => ({
  id,
  title: id,
  file,
  requirements,
  profile: 'core',
  mutates: false,
});

describe('coverage gate', () => {
  it('passes when every testable core requirement has a test (GEN-001/002 by the generic checks)', () => {
    const r = buildCoverage(cat, [test('a.one', ['A-001']), test('a.two', ['A-002'])]);
    expect(coverageProblems(r)).toEqual([]);
    expect(r.rows.find((x) => x.id === 'GEN-001')!.status).toBe('generic-checks');
    expect(r.rows.find((x) => x.id === 'A-003')!.status).toBe('not-testable');
    expect(r.rows.find((x) => x.id === 'A-004')!.status).toBe('untested'); // not core: no gate problem
    expect(r.rows.some((x) => x.id === 'A-005')).toBe(false);
    expect(r.counts).toMatchObject({
      requirements: 5,
      testable: 4,
      covered: 3,
      untested: 1,
      coreTestable: 3,
      coreCovered: 3,
      coreUntested: 0,
    });
  });

  it('fails on an untested core requirement', () => {
    const p = coverageProblems(buildCoverage(cat, [test('a.one', ['A-001'])]));
    expect(p).toEqual(['A-002 (core, testable) has no test']);
  });

  it('fails on unknown or retired IDs, duplicate test ids and collection errors', () => {
    const r = buildCoverage(
      cat,
      [
        test('a.one', ['A-001', 'A-999']),
        test('a.two', ['A-002', 'A-005']),
        test('a.one', ['A-001'], 'conformance/suite/b.test.ts'),
      ],
      ['conformance/suite/c.test.ts: SyntaxError: x'],
    );
    const p = coverageProblems(r);
    expect(p).toContain('test a.one (conformance/suite/a.test.ts) names unknown requirement ID(s) A-999');
    expect(p).toContain('test a.two (conformance/suite/a.test.ts) names unknown requirement ID(s) A-005');
    expect(p.some((x) => x.startsWith('test id a.one is used more than once'))).toBe(true);
    expect(p.some((x) => x.startsWith('collection error'))).toBe(true);
    const md = coverageMarkdown(r);
    expect(md).toContain('| A-001 | core | 1 | covered | `a.one`, `a.one` |');
    expect(md).toContain('gate: FAIL');
  });
});
