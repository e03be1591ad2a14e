// (2) Every example validates against its schema; (3) every operation is exemplified.
import { describe, expect, it } from 'vitest';
import { deref, examplesOf, loadYaml, operations, schemaValidator } from './support.js';

const documents = ['spec/openapi.yaml', 'spec/provider-states.yaml'] as const;

/** JSON pointers of every `example`/`examples` key in a document (outside example values). */
function exampleLocations(node: any, pointer = ''): string[] {
  if (!node || typeof node !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    const p = `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (k === 'example' || k === 'examples') out.push(p);
    else out.push(...exampleLocations(v, p));
  }
  return out;
}

for (const file of documents) {
  describe(`${file} examples`, () => {
    const doc = loadYaml(file);
    const validate = schemaValidator(doc);
    const checked = new Set<string>();
    const cases: Array<{ name: string; schema: any; value: unknown }> = [];

    const collect = (where: string, pointer: string, holder: any, schema: any) => {
      for (const [name, value] of examplesOf(doc, holder)) cases.push({ name: `${where} ${name}`, schema, value });
      if ('example' in holder) checked.add(`${pointer}/example`);
      if ('examples' in holder) checked.add(`${pointer}/examples`);
    };
    const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

    // Parameters (component parameters cover every $ref'd use).
    for (const [name, p] of Object.entries<any>(doc.components?.parameters ?? {})) {
      collect(`parameter ${name}`, `/components/parameters/${esc(name)}`, p, p.schema);
    }
    for (const [name, r] of Object.entries<any>(doc.components?.responses ?? {})) {
      for (const [mt, media] of Object.entries<any>(r.content ?? {})) {
        collect(`response ${name} ${mt}`, `/components/responses/${esc(name)}/content/${esc(mt)}`, media, media.schema);
      }
      for (const [h, header] of Object.entries<any>(r.headers ?? {})) {
        collect(
          `response ${name} header ${h}`,
          `/components/responses/${esc(name)}/headers/${esc(h)}`,
          header,
          header.schema,
        );
      }
    }
    for (const { method, path, op } of operations(doc)) {
      const base = `/paths/${esc(path)}/${method}`;
      (op.parameters ?? []).forEach((p: any, i: number) => {
        if (!p.$ref) collect(`${op.operationId} parameter ${p.name}`, `${base}/parameters/${i}`, p, p.schema);
      });
      if (op.requestBody && !op.requestBody.$ref) {
        for (const [mt, media] of Object.entries<any>(op.requestBody.content ?? {})) {
          collect(`${op.operationId} request ${mt}`, `${base}/requestBody/content/${esc(mt)}`, media, media.schema);
        }
      }
      for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
        if (r.$ref) continue;
        for (const [mt, media] of Object.entries<any>(r.content ?? {})) {
          collect(
            `${op.operationId} ${status} ${mt}`,
            `${base}/responses/${status}/content/${esc(mt)}`,
            media,
            media.schema,
          );
        }
      }
    }

    it('every example location is one the test validates', () => {
      const all = exampleLocations(doc).filter((p) => !p.includes('/x-'));
      expect(all.filter((p) => !checked.has(p))).toEqual([]);
      expect(cases.length).toBeGreaterThan(0);
    });

    it.each(cases.map((c) => [c.name, c] as const))('%s is valid against its schema', (_n, c) => {
      expect(c.schema, 'example without a schema').toBeTruthy();
      expect(validate(c.schema, c.value)).toBeNull();
    });
  });
}

describe('spec/openapi.yaml operations are exemplified', () => {
  const doc = loadYaml('spec/openapi.yaml');
  for (const { op, parameters } of operations(doc)) {
    describe(op.operationId, () => {
      if (parameters.length > 0) {
        it('every parameter has an example', () => {
          const missing = parameters.filter((p) => examplesOf(doc, p).length === 0).map((p) => p.name);
          expect(missing).toEqual([]);
        });
      }
      if (op.requestBody) {
        it('the request body has an example per media type', () => {
          const body = deref(doc, op.requestBody);
          for (const [mt, media] of Object.entries<any>(body.content ?? {})) {
            expect(examplesOf(doc, media).length, mt).toBeGreaterThan(0);
          }
        });
      }
      it('every documented response with a body has an example per media type', () => {
        const missing: string[] = [];
        for (const [status, raw] of Object.entries<any>(op.responses ?? {})) {
          const r = deref(doc, raw);
          for (const [mt, media] of Object.entries<any>(r.content ?? {})) {
            if (examplesOf(doc, media).length === 0) missing.push(`${status} ${mt}`);
          }
        }
        expect(missing).toEqual([]);
      });
    });
  }
});
