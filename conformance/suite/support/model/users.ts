// The users of the model-based tests: classes of grants that are subsets of the permission table
// (spec 5), each given on the domain of the run's link parents (P) and on Contact, and what the
// spec says each class must be answered, from its sentences only:
//   - "Link operations check the user's permissions on the parent domain" (AUTH-004);
//   - "The user must also hold View permission on the child domain" (AUTH-005);
//   - "| Contact | Attach Contacts | Detach Contacts |" (AUTH-006);
//   - "Results of `GET /api/Domains` are limited to the domains the authenticated user can access"
//     (DOM-007) and "lists the domains the authenticated user can access" (DOM-008).
// Which permission makes a domain one the user "can access" is not shown: core says a domain is
// listed for a user holding every permission on it (DOM-008) and never for one holding none
// (DOM-007); a partial holder (View without Edit) may see it or not. The reference lists a domain
// exactly when View is held (DOM-009, implementation-defined).
import type { Ctx } from '../request.js';
import { FULL_ACCESS, type Grants } from '../states.js';

/** Every permission that opens rather than restricts (RestrictDownload restricts). */
/**
 * admin: 'a user' without grants (every permission on every domain). full: every opening
 * permission on P and Contact. view: View on both, nothing else (View without Edit). attach:
 * View and Attach Contacts on P (Attach without Detach). detach: View and Detach Contacts on P.
 * no-parent: nothing on P, View on Contact. no-child-view: everything on P, nothing on Contact.
 */
export const USER_CLASSES = ['admin', 'full', 'view', 'attach', 'detach', 'no-parent', 'no-child-view'] as const;
export type UserClass = (typeof USER_CLASSES)[number];

/** The grants of a class, on the parent domain `p` (undefined: the administrator). */
function grantsOf(cls: UserClass, p: string): Grants | undefined {
  switch (cls) {
    case 'admin':
      return undefined;
    case 'full':
      return { [p]: FULL_ACCESS, Contact: FULL_ACCESS };
    case 'view':
      return { [p]: ['View'], Contact: ['View'] };
    case 'attach':
      return { [p]: ['View', 'AttachContacts'], Contact: ['View'] };
    case 'detach':
      return { [p]: ['View', 'DetachContacts'], Contact: ['View'] };
    case 'no-parent':
      return { Contact: ['View'] };
    case 'no-child-view':
      return { [p]: FULL_ACCESS };
  }
}

/** Tokens by class (undefined: the run's administrator, the default token). */
export type Users = Record<UserClass, string | undefined>;

/** One user of each class, made through the provider state 'a user' (at once). */
export async function makeUsers(t: Ctx, parentDomain: string): Promise<Users> {
  const entries = await Promise.all(
    USER_CLASSES.map(async (cls) => {
      const grants = grantsOf(cls, parentDomain);
      if (!grants) return [cls, undefined] as const;
      const u = await t.given('a user', { grants });
      return [cls, u.token as string] as const;
    }),
  );
  return Object.fromEntries(entries) as Users;
}

/**
 * Whether a Contact link operation by `cls` must be allowed, or must be refused changing nothing,
 * and the requirement whose sentence says so: the parent permission of the table (AUTH-006) for a
 * user holding other permissions on P, any parent permission (AUTH-004) for one holding none, View
 * on the child (AUTH-005).
 */
export function linkVerdict(
  cls: UserClass,
  op: 'upsert' | 'remove',
): { allowed: true } | { allowed: false; requirement: string } {
  if (cls === 'no-parent') return { allowed: false, requirement: 'AUTH-004' };
  if (cls === 'no-child-view') return { allowed: false, requirement: 'AUTH-005' };
  const needs = op === 'upsert' ? ['admin', 'full', 'attach'] : ['admin', 'full', 'detach'];
  return needs.includes(cls) ? { allowed: true } : { allowed: false, requirement: 'AUTH-006' };
}

/**
 * What GET /api/Domains must show `cls` of the run's two domains (P and Contact): `listed` must be
 * there (DOM-008: every permission held), nothing outside `allowed` may be (DOM-007: no permission
 * held); `reference`: the reference's exact list for a user with grants (DOM-009: View held), or
 * undefined for the administrator (every domain).
 */
export function domainsVerdict(
  cls: UserClass,
  p: string,
): { listed: string[]; allowed: string[] | undefined; reference: string[] | undefined } {
  switch (cls) {
    case 'admin':
      return { listed: [p, 'Contact'], allowed: undefined, reference: undefined };
    case 'full':
      return { listed: [p, 'Contact'], allowed: [p, 'Contact'], reference: [p, 'Contact'] };
    case 'view':
    case 'attach':
    case 'detach':
      return { listed: [], allowed: [p, 'Contact'], reference: [p, 'Contact'] };
    case 'no-parent':
      return { listed: [], allowed: ['Contact'], reference: ['Contact'] };
    case 'no-child-view':
      return { listed: [p], allowed: [p], reference: [p] };
  }
}

/**
 * Users the spec answers the same domain list of the run's domains share a group: the
 * administrator (every domain), the holders of something on both (P and Contact), nothing on P
 * (Contact alone), nothing on Contact (P alone).
 */
export function listGroup(cls: UserClass): 'every domain' | 'both' | 'Contact' | 'parent' {
  if (cls === 'admin') return 'every domain';
  if (cls === 'no-parent') return 'Contact';
  if (cls === 'no-child-view') return 'parent';
  return 'both';
}
