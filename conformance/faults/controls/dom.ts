// Controls of domains (DOM): GET /api/Domains (its envelope, order and entries are not shown beyond
// the four fields) and the error answers of unknown domains.
import type { Control } from '../fault.js';
import { holds, withResponseJson } from '../exchange.js';
import { readsGrants } from '../operations.js';
import { NOT_SHOWN, onSuccess, recode } from './util.js';

const ENVELOPE = 'Section 4.4: "GET /api/Domains: ... Query parameters and response envelope: not shown."';

/** The domain entries of the reference's answer. */
function entries(body: any): any[] {
  return Array.isArray(body) ? body : Array.isArray(body?.List) ? body.List : [];
}

export const DOM_CONTROLS: Control[] = [
  // Error answers: other statuses and bodies where the specification does not show them.
  {
    name: 'unknown-domain-400',
    area: 'DOM',
    description: 'An unknown (or wrongly cased) domain is answered 400 instead of 404.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/UnknownDomain', 'components/responses/NotFound'],
    select: ['DOM-', 'REC-', 'QRY-'],
    rewrite: recode(['UnknownDomain'], 400),
  },
  {
    name: 'unknown-domain-422',
    area: 'DOM',
    description: 'An unknown (or wrongly cased) domain is answered 422 Unprocessable Content.',
    allowedBy: NOT_SHOWN,
    markers: ['components/responses/UnknownDomain'],
    select: ['DOM-', 'LINK-'],
    rewrite: recode(['UnknownDomain'], 422),
  },
  // GET /api/Domains: its envelope, order and entries are not shown beyond the four fields.
  {
    name: 'domains-bare-array',
    area: 'DOM',
    description:
      'GET /api/Domains answers a bare JSON array of entries (no envelope); no binding is set: core recognises it.',
    allowedBy: ENVELOPE,
    markers: ['paths/~1api~1Domains/get/responses/200', 'components/schemas/DomainList'],
    rewrite: onSuccess(['listDomains'], (res, body) => withResponseJson(res, entries(body))),
  },
  {
    name: 'domains-envelope-named',
    area: 'DOM',
    description:
      'GET /api/Domains answers `{"Domains": [...], "Count": n}`; no binding is set: core recognises the one list.',
    allowedBy: ENVELOPE,
    markers: ['paths/~1api~1Domains/get/responses/200', 'components/schemas/DomainList'],
    rewrite: onSuccess(['listDomains'], (res, body) =>
      withResponseJson(res, { Count: entries(body).length, Domains: entries(body) }),
    ),
  },
  {
    name: 'domains-list-nested',
    area: 'DOM',
    description:
      'GET /api/Domains answers `{"data": {"items": [...]}}`, with the binding domainsListField set to `data.items` (the binding path kept in use).',
    allowedBy: ENVELOPE,
    markers: ['paths/~1api~1Domains/get/responses/200', 'components/schemas/DomainList'],
    select: ['DOM-', 'MEM-', 'LINK-', 'GEN-'],
    config: { bindings: { domainsListField: 'data.items' } },
    rewrite: onSuccess(['listDomains'], (res, body) => withResponseJson(res, { data: { items: entries(body) } })),
  },
  {
    // issue 44: a user holding part of the grants on a domain; which permission makes a domain one
    // the user "can access" is not shown, so core judges the list only for users holding every
    // permission (listed) or none (not listed) on a domain
    name: 'domains-listed-only-with-edit',
    area: 'DOM',
    description:
      'GET /api/Domains lists, for a user with explicit grants, only the domains on which the user holds Edit: View alone does not make a domain accessible.',
    allowedBy:
      'Section 5 rule 3: "Results of `GET /api/Domains` are limited to the domains the authenticated user can access." and 4.4: "lists the domains the authenticated user can access" (which permission makes a domain accessible is not shown; the reference\'s View is implementation-defined, DOM-009)',
    select: ['DOM-'],
    rewrite: readsGrants(
      onSuccess(['listDomains'], (res, body, req, ctx) => {
        const token = req.headers[ctx.tokenHeader];
        const grants = token ? ctx.grantsOf(token) : undefined;
        if (!grants || grants === 'admin') return res;
        const list = entries(body).filter((d) => holds(grants, String(d?.Name), 'Edit'));
        return withResponseJson(res, Array.isArray(body) ? list : { ...body, List: list });
      }),
    ),
  },
  {
    name: 'domains-other-order',
    area: 'DOM',
    description: 'GET /api/Domains lists the domains by Name, descending, instead of by DomainID.',
    allowedBy: `${ENVELOPE} No order of the list is documented.`,
    select: ['DOM-', 'MEM-', 'LINK-', 'GEN-'],
    rewrite: onSuccess(['listDomains'], (res, body) => {
      const list = [...entries(body)].sort((a, b) => String(b.Name).localeCompare(String(a.Name)));
      return withResponseJson(res, Array.isArray(body) ? list : { ...body, List: list });
    }),
  },
  {
    name: 'domains-extra-entry-keys',
    area: 'DOM',
    description:
      'Each GET /api/Domains entry carries extra keys (`IsCustom`, `IsLinkable`) beside the four documented ones.',
    allowedBy:
      'Section 4.4: "Each entry has DomainID, Name, DisplayNameSingular, DisplayNamePlural." (further members are not excluded)',
    select: ['DOM-', 'MEM-', 'GEN-'],
    rewrite: onSuccess(['listDomains'], (res, body) => {
      for (const e of entries(body))
        Object.assign(e, {
          IsCustom: String(e.Name).startsWith('Custom.'),
          IsLinkable: ['Contact', 'File'].includes(e.Name),
        });
      return withResponseJson(res, body);
    }),
  },
];
