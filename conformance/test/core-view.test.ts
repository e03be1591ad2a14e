// The core view of spec/openapi.yaml: every x-implementation-defined marker is walked, and the test
// proves that the view relaxes each marked schema (it then accepts any value and its property is no
// longer required), keeps each marked response/operation as it is (the generic checks read that
// marker), and leaves everything else of the document exactly as it was.
// (This test lives here, not in spec/test: the spec depends on nothing but itself.)
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { coreView, coreViewWithChanges, MARKER } from '../src/spec/core-view.js';
import { SPEC_DIR } from '../src/paths.js';

const full = parse(fs.readFileSync(path.join(SPEC_DIR, 'openapi.yaml'), 'utf8'));
const { doc: view, changes } = coreViewWithChanges(full);

const tok = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const untok = (k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~');
const at = (doc: any, ptr: string) =>
  ptr
    .split('/')
    .slice(1)
    .map(untok)
    .reduce((cur, k) => cur?.[k], doc);

/** Every pointer in `doc` whose node carries `x-implementation-defined: true`, found independently of the view. */
function markers(doc: unknown, ptr = ''): string[] {
  if (Array.isArray(doc)) return doc.flatMap((v, i) => markers(v, `${ptr}/${i}`));
  if (typeof doc !== 'object' || doc === null) return [];
  const here = (doc as any)[MARKER] === true ? [ptr] : [];
  return [...here, ...Object.entries(doc).flatMap(([k, v]) => markers(v, `${ptr}/${tok(k)}`))];
}

const all = markers(full);
const relaxed = changes.filter((c) => c.action === 'schema-relaxed').map((c) => c.pointer);
const paramRelaxed = changes.filter((c) => c.action === 'parameter-schema-relaxed').map((c) => `${c.pointer}/schema`);
const kept = changes.filter((c) => c.action === 'kept').map((c) => c.pointer);
const underRelaxed = (p: string) => [...relaxed, ...paramRelaxed].some((r) => p.startsWith(`${r}/`));

/** `doc` with every relaxed node replaced by a placeholder and marked properties out of `required`. */
function remainder(doc: any): any {
  const copy = structuredClone(doc);
  for (const p of [...relaxed, ...paramRelaxed]) {
    const parts = p.split('/');
    const key = untok(parts.pop()!);
    const parent = at(copy, parts.join('/'));
    parent[key] = '<relaxed>';
    if (parts.at(-1) === 'properties') {
      const owner = at(copy, parts.slice(0, -1).join('/'));
      if (Array.isArray(owner.required)) owner.required = owner.required.filter((n: string) => n !== key);
    }
  }
  return copy;
}

describe('core view of spec/openapi.yaml', () => {
  it('finds the markers (a sanity floor: the spec has dozens of them)', () => {
    expect(all.length).toBeGreaterThanOrEqual(60);
    expect(relaxed.length).toBeGreaterThanOrEqual(20);
  });

  it('accounts for every marker: relaxed, kept for the generic checks, or inside a relaxed schema', () => {
    for (const p of all) {
      const accounted =
        relaxed.includes(p) || paramRelaxed.includes(`${p}/schema`) || kept.includes(p) || underRelaxed(p);
      expect(accounted, p).toBe(true);
    }
  });

  it('keeps only markers on responses, operations, request bodies and security schemes', () => {
    for (const p of kept) {
      expect(p, p).toMatch(
        /(\/responses\/[^/]+|^\/paths\/[^/]+\/(get|post|put|delete|patch)|\/requestBody|^\/components\/securitySchemes\/[^/]+)$/,
      );
      expect(at(view, p), p).toEqual(at(full, p));
    }
  });

  it('drops every constraint of a marked schema: the view accepts any value there', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, logger: false });
    ajv.addSchema({ ...view, $id: undefined, $schema: undefined }, 'core.json');
    for (const p of [...relaxed, ...paramRelaxed]) {
      const node = at(view, p);
      const original = at(full, p);
      expect(node.description, p).toEqual(original.description);
      for (const k of Object.keys(node)) expect(k, `${p} keeps ${k}`).toMatch(/^(x-|description$|title$|example)/);
      const validate = ajv.compile({ $ref: `core.json#${p}` });
      for (const value of ['x', 'u-17', 7, 1.5, null, true, {}, [], '2024-03-01T09:15:22.123Z']) {
        expect(validate(value), `${p} accepts ${JSON.stringify(value)}`).toBe(true);
      }
    }
  });

  it('a marked property is no longer required by its parent', () => {
    for (const p of relaxed.filter((r) => r.split('/').at(-2) === 'properties')) {
      const name = untok(p.split('/').at(-1)!);
      const owner = at(view, p.split('/').slice(0, -2).join('/'));
      expect(owner.required ?? [], p).not.toContain(name);
    }
  });

  it('keeps everything else exactly (deep-equal on the unmarked remainder)', () => {
    expect(remainder(view)).toEqual(remainder(full));
  });

  it('is pure: the full document is not changed and the view is the same every time', () => {
    const before = structuredClone(full);
    expect(coreView(full)).toEqual(view);
    expect(full).toEqual(before);
  });

  it('relaxes the columns whose type the spec leaves open', () => {
    for (const col of [
      'EntryUserID',
      'ModifiedDate',
      'ModifiedUserID',
      'DownloadedDate',
      'DownloadedUserID',
      'DocumentStatusID',
      'UnlinkedAccessMode',
    ]) {
      expect(relaxed).toContain(`/components/schemas/FileRecord/properties/${col}`);
    }
    expect(relaxed).toContain('/components/schemas/LinkRecord/properties/LinkID');
    expect(relaxed).toContain('/components/schemas/LinkRecord/properties/ContactTypeID');
    expect(relaxed).toContain('/components/schemas/ListEnvelope/properties/TotalCount');
    expect(relaxed).toContain('/components/schemas/FileList/properties/TotalCount');
  });
});
