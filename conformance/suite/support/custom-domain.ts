// A customer-defined domain the fixture says exists (spec 1: "Customer-defined domains have names
// that begin with `Custom.`"). The suite knows no such name, and a domain list that leaves the
// custom domains out would otherwise only make the tests that look for one there not-applicable.
// The provider state 'a link parent' with `customDomain: true` (protocol 1.2.0) makes a record in
// one of the implementation's custom domains and names it: the list must then hold it (DOM-008).
import type { ProviderStates } from '../../../spec/generated/provider-states.js';
import { NotApplicableError, PreconditionFailedError } from '../../src/suite-api/dsl.js';
import type { Ctx } from './request.js';

export type LinkParent = ProviderStates['a link parent']['values'];

/**
 * A link parent in a customer-defined domain, or undefined where the endpoint cannot give one (an
 * older protocol, no custom domain: 501 FixtureCannotExist, or the param not honoured): the caller
 * then judges what it can without it.
 */
export async function customLinkParent(t: Ctx): Promise<LinkParent | undefined> {
  let p: LinkParent;
  try {
    p = await t.given('a link parent', { customDomain: true });
  } catch (e) {
    if (e instanceof NotApplicableError || e instanceof PreconditionFailedError) return undefined;
    throw e;
  }
  if (!p.domain.startsWith('Custom.'))
    throw new PreconditionFailedError(
      `provider state 'a link parent' confirmed customDomain but answered the domain ${p.domain}, whose name does not begin with Custom.`,
    );
  return p;
}
