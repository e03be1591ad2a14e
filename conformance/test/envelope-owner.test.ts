// Which requirement owns a schema failure of a 2xx body (generic-checks/envelopes.ts): a broken
// envelope is its own requirement's, a query page over the limit of section 8 is QRY-004's, and
// anything else (a field of a record) stays GEN-002's. One cause, one red line.
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { envelopeOwner } from '../src/suite-api/generic-checks/envelopes.js';

const err = (instancePath: string, keyword: string): ErrorObject =>
  ({ instancePath, keyword, schemaPath: '', params: {} }) as ErrorObject;

describe('envelopeOwner', () => {
  it('a missing or mistyped envelope member is the envelope requirement’s', () => {
    expect(envelopeOwner('getRecord', [err('', 'required')])).toBe('REC-001');
    expect(envelopeOwner('getFile', [err('/Domain', 'const')])).toBe('FILE-009');
    expect(envelopeOwner('queryRecords', [err('/List', 'type')])).toBe('QRY-001');
  });

  it('a query page longer than 100 records is QRY-004’s, on both queries', () => {
    expect(envelopeOwner('queryRecords', [err('/List', 'maxItems')])).toBe('QRY-004');
    expect(envelopeOwner('queryFiles', [err('/List', 'maxItems')])).toBe('QRY-004');
    // the attached-files listing has no limit in the spec: no owner
    expect(envelopeOwner('listAttachedFiles', [err('/List', 'maxItems')])).toBeUndefined();
  });

  it('errors of two owners, or inside a record, stay GEN-002’s', () => {
    expect(envelopeOwner('queryRecords', [err('/List', 'maxItems'), err('', 'required')])).toBeUndefined();
    expect(envelopeOwner('queryFiles', [err('/List/0/FileSize', 'type')])).toBeUndefined();
  });
});
