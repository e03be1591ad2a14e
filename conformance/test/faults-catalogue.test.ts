// The fault catalogue itself: enough faults, spread over every area, each mapped to requirement IDs
// that exist in spec/requirements.yaml and are core and testable.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAULTS, faultByName, faultsByArea } from '../faults/catalogue/index.js';
import { AREAS } from '../faults/fault.js';
import { ROOT } from '../../spec/paths.js';

const catalogue = parse(fs.readFileSync(path.join(ROOT, 'spec/requirements.yaml'), 'utf8')) as {
  requirements: Array<{ id: string; level: string; testable: boolean; retired?: boolean }>;
};
const byId = new Map(catalogue.requirements.map((r) => [r.id, r]));

describe('fault catalogue', () => {
  it('has at least 30 faults with unique kebab-case names', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(30);
    const names = FAULTS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    for (const n of names) expect(faultByName(n)?.name).toBe(n);
  });

  it('covers every spec area', () => {
    const areas = faultsByArea();
    for (const a of AREAS) expect(areas.get(a)?.length ?? 0, `faults of area ${a}`).toBeGreaterThan(0);
  });

  it('documents each fault in one line', () => {
    for (const f of FAULTS) {
      expect(f.description, f.name).toMatch(/\S/);
      expect(f.description, f.name).not.toMatch(/\n/);
      expect(f.description.length, f.name).toBeLessThanOrEqual(200);
    }
  });

  it.each(FAULTS.map((f) => [f.name, f] as const))('%s maps to existing core, testable requirements', (_name, f) => {
    expect(f.requirements.length).toBeGreaterThan(0);
    expect(new Set(f.requirements).size).toBe(f.requirements.length);
    for (const id of f.requirements) {
      const r = byId.get(id);
      expect(r, `${id} exists in spec/requirements.yaml`).toBeDefined();
      expect(r!.level, `${id} is core`).toBe('core');
      expect(r!.testable, `${id} is testable`).toBe(true);
      expect(r!.retired ?? false, `${id} is not retired`).toBe(false);
    }
    // An explicit test selection must include every mapped requirement.
    for (const id of f.requirements) if (f.select) expect(f.select.some((p) => id.startsWith(p))).toBe(true);
    expect(typeof f.rewrite).toBe('function');
  });
});
