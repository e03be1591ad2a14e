// (4) Integrity of the requirement catalogue (spec/requirements.yaml) and its links to the spec
// and to spec/openapi.yaml.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadYaml, operations } from './support.js';
import { ROOT } from '../paths.js';

interface Requirement {
  id: string;
  section: string;
  quote: string;
  statement: string;
  level: string;
  testable: boolean;
  reason?: string;
  operations: string[];
  untestedOperations?: Record<string, string>;
  governs?: { fields?: string[]; parameters?: string[] };
  classes?: Record<string, string>;
  untestedClasses?: Record<string, string>;
  retired?: boolean;
}

const catalogue = loadYaml<{ catalogue: string; version: string; requirements: Requirement[] }>(
  'spec/requirements.yaml',
);
const reqs = catalogue.requirements;
const specText = readFileSync(join(ROOT, 'spec', 'interface-spec.md'), 'utf8');
const doc = loadYaml('spec/openapi.yaml');
const ops = operations(doc);
const opIds = new Set(ops.map((o) => o.op.operationId));

const ID = /^(GEN|DOM|REC|COL|QRY|FILE|LINK|PROP|BIND|MEM|SCHED|AUTH|EVT|LIM|VER)-\d{3}$/;
const KEYS = new Set([
  'id',
  'section',
  'quote',
  'statement',
  'level',
  'testable',
  'reason',
  'operations',
  'untestedOperations',
  'governs',
  'classes',
  'untestedClasses',
  'retired',
  'meaning',
]);

/** Text of a numbered section of the interface spec ("4" includes 4.1 to 4.5). */
function sectionText(section: string): string | undefined {
  const lines = specText.split('\n');
  const esc = section.replace(/\./g, '\\.');
  const start = lines.findIndex((l) => new RegExp(`^#{2,6} ${esc}\\.? `).test(l));
  if (start < 0) return undefined;
  const level = /^#+/.exec(lines[start])![0].length;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const m = /^(#+) /.exec(lines[i]);
    if (m && m[1].length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

describe('requirement catalogue', () => {
  it('has a header and requirements', () => {
    expect(catalogue.catalogue).toBe('rflps-requirements');
    expect(catalogue.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(reqs.length).toBeGreaterThan(0);
  });

  it('IDs are well-formed and unique', () => {
    expect(reqs.map((r) => r.id).filter((id) => !ID.test(id))).toEqual([]);
    const seen = new Set<string>();
    const dupes = reqs.map((r) => r.id).filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
    expect(dupes).toEqual([]);
  });

  it.each(reqs.map((r) => [r.id, r] as const))('%s is well-formed', (_id, r) => {
    expect(
      Object.keys(r).filter((k) => !KEYS.has(k)),
      'unknown fields',
    ).toEqual([]);
    expect(typeof r.section).toBe('string');
    expect(typeof r.quote === 'string' && r.quote.length > 0, 'quote').toBe(true);
    expect(typeof r.statement === 'string' && r.statement.trim().length > 0, 'statement').toBe(true);
    expect(['core', 'implementation-defined']).toContain(r.level);
    expect(typeof r.testable).toBe('boolean');
    if (r.testable) expect(r.reason, 'a testable requirement has no reason').toBeUndefined();
    else expect(typeof r.reason === 'string' && r.reason.trim().length > 0, 'untestable needs a reason').toBe(true);
    expect(Array.isArray(r.operations)).toBe(true);
    expect(new Set(r.operations).size, 'duplicate operations').toBe(r.operations.length);
    if (r.retired !== undefined) expect(typeof r.retired).toBe('boolean');
    if (r.untestedOperations !== undefined) {
      // {operationId: reason}, only for operations the requirement lists, only on a testable one
      expect(typeof r.untestedOperations === 'object' && !Array.isArray(r.untestedOperations)).toBe(true);
      expect(r.testable, 'untestedOperations on a not-testable requirement').toBe(true);
      for (const [op, why] of Object.entries(r.untestedOperations)) {
        // the operations derived from `governs:` count too (conformance/test/derive.test.ts checks them)
        expect(opIds.has(op), `untestedOperations.${op} is not an operation`).toBe(true);
        expect(typeof why === 'string' && why.trim().length > 0, `untestedOperations.${op} needs a reason`).toBe(true);
      }
    }
    if (r.governs !== undefined) {
      expect(
        Object.keys(r.governs).filter((k) => k !== 'fields' && k !== 'parameters'),
        'governs keys',
      ).toEqual([]);
    }
    if (r.untestedClasses !== undefined)
      for (const [c, why] of Object.entries(r.untestedClasses)) {
        expect(Object.keys(r.classes ?? {}), `untestedClasses.${c} is not a class`).toContain(c);
        expect(typeof why === 'string' && why.trim().length > 0, `untestedClasses.${c} needs a reason`).toBe(true);
      }
    // The prefix names the area; GEN/VER aside, it must match the section's subject loosely only,
    // so it is not checked further here.
  });

  it.each(reqs.map((r) => [r.id, r] as const))('%s quotes its section of spec/interface-spec.md verbatim', (_id, r) => {
    expect(specText.includes(r.quote), `quote not found in the spec: ${JSON.stringify(r.quote)}`).toBe(true);
    const text = sectionText(r.section);
    expect(text, `section ${r.section} not found`).toBeDefined();
    expect(text!.includes(r.quote), `quote not in section ${r.section}`).toBe(true);
  });

  it('every operationId named by a requirement exists in spec/openapi.yaml', () => {
    const unknown = reqs.flatMap((r) => r.operations.filter((o) => !opIds.has(o)).map((o) => `${r.id}: ${o}`));
    expect(unknown).toEqual([]);
  });

  it('every core testable requirement names at least one operation', () => {
    expect(
      reqs.filter((r) => !r.retired && r.level === 'core' && r.testable && r.operations.length === 0).map((r) => r.id),
    ).toEqual([]);
  });
});

describe('x-requirements of spec/openapi.yaml', () => {
  it('every operation has an x-requirements list of known, unique IDs', () => {
    const known = new Set(reqs.map((r) => r.id));
    for (const { op } of ops) {
      const list = op['x-requirements'];
      expect(Array.isArray(list), `${op.operationId} has no x-requirements`).toBe(true);
      expect(
        list.filter((id: string) => !known.has(id)),
        `${op.operationId}: unknown IDs`,
      ).toEqual([]);
      expect(new Set(list).size, `${op.operationId}: duplicate IDs`).toBe(list.length);
    }
  });

  it.each(ops.map((o) => [o.op.operationId as string, o] as const))(
    '%s lists every requirement that names it (and those derived from `governs:`, conformance/test/derive.test.ts)',
    (operationId, { op }) => {
      const expected = reqs
        .filter((r) => !r.retired && r.operations.includes(operationId))
        .map((r) => r.id)
        .sort();
      const actual = [...(op['x-requirements'] ?? [])].sort();
      const missing = expected.filter((id) => !actual.includes(id));
      expect({ missing }).toEqual({ missing: [] });
    },
  );
});
