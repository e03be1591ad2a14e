// (5) spec/interface-spec.md is an exact copy of the shared interface specification.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../paths.js';

const shared = resolve(ROOT, '..', 'shared', 'interface-spec.md');
const present = existsSync(shared);
if (!present) console.warn(`[spec] ../shared/interface-spec.md not found; the copy check is skipped.`);

describe('spec/interface-spec.md', () => {
  it.skipIf(!present)('equals ../shared/interface-spec.md', () => {
    const copy = readFileSync(join(ROOT, 'spec', 'interface-spec.md'));
    expect(copy.equals(readFileSync(shared)), 'spec/interface-spec.md differs from ../shared/interface-spec.md').toBe(
      true,
    );
  });
});
