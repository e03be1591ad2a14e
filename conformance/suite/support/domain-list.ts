// The entries of GET /api/Domains, whose envelope the spec does not show (4.4: "Query parameters
// and response envelope: not shown"). The list is read where the binding domainsListField puts it,
// else recognised from the answer (a bare array, the one list of an envelope: a finding, never a
// failure; src/model/not-shown-shapes.ts). When the answer does not show it without doubt, that is
// one failure, DOM-003's (its statement is about the entries of the list), naming the binding to set
// and what the answer held; every other test that reads the list is blocked by it (one cause, one
// red line), never failed on "the domain list is an array".
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { locateList } from '../../src/model/not-shown-shapes.js';
import type { Ctx } from './request.js';

export type DomainEntry = Partial<components['schemas']['Domain']>;

/** The entries of a GET /api/Domains answer body (a step of DOM-003 outside its own test). */
export async function domainEntries(t: Ctx, body: unknown): Promise<DomainEntry[]> {
  const list = t.domainList(body);
  if (list) return list as DomainEntry[];
  const r = locateList(body, t.bindings.domainsListField);
  const why = 'doubt' in r ? r.doubt : `nothing at \`${t.bindings.domainsListField}\``;
  return t.needs('DOM-003', 'the domain list is found in the answer of GET /api/Domains', async () =>
    expect.fail(
      `the domain list cannot be found without doubt in the answer of GET /api/Domains: ${why}; set the binding domainsListField to the dotted path of the list ('' when the body is the list)`,
    ),
  );
}
