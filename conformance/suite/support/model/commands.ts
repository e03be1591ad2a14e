// The step generators of the model-based tests: schedule steps (schedule-commands.ts) on two
// proposals of one type, link steps (link-commands.ts) on three contacts and two parents of one
// domain. Besides the plain steps: repetitions (the same update twice within a second, a Reinstate
// of a record restored before, the same Reinstate or link step twice at once) and wrong-object
// references (a record of one proposal named through the other's path; a parent named by its
// match field instead of its ID). And users (users.ts) holding part of the permission table: link
// steps sent by them, and the domain list read by each (domain-commands.ts).
import fc from 'fast-check';
import { DomainsCommand } from './domain-commands.js';
import { LinkRemoveCommand, LinkUpsertCommand, type LinkTarget, type ParentBy } from './link-commands.js';
import type { Model } from './oracle.js';
import type { Real } from './read-back.js';
import {
  BatchCommand,
  DeleteCommand,
  ForeignCommand,
  type ForeignOp,
  ReinstateCommand,
  UpdateTwiceCommand,
} from './schedule-commands.js';
import { listGroup, USER_CLASSES, type UserClass } from './users.js';

type Cmd = fc.AsyncCommand<Model, Real>;

/**
 * Weighted so that a short run still meets the interesting cases: atomic batches that mix failing
 * and succeeding items, removals of links that exist, a restored record reinstated again.
 */
export function commandArbitraries(): Array<fc.Arbitrary<Cmd>> {
  const pick = fc.nat({ max: 7 });
  const proposal = fc.nat({ max: 1 });
  const slot = fc.record({ parent: fc.nat({ max: 1 }), contact: fc.nat({ max: 2 }) });
  const batch = fc.record({
    proposal,
    atomic: fc.constantFrom(true, true, false, undefined),
    inserts: fc.array(fc.constantFrom('valid' as const, 'valid' as const, 'missing-name' as const), { maxLength: 3 }),
    updates: fc.array(
      fc.record({ pick, kind: fc.constantFrom('valid' as const, 'valid' as const, 'empty-name' as const) }),
      { maxLength: 2 },
    ),
    deletes: fc.array(pick, { maxLength: 1 }),
  });
  const linkStep = (
    target: fc.Arbitrary<LinkTarget>,
    by: fc.Arbitrary<ParentBy>,
    user: fc.Arbitrary<UserClass> = fc.constant('admin'),
  ) =>
    fc.record({
      slot,
      target,
      pick,
      by,
      twice: fc.constantFrom(false, false, true),
      user,
    });
  // the users holding part of the permission table (users.ts), allowed or refused by spec 5: mostly
  // the one holding the other permission of the pair (Attach without Detach for a Remove, Detach
  // without Attach for an Upsert), the class a check of the wrong permission lets through
  const partial = (pair: UserClass) =>
    fc.constantFrom<UserClass>(
      pair,
      pair,
      pair,
      pair,
      'view',
      'no-parent',
      'no-child-view',
      'full',
      pair === 'attach' ? 'detach' : 'attach',
    );
  const upsert = linkStep(
    fc.constantFrom<LinkTarget>('existing', 'sibling', 'sibling', 'slot'),
    fc.constantFrom<ParentBy>('id', 'id', 'match'),
  ).map((s) => new LinkUpsertCommand(s));
  // a Remove by match field must touch only the named parent's link: a contact linked to both
  // parents (an Upsert of a sibling) meets it often
  const remove = linkStep(
    fc.constantFrom<LinkTarget>('existing', 'existing', 'existing', 'slot'),
    fc.constantFrom<ParentBy>('id', 'match', 'match'),
  ).map((s) => new LinkRemoveCommand(s));
  // the same link steps sent by a user holding part of the grants: mostly on existing links (a
  // Remove a user lacking Detach Contacts must not carry out) and by match field as well
  const upsertAs = linkStep(
    fc.constantFrom<LinkTarget>('existing', 'sibling', 'slot'),
    fc.constantFrom<ParentBy>('id', 'match'),
    partial('detach'),
  ).map((s) => new LinkUpsertCommand(s));
  const removeAs = linkStep(
    fc.constantFrom<LinkTarget>('existing', 'existing', 'existing', 'slot'),
    fc.constantFrom<ParentBy>('id', 'match'),
    partial('attach'),
  ).map((s) => new LinkRemoveCommand(s));
  // the list read by two users, one right after the other, whose lists differ (users.ts
  // listGroup): between two users answered the same list, one user's list answered to the other
  // would show nothing
  const domains = fc.tuple(fc.nat({ max: USER_CLASSES.length - 1 }), fc.nat({ max: 5 })).map(([a, b]) => {
    const first = USER_CLASSES[a];
    const others = USER_CLASSES.filter((u) => listGroup(u) !== listGroup(first));
    return new DomainsCommand(first, others[b % others.length]);
  });
  const reinstate = fc
    .tuple(pick, fc.constantFrom(false, false, true))
    .map(([p, twice]) => new ReinstateCommand(p, twice));
  // a record named through the other proposal's path; a Reinstate so (which needs a soft-deleted
  // record of an Endorsement) more often than the others
  const foreign = fc
    .tuple(fc.constantFrom<ForeignOp>('update', 'batch-delete', 'delete', 'reinstate', 'reinstate', 'reinstate'), pick)
    .map(([op, p]) => new ForeignCommand(op, p));
  // fc.commands picks each entry equally often: 10 of 22 schedule steps (a record named through
  // the other proposal's path a fourth more often than before the users came in, so that a
  // sequence still meets a Reinstate so after a DELETE), 6 link steps as the administrator, 4 link
  // steps by users of partial grants (Removes, which must leave the links alone, more than
  // Upserts), 2 reads of the domain list
  return [
    batch.map((s) => new BatchCommand(s)),
    fc.tuple(pick, proposal).map(([p, q]) => new DeleteCommand(p, q)),
    fc.tuple(pick, proposal).map(([p, q]) => new DeleteCommand(p, q)),
    reinstate,
    reinstate,
    fc.tuple(pick, proposal).map(([p, q]) => new UpdateTwiceCommand(p, q)),
    foreign,
    foreign,
    foreign,
    foreign,
    upsert,
    upsert,
    upsert,
    remove,
    remove,
    remove,
    upsertAs,
    removeAs,
    removeAs,
    removeAs,
    domains,
    domains,
  ];
}
