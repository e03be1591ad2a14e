// Shape of spec/openapi.yaml that the other parts of the project rely on.
import { describe, expect, it } from 'vitest';
import { deref, loadYaml, operations } from './support.js';

const doc = loadYaml('spec/openapi.yaml');
const ops = operations(doc);
// The operations the rest of the project is generated from (spec/generated/openapi.json, written by
// `npm run generate`): the agreed list is the generated one, not a copy of it here. A new
// operation is added to spec/openapi.yaml and regenerated; this file names only the operations
// whose particular shape it checks (byId below: a rename fails there).
const GENERATED = operations(loadYaml('spec/generated/openapi.json'));
const methodAndPath = (list: typeof ops) => Object.fromEntries(list.map((o) => [o.op.operationId, [o.method, o.path]]));

const byId = (id: string) => {
  const found = ops.find((o) => o.op.operationId === id);
  if (!found) throw new Error(`spec/openapi.yaml has no operation ${id} (renamed? this test checks its shape)`);
  return found;
};
const param = (id: string, name: string) => byId(id).parameters.find((p) => p.name === name);
const schemaOf = (p: any) => (p.schema.$ref ? { ...deref(doc, p.schema), ...p.schema } : p.schema);

describe('spec/openapi.yaml structure', () => {
  it('is OpenAPI 3.1.0, version 1.0.0, with a plain default server first and a {base_url} server', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    // generators that do not substitute server variables take the first entry as the base URL
    expect(new URL(doc.servers[0].url).origin).toBe(doc.servers[0].url);
    const templated = doc.servers.find((s: any) => s.url === '{base_url}');
    expect(templated.variables.base_url.default).toBe(doc.servers[0].url);
  });

  it('has exactly the generated operations, methods and paths: one operationId each, none twice', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size, 'an operationId is used twice').toBe(ids.length);
    expect(new Set(ops.map((o) => `${o.method} ${o.path}`)).size).toBe(ops.length);
    expect(methodAndPath(ops), 'spec/generated is stale: run `npm run generate`').toEqual(methodAndPath(GENERATED));
  });

  it('every operation has a summary, a description and one known tag', () => {
    const tags = new Set(doc.tags.map((t: any) => t.name));
    for (const { op } of ops) {
      expect(op.summary, op.operationId).toBeTruthy();
      expect(op.description, op.operationId).toBeTruthy();
      expect(op.tags?.length, op.operationId).toBe(1);
      expect(tags.has(op.tags[0]), op.operationId).toBe(true);
    }
  });

  it('uses the Token header globally; authenticate needs none and is implementation-defined', () => {
    expect(doc.components.securitySchemes.Token).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Token',
      'x-implementation-defined': true,
    });
    expect(doc.security).toEqual([{ Token: [] }]);
    const auth = byId('authenticate').op;
    expect(auth.security).toEqual([]);
    expect(auth['x-implementation-defined']).toBe(true);
    for (const { op } of ops)
      if (op.operationId !== 'authenticate') expect(op.security, op.operationId).toBeUndefined();
  });

  it('every API operation documents 401; every problem+json response is implementation-defined', () => {
    for (const { op } of ops) {
      if (op.operationId !== 'authenticate') expect(op.responses['401'], op.operationId).toBeDefined();
      for (const [status, raw] of Object.entries<any>(op.responses)) {
        const r = deref(doc, raw);
        if (r.content?.['application/problem+json']) {
          expect(r['x-implementation-defined'], `${op.operationId} ${status}`).toBe(true);
          expect(Number(status)).toBeGreaterThanOrEqual(400);
        }
      }
    }
  });

  it('documents the error cases of spec section 7', () => {
    const json500 = (id: string) => deref(doc, byId(id).op.responses['500']).content['application/json'].schema;
    expect(json500('createMember')).toEqual({ $ref: '#/components/schemas/JsonStringError' });
    expect(json500('getFile')).toEqual({ $ref: '#/components/schemas/JsonStringError' });
    expect(json500('queryFiles')).toEqual({ $ref: '#/components/schemas/JsonStringError' });
    expect(doc.components.schemas.JsonStringError.type).toBe('string');
    const del409 = byId('deleteSchedule').op.responses['409'];
    expect(del409['x-implementation-defined']).toBe(true);
    expect(del409.content['application/json']).toBeDefined();
  });

  it('query parameters carry the documented defaults and limits', () => {
    expect(schemaOf(param('queryRecords', 'take'))).toMatchObject({
      type: 'integer',
      default: 30,
      minimum: 1,
      maximum: 100,
    });
    expect(schemaOf(param('queryRecords', 'skip'))).toMatchObject({ type: 'integer', default: 0, minimum: 0 });
    expect(param('queryRecords', 'skip')['x-implementation-defined']).toBe(true);
    expect(param('queryRecords', 'columns').required).toBe(false);
    for (const [op, name] of [
      ['queryRecords', 'resolveAssociationNames'],
      ['getRecord', 'resolveAssociationNames'],
      ['queryRecords', 'excludeEmptyColumns'],
      ['queryRecords', 'includeTotalCount'],
      ['upsertSchedules', 'isAtomic'],
    ] as const) {
      expect(param(op, name)?.schema, `${op} ${name}`).toEqual({
        $ref: '#/components/schemas/QueryBoolean',
        default: false,
      });
    }
    for (const name of ['filter', 'linqFilter', 'excludeEmptyColumns', 'includeTotalCount', 'skip']) {
      expect(param('queryRecords', name)['x-implementation-defined'], name).toBe(true);
    }
    for (const name of ['childDomain', 'childRecordID', 'parentDomain', 'columns']) {
      expect(param('queryLinks', name)?.['x-implementation-defined'], name).toBeUndefined();
    }
    for (const name of [
      'parentRecordID',
      'parentRecordKey',
      'parentRecordMatchField',
      'childRecordKey',
      'childRecordMatchField',
      'relationship',
    ]) {
      expect(param('queryLinks', name)?.['x-implementation-defined'], name).toBe(true);
    }
    expect(param('queueBindQuote', 'billingFrequencyCode')['x-implementation-defined']).toBe(true);
    expect(param('queueBindQuote', 'billingStatus')['x-implementation-defined']).toBe(true);
  });

  it('has the named schemas of spec section 2', () => {
    const s = doc.components.schemas;
    for (const name of [
      'Domain',
      'FileRecord',
      'LinkRecord',
      'BindStatus',
      'ScheduleOperationResult',
      'MemberCreationResult',
      'ProposalType',
      'NonModifiableStatusCode',
      'RecordEnvelope',
      'ListEnvelope',
      'UpsertMultiRequest',
      'UpsertMultiResponse',
      'ProposalLocationFields',
      'Problem',
      'LinkUpsertRequest',
      'LinkRemoveRequest',
      'LinkUpsertResult',
      'LinkRemoveResult',
      'BindQuoteResult',
      'AuthenticateRequest',
      'AuthenticateResponse',
      'JsonStringError',
    ])
      expect(s[name], name).toBeDefined();
    expect(s.BindStatus.properties.Status.enum).toEqual(['Bound', 'NotBound', 'Error']);
    expect(s.NonModifiableStatusCode.enum).toEqual(['B', 'R', '0']);
    expect(s.ProposalType.enum.sort()).toEqual([
      'Application',
      'Endorsement',
      'Quote',
      'Reissue',
      'Renewal',
      'Rewrite',
    ]);
    expect(s.FileRecord.required).toBeUndefined();
    const mime = new RegExp(s.FileRecord.properties.MimeType.pattern);
    // an extension with its dot (spec 2.2); empty for a name without extension (reference choice)
    expect(['.pdf', '.docx', ''].every((v) => mime.test(v))).toBe(true);
    expect(['pdf', 'application/pdf', '.'].some((v) => mime.test(v))).toBe(false);
    expect(s.Problem.properties.code.enum.sort()).toEqual([
      'Conflict',
      'Forbidden',
      'InternalError',
      'InvalidFilter',
      'InvalidScheduleDomain',
      'MalformedRequest',
      'MethodNotAllowed',
      'NotFound',
      'PayloadTooLarge',
      'RecordNotFound',
      'Unauthenticated',
      'UnknownColumn',
      'UnknownDomain',
      'UriTooLong',
    ]);
    expect(s.ListEnvelope.properties.TotalCount['x-implementation-defined']).toBe(true);
  });
});
