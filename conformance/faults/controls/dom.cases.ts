// The canned cases of the DOM controls (dom.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, codeAndStatus, get, json, ok, status } from './canned-cases.js';

export const DOM_CONTROL_CASES: Record<string, Case[]> = {
  'unknown-domain-400': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: codeAndStatus(400, 'UnknownDomain'),
    },
    {
      req: get('/api/Claim/999'),
      upstream: problem(404, 'RecordNotFound', 'no'),
      expect: status(404),
    },
  ],
  'unknown-domain-422': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: codeAndStatus(422, 'UnknownDomain'),
    },
  ],
  'domains-listed-only-with-edit': [
    {
      req: get('/api/Domains'),
      grants: { T: { Claim: ['View', 'Edit'], Note: ['View'] } },
      upstream: ok({
        List: [
          { DomainID: 1, Name: 'Claim' },
          { DomainID: 5, Name: 'Note' },
        ],
      }),
      expect: (out) => expect(json(out)).toEqual({ List: [{ DomainID: 1, Name: 'Claim' }] }),
    },
    {
      req: get('/api/Domains'),
      grants: { T: 'admin' },
      upstream: ok({ List: [{ DomainID: 5, Name: 'Note' }] }),
      expect: (out) => expect(json(out)).toEqual({ List: [{ DomainID: 5, Name: 'Note' }] }),
    },
  ],
  'domains-bare-array': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1, Name: 'Claim' }] }),
      expect: (out) => expect(json(out)).toEqual([{ DomainID: 1, Name: 'Claim' }]),
    },
  ],
  'domains-envelope-named': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1 }] }),
      expect: (out) => expect(json(out)).toEqual({ Count: 1, Domains: [{ DomainID: 1 }] }),
    },
  ],
  'domains-list-nested': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ DomainID: 1 }] }),
      expect: (out) => expect(json(out)).toEqual({ data: { items: [{ DomainID: 1 }] } }),
    },
  ],
  'domains-other-order': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Task' }, { Name: 'File' }] }),
      expect: (out) => expect(json(out).List.map((d: any) => d.Name)).toEqual(['Task', 'File', 'Claim']),
    },
  ],
  'domains-extra-entry-keys': [
    {
      req: get('/api/Domains'),
      upstream: ok({ List: [{ Name: 'Custom.X' }, { Name: 'File' }] }),
      expect: (out) =>
        expect(json(out).List).toEqual([
          { Name: 'Custom.X', IsCustom: true, IsLinkable: false },
          { Name: 'File', IsCustom: false, IsLinkable: true },
        ]),
    },
  ],
};
