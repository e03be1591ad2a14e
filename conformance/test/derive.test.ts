// The operations a requirement governs, derived from spec/openapi.yaml (coverage/derive.ts), and
// their agreement with the `x-requirements` of every operation.
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/spec/catalogue.js';
import { loadOpenApi } from '../src/spec/openapi.js';
import { governedByRequirement, governedOperations, operationFacts } from '../src/coverage/derive.js';

const doc = {
  paths: {
    '/a': {
      get: {
        operationId: 'getA',
        parameters: [
          { $ref: '#/components/parameters/Cols' },
          { name: 'secret', in: 'query', 'x-implementation-defined': true },
        ],
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/AList' } } } } },
      },
    },
    '/b': {
      get: {
        operationId: 'getB',
        parameters: [{ $ref: '#/components/parameters/Cols' }, { name: 'secret', in: 'query' }],
        responses: {
          '200': {
            'x-implementation-defined': true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
          },
          '404': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Other' } } } },
        },
      },
    },
    '/c': {
      post: {
        operationId: 'postC',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
        responses: { '204': { description: 'nothing' } },
      },
    },
  },
  components: {
    parameters: { Cols: { name: 'columns', in: 'query' } },
    schemas: {
      AList: { type: 'object', properties: { List: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
      Item: { type: 'object', properties: { Size: { type: 'integer' }, Name: { type: 'string' } } },
      Other: { type: 'object', properties: { Code: { type: 'string' } } },
    },
  },
};

describe('derived operations', () => {
  const facts = operationFacts(doc);
  it('a field governs every operation whose 2xx response or request body carries it', () => {
    const g = governedOperations({ id: 'X-1', level: 'core', governs: { fields: ['Item.Size'] } }, facts);
    // getB carries Item only through an implementation-defined response: not for a core requirement
    expect(g.operations).toEqual(['getA', 'postC']);
    const impl = governedOperations(
      { id: 'X-2', level: 'implementation-defined', governs: { fields: ['Item.Size'] } },
      facts,
    );
    expect(impl.operations).toEqual(['getA', 'getB', 'postC']);
  });

  it('a parameter governs every operation that takes it; implementation-defined declarations only for such requirements', () => {
    expect(
      governedOperations({ id: 'X-3', level: 'core', governs: { parameters: ['columns'] } }, facts).operations,
    ).toEqual(['getA', 'getB']);
    expect(
      governedOperations({ id: 'X-4', level: 'core', governs: { parameters: ['secret'] } }, facts).operations,
    ).toEqual(['getB']);
  });

  it('the hand-entered list adds, never removes; error responses and unknown names derive nothing', () => {
    const g = governedOperations(
      { id: 'X-5', level: 'core', operations: ['postC'], governs: { fields: ['Other.Code', 'Item.Nope'] } },
      facts,
    );
    expect(g.operations).toEqual(['postC']);
    expect(g.derived).toEqual([]);
    expect(g.unmatched).toEqual(['fields: Other.Code', 'fields: Item.Nope']);
  });
});

describe('the catalogue and spec/openapi.yaml', () => {
  const cat = loadCatalogue();
  const api = loadOpenApi().doc;
  const governed = governedByRequirement(cat.requirements, api);

  it('every `governs:` entry names a field or parameter some operation carries', () => {
    const unmatched = cat.requirements.flatMap((r) => (governed.get(r.id)?.unmatched ?? []).map((u) => `${r.id} ${u}`));
    expect(unmatched).toEqual([]);
  });

  it('every operation lists in x-requirements exactly the requirements that govern it (named or derived)', () => {
    const wrong: string[] = [];
    for (const item of Object.values<any>(api.paths))
      for (const op of Object.values<any>(item)) {
        if (!op?.operationId) continue;
        const expected = cat.requirements
          .filter((r) => !r.retired && governed.get(r.id)!.operations.includes(op.operationId))
          .map((r) => r.id)
          .sort();
        const actual = [...(op['x-requirements'] ?? [])].sort();
        const missing = expected.filter((id) => !actual.includes(id));
        const extra = actual.filter((id: string) => !expected.includes(id));
        if (missing.length || extra.length)
          wrong.push(`${op.operationId}: missing ${missing.join(' ') || '-'}, extra ${extra.join(' ') || '-'}`);
      }
    expect(wrong).toEqual([]);
  });

  it('untestedOperations names only operations the requirement governs', () => {
    const stray = cat.requirements.flatMap((r) =>
      Object.keys(r.untestedOperations ?? {})
        .filter((op) => !governed.get(r.id)!.operations.includes(op))
        .map((op) => `${r.id} ${op}`),
    );
    expect(stray).toEqual([]);
  });
});
