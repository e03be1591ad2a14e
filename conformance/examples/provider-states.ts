// provider-states.ts — the vendor guide's worked example (conformance/README.md, section 2): the
// provider-state endpoint for `a user` and `records`, protocol 1.1.0. Mount it only in test
// deployments, never in production. The guide shows this file as it is; the tests run it
// (conformance/test/vendor-guide-example.test.ts), so it cannot drift from the protocol.
import { Hono } from 'hono';

/** Your data access (here: what the example needs of it). */
export interface Db {
  users: { create(u: { name: string; tag: string }): Promise<{ id: number }>; deleteByTag(tag: string): Promise<void> };
  permissions: { grant(userId: number, domain: string, permissions: string[]): Promise<void> };
  domains: { names(): Promise<string[]> };
  claims: { insert(row: Record<string, unknown>): Promise<number>; deleteByTag(tag: string): Promise<void> };
}

/** The protocol version this endpoint implements: declared in every setup answer. */
const PROTOCOL = '1.1.0';

type Params = { setupId: string } & Record<string, unknown>;
interface State {
  setup(p: Params): Promise<Record<string, unknown>>;
  teardown(p: Params): Promise<void>;
}

class BadParams extends Error {}

// "a user" without grants is an administrator: every permission on every domain except RestrictDownload
const ADMIN = ['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'Full'];

function states(db: Db, issueToken: (userId: number) => Promise<string>): Record<string, State> {
  return {
    'a user': {
      async setup({ setupId, grants }) {
        const user = await db.users.create({ name: `conformance-${setupId}`, tag: setupId });
        const perms =
          (grants as Record<string, string[]> | undefined) ??
          Object.fromEntries((await db.domains.names()).map((d) => [d, ADMIN]));
        for (const [domain, list] of Object.entries(perms)) await db.permissions.grant(user.id, domain, list);
        return { token: await issueToken(user.id), userId: user.id };
      },
      async teardown({ setupId }) {
        await db.users.deleteByTag(setupId); // its tokens and permissions go with it
      },
    },

    // `count` records of one domain, selectable together by a filter, with a sortable field, a field
    // null on all of them and one set on a single record. The suite chooses the adversarial case:
    // `sortRanks[i]` is the rank of the i-th record created in ClaimNumber order, `sparseAt` the
    // record that gets the one ReserveAmount. Both are echoed: that is how the suite knows they were
    // honoured.
    records: {
      async setup({ setupId, domain = 'Claim', count, sortRanks, sparseAt }) {
        // refusing another domain with 400 is allowed: the tests that need it are then not-applicable
        if (domain !== 'Claim') throw new BadParams(`records: domain ${String(domain)} is not supported`);
        const n = Number(count);
        const ranks = (sortRanks as number[] | undefined) ?? Array.from({ length: n }, (_, i) => i);
        if (ranks.length !== n || [...ranks].sort((a, b) => a - b).some((r, i) => r !== i))
          throw new BadParams('records: sortRanks must be a permutation of 0 .. count-1');
        const sparse = sparseAt === undefined ? 0 : Number(sparseAt);
        if (!(sparse >= 0 && sparse < n)) throw new BadParams('records: sparseAt is out of range');
        const ids: number[] = [];
        for (let i = 0; i < n; i++) {
          ids.push(
            await db.claims.insert({
              ClaimantName: `cf-${setupId}`,
              // distinct, one prefix, digits of one length: every collation orders them alike
              ClaimNumber: `CF-${setupId}-${String(ranks[i]).padStart(4, '0')}`,
              Notes: null,
              ReserveAmount: i === sparse ? 100 : null,
              tag: setupId,
            }),
          );
        }
        return {
          domain,
          ids,
          filter: `ClaimantName:eq:cf-${setupId}`, // in YOUR filter syntax
          // in YOUR LINQ form: exactly the 2nd, 4th, ... created, never the first or the last;
          // leave it out if your service has no LINQ filter (QRY-010 is then not-applicable)
          ...(n >= 3
            ? {
                linqFilter: ids
                  .filter((_, i) => i % 2 === 1 && i < ids.length - 1)
                  .map((id) => `ClaimID == ${id}`)
                  .join(' || '),
              }
            : {}),
          sortField: 'ClaimNumber',
          allNullField: 'Notes',
          sometimesNullField: 'ReserveAmount',
          ...(sortRanks !== undefined ? { sortRanks } : {}),
          ...(sparseAt !== undefined ? { sparseAt } : {}),
        };
      },
      async teardown({ setupId }) {
        await db.claims.deleteByTag(setupId);
      },
    },
  };
}

const problem = (status: number, detail: string) =>
  new Response(JSON.stringify({ type: 'about:blank', title: 'Bad Request', status, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  });

export function providerStates(db: Db, issueToken: (userId: number) => Promise<string>): Hono {
  const all = states(db, issueToken);
  return new Hono().post('/_provider-states', async (c) => {
    let body: { state?: string; action?: string; params?: Params };
    try {
      body = await c.req.json();
    } catch {
      return problem(400, 'the body is not JSON');
    }
    const state = all[body.state ?? ''];
    if (!state) return problem(400, `Unknown provider state: ${body.state}.`);
    if (typeof body.params?.setupId !== 'string') return problem(400, 'params.setupId is required');
    try {
      if (body.action === 'setup') return c.json({ protocol: PROTOCOL, ...(await state.setup(body.params)) });
      if (body.action === 'teardown') {
        await state.teardown(body.params);
        return c.json({});
      }
      return problem(400, "action must be 'setup' or 'teardown'");
    } catch (e) {
      if (e instanceof BadParams) return problem(400, e.message);
      throw e; // a 500: the tests that need the state end as precondition-failed
    }
  });
}

// in your app:  if (process.env.PROVIDER_STATES === '1') app.route('/', providerStates(db, issueToken));
