// Faults of authentication and permissions (AUTH, spec 5): Contents under token authentication
// (AUTH-003) and the permission checks of links.
import type { Fault, FaultContext } from '../fault.js';
import {
  bodyJson,
  holds,
  isOk,
  keysOf,
  linkPermission,
  problem,
  type ProxyRequest,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
} from '../exchange.js';
import { LINKABLE, linkBody, on, onFileRead, tokenOf, withToken } from './util.js';
import { readsGrants } from '../operations.js';

/** The caller's grants when they are known (a user created with explicit grants). */
function knownGrants(req: ProxyRequest, ctx: FaultContext) {
  const g = ctx.grantsOf(tokenOf(req, ctx));
  return g && g !== 'admin' ? g : undefined;
}

/**
 * Link/Query that checks View on one `side` only (as the reference checks both): the request is
 * answered from the administrator's view, and only the rows whose `side` domain the caller may view
 * are kept (ParentDomainID / ChildDomainID read alongside as hidden columns). A domain the caller
 * may not view, named for that side, is still refused by the upstream.
 */
function linkQueryChecksOnly(side: 'parent' | 'child'): Fault['rewrite'] {
  return readsGrants(
    on(['queryLinks'], async (req, _route, ctx, next) => {
      const g = knownGrants(req, ctx);
      const named = req.query.get(`${side}Domain`);
      if (!g || (named && !holds(g, named, 'View'))) return next(req);
      const field = side === 'parent' ? 'ParentDomainID' : 'ChildDomainID';
      const { req: r, hidden } = withHiddenColumns(req, [field]);
      const res = await next(withToken(r, ctx, await ctx.adminToken()));
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List)) return next(req);
      const names = new Map([...(await ctx.domainIds()).entries()].map(([n, id]) => [id, n]));
      const key = hidden.keys.get(field)!;
      body.List = (body.List as Array<Record<string, unknown>>).filter((row) => {
        const domain = names.get(row[key] as number);
        stripHidden(row, hidden);
        return domain !== undefined && holds(g, domain, 'View');
      });
      return withResponseJson(res, body);
    }),
  );
}

/** The other permission of the link pair of `childDomain` (spec 5's table: Attach Contacts / Detach
 * Contacts, Attach Files / Modify Files): the one the operation `op` does not need. */
function otherOfPair(op: 'upsertLink' | 'removeLink', childDomain: string) {
  return linkPermission(op === 'upsertLink' ? 'removeLink' : 'upsertLink', childDomain);
}

export const AUTH_FAULTS: Fault[] = [
  {
    name: 'contents-refused-with-token',
    area: 'AUTH',
    description: 'Requesting Contents with token authentication is refused (403) as if it needed a web session.',
    // refused on every file read, so also on the attached-files listing, where 4.3 rule 1 says "It
    // is accepted on the attached-files listing" (FILE-011; token authentication is the interface's, 5)
    requirements: ['AUTH-003', 'FILE-010', 'FILE-011'],
    rewrite: onFileRead((req, _ctx, next) => {
      if (!keysOf(req, 'Contents').length || !req.query.has('columns')) return next(req);
      return Promise.resolve(problem(403, 'Forbidden', 'Contents can only be read in a web session.'));
    }),
  },
  {
    name: 'unauthenticated-served',
    area: 'AUTH',
    description: 'A request without a token is served as an anonymous administrator.',
    requirements: ['AUTH-002'],
    rewrite: async (req, ctx, next) => {
      if (!req.path.startsWith('/api/') || tokenOf(req, ctx)) return next(req);
      return next(withToken(req, ctx, await ctx.adminToken()));
    },
  },
  {
    name: 'unknown-token-accepted',
    area: 'AUTH',
    description:
      'A token the service did not issue (or an expired one) is accepted: the session falls back to the administrator.',
    requirements: ['AUTH-002'],
    rewrite: async (req, ctx, next) => {
      const res = await next(req);
      if (res.status !== 401 || !req.path.startsWith('/api/') || !tokenOf(req, ctx)) return res;
      return next(withToken(req, ctx, await ctx.adminToken()));
    },
  },
  {
    name: 'link-parent-permission-not-checked',
    area: 'AUTH',
    description:
      'Link operations check only View on the child domain, not the Attach/Detach/Modify permission on the parent.',
    requirements: ['AUTH-004', 'AUTH-006', 'AUTH-007'],
    rewrite: readsGrants(
      on(['upsertLink', 'removeLink'], async (req, route, ctx, next) => {
        const g = knownGrants(req, ctx);
        const b = linkBody(req);
        if (!g || !b?.ParentDomain || !b.ChildDomain) return next(req);
        const need = linkPermission(route.op, b.ChildDomain);
        if (!holds(g, b.ParentDomain, need) && holds(g, b.ChildDomain, 'View'))
          return next(withToken(req, ctx, await ctx.adminToken()));
        return next(req);
      }),
    ),
  },
  {
    name: 'link-child-view-not-checked',
    area: 'AUTH',
    description: 'Link operations check the parent permission but not View on the child domain.',
    requirements: ['AUTH-005'],
    rewrite: readsGrants(
      on(['upsertLink', 'removeLink'], async (req, route, ctx, next) => {
        const g = knownGrants(req, ctx);
        const b = linkBody(req);
        if (!g || !b?.ParentDomain || !b.ChildDomain) return next(req);
        if (holds(g, b.ParentDomain, linkPermission(route.op, b.ChildDomain)) && !holds(g, b.ChildDomain, 'View')) {
          return next(withToken(req, ctx, await ctx.adminToken()));
        }
        return next(req);
      }),
    ),
  },
  {
    name: 'link-query-parent-permission-not-checked',
    area: 'AUTH',
    description:
      'Link/Query checks only View on the child domain: a user sees the links of parents in domains the user holds no permission on.',
    requirements: ['AUTH-004'],
    rewrite: linkQueryChecksOnly('child'),
  },
  {
    name: 'link-query-child-view-not-checked',
    area: 'AUTH',
    description:
      'Link/Query checks only the parent domain: a user sees the links to children in domains the user may not view.',
    requirements: ['AUTH-005'],
    rewrite: linkQueryChecksOnly('parent'),
  },
  {
    name: 'link-remove-checks-upsert-permission',
    area: 'AUTH',
    description:
      'Link/Remove checks the Upsert permission (Attach Contacts / Attach Files) instead of Detach Contacts / Modify Files.',
    requirements: ['AUTH-006', 'AUTH-007'],
    rewrite: readsGrants(
      on(['removeLink'], async (req, _route, ctx, next) => {
        const g = knownGrants(req, ctx);
        const b = linkBody(req);
        if (!g || !b?.ParentDomain || !b.ChildDomain || !LINKABLE.includes(b.ChildDomain)) return next(req);
        const wrong = holds(g, b.ParentDomain, linkPermission('upsertLink', b.ChildDomain));
        const right = holds(g, b.ParentDomain, linkPermission('removeLink', b.ChildDomain));
        if (wrong && !right && holds(g, b.ChildDomain, 'View'))
          return next(withToken(req, ctx, await ctx.adminToken()));
        if (!wrong && right) {
          return problem(
            403,
            'Forbidden',
            `Permission '${linkPermission('upsertLink', b.ChildDomain)}' on domain '${b.ParentDomain}' is required.`,
          );
        }
        return next(req);
      }),
    ),
  },
  {
    // issue 44: the permission is checked after the removal, which is not rolled back: the answer
    // is the refusal, the link is gone (an Attach-without-Detach user can remove a link); a test
    // that judges the answer alone passes it
    name: 'link-remove-refused-after-removing',
    area: 'AUTH',
    description:
      'Link/Remove removes the link first and checks the Remove permission (Detach Contacts / Modify Files) afterwards without rolling back: a user lacking it is answered 403 and the link is gone.',
    requirements: ['AUTH-004', 'AUTH-006', 'AUTH-007'],
    rewrite: readsGrants(
      on(['removeLink'], async (req, route, ctx, next) => {
        const g = knownGrants(req, ctx);
        const b = linkBody(req);
        if (!g || !b?.ParentDomain || !b.ChildDomain || !LINKABLE.includes(b.ChildDomain)) return next(req);
        const need = linkPermission(route.op, b.ChildDomain);
        if (holds(g, b.ParentDomain, need) || !holds(g, b.ChildDomain, 'View')) return next(req);
        await next(withToken(req, ctx, await ctx.adminToken()));
        return problem(403, 'Forbidden', `Permission '${need}' on domain '${b.ParentDomain}' is required.`);
      }),
    ),
  },
  {
    // issue 44: a user holding one permission of a pair and not the other
    name: 'link-permission-pair-either-accepted',
    area: 'AUTH',
    description:
      'Link operations on a Contact or File child accept either permission of the pair on the parent (Attach or Detach Contacts; Attach or Modify Files) for Upsert and Remove alike.',
    // the user lacks the permission the operation needs on the parent: AUTH-004's statement too
    requirements: ['AUTH-004', 'AUTH-006', 'AUTH-007'],
    rewrite: readsGrants(
      on(['upsertLink', 'removeLink'], async (req, route, ctx, next) => {
        const g = knownGrants(req, ctx);
        const b = linkBody(req);
        if (!g || !b?.ParentDomain || !b.ChildDomain || !LINKABLE.includes(b.ChildDomain)) return next(req);
        const right = holds(g, b.ParentDomain, linkPermission(route.op, b.ChildDomain));
        const other = holds(g, b.ParentDomain, otherOfPair(route.op, b.ChildDomain));
        if (!right && other && holds(g, b.ChildDomain, 'View'))
          return next(withToken(req, ctx, await ctx.adminToken()));
        return next(req);
      }),
    ),
  },
];
