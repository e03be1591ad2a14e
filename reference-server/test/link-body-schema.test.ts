// The link request body states in its schema what JSON Schema can state: each side identified by
// an ID or by match field and key, the child domain Contact or File. The reference refuses a body
// outside it with 400 MalformedRequest naming the alternatives, and writes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectProblem, harness, type Harness } from './app-core.harness.js';

const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../spec/generated/openapi.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, validateSchema: false });
addFormats.default(ajv); // as the reference's validator (format int64 of the IDs)
ajv.addSchema(doc, 'openapi');
const upsertSchema = ajv.compile({ $ref: 'openapi#/components/schemas/LinkUpsertRequest' });
const removeSchema = ajv.compile({ $ref: 'openapi#/components/schemas/LinkRemoveRequest' });

const byId = { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 2 };
const refused: Array<[string, Record<string, unknown>, RegExp]> = [
  ['no parent identification', { ParentDomain: 'Claim', ChildDomain: 'Contact', ChildRecordID: 2 }, /parent by ID/],
  [
    'a parent match field without its key',
    { ParentDomain: 'Claim', ParentRecordMatchField: 'ClaimNumber', ChildDomain: 'Contact', ChildRecordID: 2 },
    /parent by match field and key \(ParentRecordMatchField with ParentRecordKey\)/,
  ],
  ['no child identification', { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'File' }, /child by ID/],
  ['a child domain that is not Contact or File', { ...byId, ChildDomain: 'Note' }, /"Contact", "File"/],
];

describe('the link request body schema', () => {
  it('accepts each side by ID, by match field and key, or both', () => {
    for (const schema of [upsertSchema, removeSchema]) {
      expect(schema(byId)).toBe(true);
      expect(
        schema({
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'CLM-1',
          ChildDomain: 'File',
          ChildRecordMatchField: 'FileName',
          ChildRecordKey: 'a.pdf',
          ChildRecordID: 7,
        }),
      ).toBe(true);
    }
  });

  it.each(refused)('refuses %s', (_what, body) => {
    expect(upsertSchema(body)).toBe(false);
    expect(removeSchema(body)).toBe(false);
  });
});

describe('the reference applies it', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(() => h.close());

  it.each(refused)('%s: 400 MalformedRequest naming the alternatives, nothing written', async (_what, body, detail) => {
    const before = h.count('links');
    for (const op of ['Upsert', 'Remove']) {
      const r = await h.call('POST', `/api/Link/${op}`, { body });
      expectProblem(r, 400, 'MalformedRequest');
      expect(r.json.detail).toMatch(detail);
    }
    expect(h.count('links')).toBe(before);
  });
});
