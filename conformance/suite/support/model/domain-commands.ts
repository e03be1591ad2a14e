// The Domains step of the model-based tests: GET /api/Domains read by one of the run's users
// (users.ts) and right after it by another of a class answered another list, anywhere in a
// sequence (after link steps by other users): each user is answered the list of the domains that
// user can access, never the other's. What must hold of the run's two domains (the parents' and
// Contact) is in users.ts (domainsVerdict); the list's envelope is the binding's (domain-list.ts).
import type fc from 'fast-check';
import { expect } from 'vitest';
import { domainEntries } from '../domain-list.js';
import { get } from '../request.js';
import { judged } from './blame.js';
import type { Model } from './oracle.js';
import type { Real } from './read-back.js';
import { domainsVerdict, type UserClass } from './users.js';

type Cmd = fc.AsyncCommand<Model, Real>;

export class DomainsCommand implements Cmd {
  /** `user` reads the list, then `then` (another class) as soon as it is answered. */
  constructor(
    readonly user: UserClass,
    readonly then: UserClass,
  ) {}
  check() {
    return true;
  }
  async run(m: Model, r: Real) {
    await readAs(m, r, this.user, 'domain list');
    await readAs(m, r, this.then, "domain list, right after another user's read");
  }
  toString() {
    return `Domains(as ${this.user}, then as ${this.then})`;
  }
}

async function readAs(m: Model, r: Real, user: UserClass, object: string): Promise<void> {
  const p = r.parents[0].domain;
  r.tally.step('Domains', user, object);
  r.log.push(`GET /api/Domains as ${user}`);
  const res = await get(r.t, '/api/Domains', undefined, r.users[user]);
  r.log.push(`  -> ${res.status} ${res.text.slice(0, 300)}`);
  // the list is answered to every authenticated user (4.4: "lists the domains the authenticated
  // user can access"); each of the run's users can access at least one domain
  judged('DOM-008', () =>
    expect(res.status >= 200 && res.status < 300, `GET /api/Domains as ${user} answers 2xx`).toBe(true),
  );
  const names = (await domainEntries(r.t, res.json)).map((d) => d?.Name);
  const v = domainsVerdict(user, p);
  for (const d of v.listed)
    judged('DOM-008', () =>
      expect(names, `GET /api/Domains as ${user} lists ${d}, on which the user holds every permission`).toContain(d),
    );
  const allowed = v.allowed;
  if (allowed)
    judged('DOM-007', () =>
      expect(
        names.filter((n) => !allowed.includes(n as string)),
        `GET /api/Domains as ${user} lists no domain the user holds no permission on (may list: ${allowed.join(', ')})`,
      ).toEqual([]),
    );
  const exact = v.reference;
  if (m.flavour === 'reference' && exact)
    judged('DOM-009', () =>
      expect([...names].sort(), `the reference lists for ${user} exactly the domains on which View is held`).toEqual(
        [...exact].sort(),
      ),
    );
}
