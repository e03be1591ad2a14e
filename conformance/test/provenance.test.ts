// Provenance: every constraint the core profile enforces or sends (conformance/src/spec/provenance.ts)
// traces to a core requirement through `x-requirements`, or is marked x-implementation-defined and
// relaxed by the core view. The walk of the real document finds none without; a document mutated
// with a constraint that has no provenance makes it fail.
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../spec/paths.js';
import { catalogueFrom } from '../src/spec/catalogue.js';
import { provenanceOf } from '../src/spec/provenance.js';

const loadYaml = (rel: string): any => parse(fs.readFileSync(path.join(ROOT, rel), 'utf8'));
const doc = loadYaml('spec/openapi.yaml');
const catalogue = catalogueFrom(loadYaml('spec/requirements.yaml'));
const mutated = (edit: (d: any) => void) => {
  const d = structuredClone(doc);
  edit(d);
  return provenanceOf(d, catalogue);
};
const LINK_QUERY_200 = (d: any) => d.paths['/api/Link/Query'].get.responses['200'];

describe('provenance of the core view', () => {
  const report = provenanceOf(doc, catalogue);

  it('finds every kind of enforced constraint', () => {
    const kinds = new Set(report.constraints.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['parameter', 'request-schema', 'response', 'response-schema']);
    // the 2xx responses of the core operations, each judged by GEN-002
    expect(report.constraints.filter((c) => c.kind === 'response').length).toBeGreaterThanOrEqual(10);
    expect(report.constraints.length).toBeGreaterThan(100);
  });

  it('has no enforced constraint without a requirement or a marker', () => {
    expect(report.missing.map((c) => `${c.pointer} (${c.keywords.join(', ')})`)).toEqual([]);
  });

  it('names only core requirements of the catalogue, and every required field has provenance', () => {
    expect(report.problems).toEqual([]);
  });

  it('does not look at what the core view relaxes (marked nodes)', () => {
    const pointers = report.constraints.map((c) => c.pointer);
    expect(pointers).not.toContain('/components/schemas/LinkRecord/properties/ContactTypeID');
    expect(pointers).not.toContain('/components/parameters/Skip');
    expect(pointers.some((p) => p.startsWith('/components/schemas/LinkUpsertResult'))).toBe(false);
  });
});

describe('a mutated document', () => {
  it('a new property with a constraint and no provenance fails', () => {
    const r = mutated((d) => {
      d.components.schemas.LinkRecord.properties.LinkNote = { type: 'string', maxLength: 20 };
    });
    expect(r.missing.map((c) => c.pointer)).toEqual(['/components/schemas/LinkRecord/properties/LinkNote']);
    expect(r.missing[0]!.keywords).toEqual(['type', 'maxLength']);
  });

  it('the same property marked x-implementation-defined is relaxed, not enforced', () => {
    const r = mutated((d) => {
      d.components.schemas.LinkRecord.properties.LinkNote = {
        type: 'string',
        maxLength: 20,
        'x-implementation-defined': true,
      };
    });
    expect(r.missing).toEqual([]);
  });

  it('a constraint on a node whose provenance was removed fails', () => {
    const r = mutated((d) => {
      delete d.components.schemas.FileRecord.properties.MimeType['x-requirements'];
    });
    expect(r.missing.map((c) => [c.pointer, c.keywords])).toEqual([
      ['/components/schemas/FileRecord/properties/MimeType', ['type', 'pattern']],
    ]);
  });

  it('a new documented 2xx response without provenance fails, and so does its schema', () => {
    const r = mutated((d) => {
      d.paths['/api/Link/Query'].get.responses['201'] = {
        description: 'created',
        content: { 'application/json': { schema: { type: 'object', required: ['X'], properties: { X: {} } } } },
      };
    });
    expect(r.missing.map((c) => c.pointer).sort()).toEqual([
      '/paths/~1api~1Link~1Query/get/responses/201',
      '/paths/~1api~1Link~1Query/get/responses/201/content/application~1json/schema',
    ]);
    expect(r.problems.map((p) => p.problem)).toEqual(["required property 'X' has no x-requirements of its own"]);
  });

  it('a new parameter of a core operation without provenance fails', () => {
    const r = mutated((d) => {
      d.paths['/api/Link/Query'].get.parameters.push({ name: 'limit', in: 'query', schema: { type: 'integer' } });
    });
    expect(r.missing.map((c) => c.kind).sort()).toEqual(['parameter', 'request-schema']);
  });

  it('members of a combinator and array items share the provenance of their node', () => {
    const r = provenanceOf(doc, catalogue);
    const nullBranch = r.constraints.find(
      (c) => c.pointer === '/components/schemas/BindStatus/properties/BoundDateUTC/oneOf/1',
    );
    expect(nullBranch).toMatchObject({
      requirements: ['BIND-001', 'BIND-005'],
      inheritedFrom: '/components/schemas/BindStatus/properties/BoundDateUTC',
    });
  });

  it('on the request side an implementation-defined requirement may support a bound', () => {
    const r = mutated((d) => {
      d.components.parameters.Take['x-requirements'] = ['GEN-004'];
    });
    expect(r.problems).toEqual([]);
  });

  it('an unknown, an implementation-defined or a retired requirement is not provenance', () => {
    const ids = (edit: (d: any) => void) => mutated(edit).problems.map((p) => p.problem);
    expect(
      ids((d) => {
        LINK_QUERY_200(d)['x-requirements'] = ['LINK-999'];
      }),
    ).toEqual(['x-requirements names LINK-999, which is not in the catalogue']);
    const implDefined = catalogue.requirements.find((q) => q.level === 'implementation-defined' && !q.retired)!;
    expect(
      ids((d) => {
        LINK_QUERY_200(d)['x-requirements'] = [implDefined.id];
      }),
    ).toEqual([
      `x-requirements names ${implDefined.id}, an implementation-defined requirement: mark the node x-implementation-defined instead`,
    ]);
    const retired = catalogue.requirements.find((q) => q.retired);
    if (retired)
      expect(
        ids((d) => {
          LINK_QUERY_200(d)['x-requirements'] = [retired.id];
        }),
      ).toEqual([`x-requirements names ${retired.id}, which is retired`]);
  });
});
