// Provider states of the links area: 'a contact', 'a link parent', 'contact relationships'.
import { CODE_LISTS } from '../dictionary.js';
import { ApiError } from '../errors.js';
import type { StateDef } from './registry.js';
import { createRecord, createTwins, domainParam, marker, storedFields } from './records.js';

const aContact: StateDef = {
  setup(_params, ctx) {
    const { deps } = ctx;
    const mark = marker(ctx);
    const contact = deps.dict.get('Contact')!;
    const email = `${mark.toLowerCase()}@example.com`;
    const id = createRecord(ctx, contact, {
      FirstName: 'Pat',
      LastName: `Contact-${mark}`,
      Email: email,
      Phone: '555-0100',
    });
    // A numeric key unique to this contact.
    const code = 900_000_000 + id;
    deps.db.prepare('UPDATE "Contact" SET ContactCode = ? WHERE ContactID = ?').run(code, id);
    return {
      contactId: id,
      textMatchField: 'Email',
      textMatchKey: email,
      numericMatchField: 'ContactCode',
      numericMatchKey: code,
      // Name is the computed display ("First Last"), not a stored text or numeric field.
      nonMatchableField: 'Name',
    };
  },
};

/** The parent's domain: `domain`, or with `customDomain: true` (protocol 1.2.0) a `Custom.` one. */
function parentDomain(params: Record<string, unknown>, ctx: Parameters<StateDef['setup']>[1]) {
  if (params.customDomain !== undefined && typeof params.customDomain !== 'boolean')
    throw new ApiError(400, 'MalformedRequest', "'customDomain' must be a boolean.");
  if (params.customDomain !== true) return domainParam(ctx, params.domain, 'Claim');
  if (params.domain !== undefined)
    throw new ApiError(400, 'MalformedRequest', "'customDomain' chooses the domain: give it without 'domain'.");
  const custom = ctx.deps.dict.all().find((d) => d.name.startsWith('Custom.'));
  if (!custom) throw new ApiError(501, 'FixtureCannotExist', 'This service has no customer-defined domain.');
  return custom;
}

const aLinkParent: StateDef = {
  setup(params, ctx) {
    const def = parentDomain(params, ctx);
    const mark = marker(ctx);
    const text = storedFields(def).find((f) => f.type === 'text');
    const key = `LP-${mark}`;
    const twin = params.twinDomain === undefined ? undefined : domainParam(ctx, params.twinDomain, 'Claim');
    const twinText = twin ? storedFields(twin).find((f) => f.type === 'text') : undefined;
    const own = text ? { [text.name]: key } : {};
    const id = twin
      ? createTwins(ctx, def, twin, own, twinText ? { [twinText.name]: `LP-TWIN-${mark}` } : {})
      : createRecord(ctx, def, own);
    const nonMatchable =
      def.fields.find((f) => !f.computed && !['text', 'number', 'integer'].includes(f.type)) ??
      def.fields.find((f) => f.computed);
    const values: Record<string, unknown> = {
      domain: def.name,
      domainId: def.id,
      id,
      textMatchField: text?.name,
      textMatchKey: text ? key : undefined,
    };
    if (nonMatchable) values.nonMatchableField = nonMatchable.name;
    if (params.customDomain === true) values.customDomain = true;
    if (twin) {
      values.twinDomain = twin.name;
      values.twinDomainId = twin.id;
    }
    return values;
  },
};

const contactRelationships: StateDef = {
  setup() {
    return { relationships: CODE_LISTS.ContactType!.map(([code]) => code) };
  },
};

/** The states of this file, registered by provider-states/index.ts. */
export const LINK_STATES: Record<string, StateDef> = {
  'a contact': aContact,
  'a link parent': aLinkParent,
  'contact relationships': contactRelationships,
};
