// DomainIDs (spec 2.1): the core ones the spec fixes, and the step of the tests that find a link
// row by its ParentDomainID. Those tests take the parent's DomainID from the provider state 'a link
// parent'; when the service numbers that domain otherwise, the rows they look for carry the
// service's number and are not found, a failure of the numbering, not of the links. The numbering
// is DOM-004's (core domains keep the fixed IDs) and DOM-005's (custom domains above them), judged by
// their own tests in domains.test.ts: a DomainID the service lists against them blocks the link test
// by that requirement (one cause, one red line).
import { expect } from 'vitest';
import { CORE_DOMAIN_IDS } from '../../../spec/generated/facts.js';
import type { components } from '../../../spec/generated/openapi.js';
import { PreconditionFailedError } from '../../src/suite-api/dsl.js';
import { type Ctx, get } from './request.js';

type Entry = Partial<components['schemas']['Domain']>;

/** The core DomainIDs of section 2.1 ("Core DomainIDs are fixed in every environment"). */
export { CORE_DOMAIN_IDS };
/** "Custom entities have higher IDs": every custom DomainID is above this one. */
export const MAX_CORE_DOMAIN_ID = Math.max(...Object.values(CORE_DOMAIN_IDS));

/** Per test: the DomainIDs GET /api/Domains lists by name (read once), or undefined when unreadable. */
const listedPerTest = new WeakMap<Ctx, Promise<Map<string, unknown> | undefined>>();

/**
 * The domain list as the test's caller (the administrator) sees it. A list that cannot be read
 * leaves nothing to compare: its own tests (DOM-003, DOM-008) judge it, the link tests go on.
 */
function listedDomainIds(t: Ctx): Promise<Map<string, unknown> | undefined> {
  let pending = listedPerTest.get(t);
  if (!pending) {
    pending = get(t, '/api/Domains').then((res) => {
      if (res.status !== 200) return undefined;
      const list = t.domainList(res.json);
      if (!Array.isArray(list)) return undefined;
      return new Map((list as Entry[]).map((d) => [String(d?.Name), d?.DomainID]));
    });
    listedPerTest.set(t, pending);
  }
  return pending;
}

/**
 * Step of a test that compares link rows with `domainId`, the provider state's DomainID of
 * `domain`: the service lists the domain with that DomainID. When it lists another, the test is
 * blocked by the rule that number breaks (DOM-004 for a core domain, DOM-005 for a `Custom.` one);
 * a listed number that keeps the rules while the state gave another is the state endpoint's
 * disagreement with its service (precondition failed). A domain not listed, or listed without an
 * integer DomainID (DOM-003's shape), leaves nothing to compare.
 */
export async function needsListedDomainId(t: Ctx, domain: string, domainId: number): Promise<void> {
  const listed = (await listedDomainIds(t))?.get(domain);
  if (!Number.isInteger(listed) || listed === domainId) return;
  const id = listed as number;
  const what = `GET /api/Domains lists ${domain} with DomainID ${id}, the provider state gave ${domainId}`;
  const fixed = CORE_DOMAIN_IDS[domain];
  if (fixed !== undefined)
    await t.needs('DOM-004', `${domain} keeps its fixed DomainID ${fixed}`, async () =>
      expect(id, `${what}; the spec fixes ${fixed}`).toBe(fixed),
    );
  if (domain.startsWith('Custom.'))
    await t.needs('DOM-005', `${domain} has a DomainID above every core one`, async () =>
      expect(id, `${what}; custom DomainIDs are above ${MAX_CORE_DOMAIN_ID}`).toBeGreaterThan(MAX_CORE_DOMAIN_ID),
    );
  throw new PreconditionFailedError(`${what}: the provider state and the service disagree on the DomainID`);
}
