// The link steps of the model-based tests as fast-check commands: Link/Upsert and Link/Remove of
// a contact to one of two parents of one domain, the parent named by primary key or by its match
// field (spec 4.4: both identify the same record), once or twice at once. After each step every
// contact's links are read back (read-back.ts): a step on one (parent, contact) link must leave
// every other link as it was.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { isRefusal } from '../../../src/suite-api/meaning.js';
import type { components } from '../../../../spec/generated/openapi.js';
import type { LinkArgs } from '../../../src/suite-api/dsl.js';
import type { Ctx } from '../request.js';
import { judged } from './blame.js';
import {
  applyLinkRemove,
  applyLinkUpsert,
  existingSlots,
  relationshipIndex,
  slotKey,
  type LinkSlot,
} from './links-oracle.js';
import type { Model } from './oracle.js';
import { checkLinks, type Real } from './read-back.js';
import { linkVerdict, type UserClass } from './users.js';

type Cmd = fc.AsyncCommand<Model, Real>;
type LinkRemoveResult = components['schemas']['LinkRemoveResult'];
type LinkAnswer = Awaited<ReturnType<Ctx['links']['upsert']>>;

/** How a step names the parent: by primary key, or by its text match field and key (4.4). */
export type ParentBy = 'id' | 'match';

function linkArgs(r: Real, s: LinkSlot, by: ParentBy): LinkArgs {
  const p = r.parents[s.parent];
  const rel = relationshipIndex(s);
  return {
    parentDomain: p.domain,
    ...(by === 'id' ? { parentId: p.id } : { parentMatch: { field: p.textMatchField, key: p.textMatchKey } }),
    childDomain: 'Contact',
    childId: r.contacts[s.contact],
    ...(rel === undefined ? {} : { relationship: r.relationships[rel] }),
  };
}

/**
 * Which link a step names: `slot`; or an existing link, picked by `pick`; or its sibling, the same
 * contact with the other parent (so that a contact is often linked to both parents). Without
 * existing links, `slot`.
 */
function targetSlot(m: Model, slot: LinkSlot, target: LinkTarget, pick: number, parents: number): LinkSlot {
  const linked = existingSlots(m.links);
  if (target === 'slot' || linked.length === 0) return slot;
  const hit = linked[pick % linked.length];
  return target === 'existing' ? hit : { parent: (hit.parent + 1) % parents, contact: hit.contact };
}

export type LinkTarget = 'slot' | 'existing' | 'sibling';

interface LinkStep {
  slot: LinkSlot;
  target: LinkTarget;
  pick: number;
  by: ParentBy;
  /** The same request twice at once. */
  twice: boolean;
  /** Who sends it (users.ts): the administrator, or a user holding part of the permission table. */
  user: UserClass;
}

/**
 * One link step on the link of `slot`, or, when `existing` and there is one, on an existing link
 * picked by `pick`: sends it through the bindings (`t.links`), logs it, lets the subclass judge the
 * answer and apply the step to the model, then reads every contact's links back (checkLinks).
 */
abstract class LinkCommand implements Cmd {
  protected abstract readonly op: 'upsert' | 'remove';
  constructor(readonly s: LinkStep) {}
  check() {
    return true;
  }
  /**
   * Judges the answers to the step on `slot` and applies the step to the model; returns the rule
   * the read-back of every contact's links judges next.
   */
  protected abstract judgeAndApply(m: Model, slot: LinkSlot, res: LinkAnswer[]): string;
  async run(m: Model, r: Real) {
    const slot = targetSlot(m, this.s.slot, this.s.target, this.s.pick, r.parents.length);
    const a = linkArgs(r, slot, this.s.by);
    const other = { parent: (slot.parent + 1) % r.parents.length, contact: slot.contact };
    r.tally.step(
      `Link${this.name()}`,
      this.s.user,
      `${m.links.has(slotKey(slot)) ? 'linked' : 'unlinked'}${m.links.has(slotKey(other)) ? ', linked to the other parent' : ''}, by ${this.s.by}`,
    );
    const as = this.s.user === 'admin' ? '' : ` as ${this.s.user}`;
    r.log.push(`Link/${this.name()}${this.s.twice ? ' (twice at once)' : ''}${as} ${JSON.stringify(a)}`);
    const token = r.users[this.s.user];
    const send = () => r.t.links[this.op](a, token);
    const answers = this.s.twice ? await Promise.all([send(), send()]) : [await send()];
    for (const res of answers) r.log.push(`  -> ${res.status} ${res.text.slice(0, 300)}`);
    const verdict = linkVerdict(this.s.user, this.op);
    // a user other than the administrator holding what the table names (Attach Contacts for an
    // Upsert, Detach Contacts for a Remove of a link that is there, View on Contact) is let through
    // (AUTH-006, as auth.test.ts reads it): a refusal of it is that sentence's, not the link rules'
    if (verdict.allowed && this.s.user !== 'admin' && (this.op === 'upsert' || m.links.has(slotKey(slot))))
      judged('AUTH-006', () =>
        expect(
          answers.some((res) => !isRefusal(res)),
          `Link/${this.name()} ${slotKey(slot)} by a user of class ${this.s.user} (holding the permission spec 5 names) is accepted (${answers.map((res) => `${res.status} ${res.text.slice(0, 200)}`).join('; ')})`,
        ).toBe(true),
      );
    const rule = verdict.allowed ? this.judgeAndApply(m, slot, answers) : verdict.requirement;
    // a user lacking a permission the spec names (5): every answer is a refusal, whatever its
    // status and body (not shown), and no link changes anywhere (the read-back, blamed on the same
    // sentence). A Remove of a link that is not there changes nothing either way: only the
    // read-back judges it (which check comes first, permission or existence, is not shown).
    if (!verdict.allowed && (this.op === 'upsert' || m.links.has(slotKey(slot))))
      for (const res of answers)
        judged(rule, () =>
          expect(
            isRefusal(res),
            `Link/${this.name()} ${slotKey(slot)} by a user of class ${this.s.user} (lacking the permission spec 5 names) is refused (${res.status} ${res.text.slice(0, 200)})`,
          ).toBe(true),
        );
    // an allowed Remove: the named link still there is the removal's failure (LINK-015), whatever
    // named the parent; another link changed is the step's rule (LINK-009 by match field)
    await checkLinks(
      m,
      r,
      rule,
      verdict.allowed && this.op === 'remove' ? { slot, requirement: 'LINK-015' } : undefined,
    );
  }
  private name() {
    return this.op === 'upsert' ? 'Upsert' : 'Remove';
  }
  toString() {
    const { slot, target, pick, by, twice, user } = this.s;
    const named = target === 'slot' ? slotKey(slot) : `${target} #${pick} else ${slotKey(slot)}`;
    return `Link${this.name()}${twice ? 'Twice' : ''}(${named}, by ${by}${user === 'admin' ? '' : `, as ${user}`})`;
  }
}

/** Upserts the link of `slot`, again an existing one (LINK-014: updated, not added twice), or its sibling. */
class LinkUpsertCommand extends LinkCommand {
  protected readonly op = 'upsert';
  protected judgeAndApply(m: Model, slot: LinkSlot, answers: LinkAnswer[]) {
    // a new link is created (LINK-013); an existing one is updated, not added twice (LINK-014);
    // twice at once: whichever runs second updates the link the first created (LINK-014)
    const rule = m.links.has(slotKey(slot)) || answers.length > 1 ? 'LINK-014' : 'LINK-013';
    // twice at once, one may be refused as a conflict (no rule says both must succeed)
    judged(rule, () =>
      expect(
        answers.some((res) => !isRefusal(res)),
        `Link/Upsert ${slotKey(slot)} is accepted (${answers.map((res) => `${res.status} ${res.text}`).join('; ')})`,
      ).toBe(true),
    );
    applyLinkUpsert(m.links, slot);
    return rule;
  }
}

/** Removes an existing link (by `pick`), its sibling, or the link of `slot`. */
class LinkRemoveCommand extends LinkCommand {
  protected readonly op = 'remove';
  protected judgeAndApply(m: Model, slot: LinkSlot, answers: LinkAnswer[]) {
    const existed = applyLinkRemove(m.links, slot);
    // Removing a link that is not there: the answer is not documented (core checks only that
    // nothing changed); the reference answers IsSuccessful false (LINK-017). Twice at once, one
    // of the two removes it.
    if (existed)
      judged('LINK-015', () =>
        expect(
          answers.some((res) => !isRefusal(res)),
          `Link/Remove of link ${slotKey(slot)} is accepted`,
        ).toBe(true),
      );
    else if (m.flavour === 'reference')
      for (const res of answers)
        judged('LINK-017', () =>
          expect(
            (res.json as Partial<LinkRemoveResult> | undefined)?.IsSuccessful,
            'the reference answers a Remove of no link IsSuccessful false',
          ).toBe(false),
        );
    // a Remove by match field identifies the parent as the key does (LINK-009)
    return this.s.by === 'match' ? 'LINK-009' : 'LINK-015';
  }
}

export { LinkRemoveCommand, LinkUpsertCommand };
