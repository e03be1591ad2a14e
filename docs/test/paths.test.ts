// Docs that are a map must point at things that exist: every relative link of the README and of
// docs/*.md, and every repository path docs/architecture.md names in backticks, must exist; every
// `#anchor` of a link in those docs and in the vendor guide must name a heading or an `<a id>` of
// its file (a section moved or retitled without its links fails here). A module renamed or moved
// without its docs fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../spec/paths.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Relative Markdown links `[text](target)`, without anchors; web links are not checked. */
function links(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].split('#')[0]).filter((t) => t && !/^[a-z]+:/i.test(t));
}

/** Backticked repository paths: a top-level folder of the repository, then a path. */
function namedPaths(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const top = /^(spec|reference-server|conformance|bench|docs|scripts|reports)\/[\w./*-]*$/;
  return [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]).filter((p) => top.test(p) && !p.includes('*'));
}

/** Backticked module names given relative to their part (`areas/records.ts`, `src/dsl.ts`). */
function moduleNames(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/`([\w./-]+\.(?:ts|mjs|sh|yaml|json))`/g)]
    .map((m) => m[1])
    .filter((p) => !p.startsWith('/'));
}

/** Every file of the repository (outside node_modules and run outputs), as relative paths. */
function allFiles(dir = ROOT, rel = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', '.git', 'reports'].includes(e.name) || e.name.startsWith('.stryker')) return [];
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? allFiles(join(dir, e.name), r) : [r];
  });
}

/** Paths that runs create (gitignored), not files kept in the repository. */
const MADE_BY_RUNS = /^reports\/(latest|ci|tmp|spec|faults|runs)\b/;

describe('docs point at what exists', () => {
  for (const file of DOCS) {
    it(`${file}: every relative link resolves`, () => {
      const missing = links(file).filter((t) => !existsSync(resolve(ROOT, dirname(file), t)));
      expect(missing, `${file} links to missing paths`).toEqual([]);
    });
  }

  it('docs/architecture.md: every module path it names exists', () => {
    const named = namedPaths('docs/architecture.md').filter((p) => !MADE_BY_RUNS.test(p));
    expect(named.length, 'the architecture page names modules').toBeGreaterThan(10);
    const missing = named.filter((p) => !existsSync(join(ROOT, p.replace(/\/$/, ''))));
    expect(missing, 'docs/architecture.md names paths that do not exist').toEqual([]);
  });

  it('docs/architecture.md: every module it names by a shorter path exists in some part', () => {
    const files = allFiles();
    const missing = moduleNames('docs/architecture.md').filter(
      (m) => !files.some((f) => f === m || f.endsWith(`/${m}`)),
    );
    expect(missing, 'docs/architecture.md names modules that do not exist').toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file offers: its headings (numbered when repeated) and `<a id>`s. */
function anchors(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>([...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]));
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const s = slug(m[1]);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

const ANCHORED = [...DOCS, 'conformance/README.md', 'reference-server/README.md'];

describe('links with an anchor land on a heading', () => {
  for (const file of ANCHORED) {
    it(`${file}: every #anchor it links to exists`, () => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const broken = [...text.matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)]
        .filter(([, target]) => !target || target.endsWith('.md'))
        .map(([, target, anchor]) => {
          const into = target ? join(dirname(file), target) : file;
          return existsSync(join(ROOT, into)) && !anchors(into).has(anchor) ? `${target}#${anchor}` : '';
        })
        .filter(Boolean);
      expect(broken, `${file} links to anchors that do not exist`).toEqual([]);
    });
  }
});
