// Requirements join everything: the server code that enforces a requirement names its ID in a
// `// REQ: ID` comment. This checks, over the source as text, that every named ID exists in the
// catalogue, and that every testable requirement is named somewhere in the server.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ROOT } from '../../spec/paths.js';

const catalogue = YAML.parse(readFileSync(join(ROOT, 'spec', 'requirements.yaml'), 'utf8')) as {
  requirements: Array<{ id: string; level: string; testable: boolean; retired?: boolean }>;
};
const byId = new Map(catalogue.requirements.map((r) => [r.id, r]));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** requirement ID → files of reference-server/src whose `REQ:` comments name it */
const named = new Map<string, Set<string>>();
for (const file of sources(join(ROOT, 'reference-server', 'src'))) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /\/\/.*\bREQ:?\s*(.*)$/.exec(line);
    if (!m) continue;
    for (const id of m[1].match(/\b[A-Z]+-\d{3}\b/g) ?? []) {
      if (!named.has(id)) named.set(id, new Set());
      named.get(id)!.add(file.slice(ROOT.length + 1));
    }
  }
}

describe('REQ comments in reference-server/src', () => {
  it('name only requirements of the catalogue that are not retired', () => {
    const unknown = [...named.keys()].filter((id) => !byId.has(id) || byId.get(id)!.retired);
    expect(unknown).toEqual([]);
  });

  it('name every testable requirement, core and implementation-defined', () => {
    const missing = catalogue.requirements.filter((r) => r.testable && !r.retired && !named.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
  });
});
