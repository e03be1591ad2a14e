// The steps of the model-based tests as fast-check commands: each runs one operation against the
// service, checks the answer against the oracle (oracle.ts), applies the step to the model, and
// then compares what the interface shows with the model (read back every record and every link).
import fc from 'fast-check';
import { expect } from 'vitest';
import { expectMentions, isRefusal } from '../../../src/suite-api/meaning.js';
import type { components } from '../../../../spec/generated/openapi.js';
import type { Ctx } from '../request.js';
import {
  deleteSchedule,
  expectResultShape,
  fieldPattern,
  readRecord,
  REQUIRED,
  reinstate,
  type ScheduleResult,
  upsertMulti,
} from '../schedules.js';
import {
  LOC_FIELD_NAMES,
  activeRecords,
  applyBatch,
  applyDelete,
  applyLinkRemove,
  applyLinkUpsert,
  applyReinstate,
  expectBatch,
  expectedRead,
  filledArrays,
  linkedParents,
  reinstateCandidates,
  reinstateOutcome,
  relationshipIndex,
  resolveBatch,
  slotKey,
  takenIds,
  type BatchSpec,
  type Expected,
  type LinkSlot,
  type Model,
} from './oracle.js';
import { judged } from './blame.js';

/** DomainID of Contact (spec 2.1). */
const CONTACT_DOMAIN_ID = 2;
const LINK_COLUMNS = 'ParentDomainID,ParentID,ChildDomainID,ChildID';

/** The real system of one run: the records the provider states made, and a log of the steps. */
export interface Real {
  t: Ctx;
  proposalId: number;
  scheduleDomain: string;
  /** The schedule domain's key column, when the proposal state named it (a read by ID is checked on it). */
  scheduleKey?: string;
  parents: Array<{ domain: string; domainId: number; id: number }>;
  contacts: number[];
  relationships: string[];
  /** The concrete steps of this run (IDs and values), for the report of a failing run. */
  log: string[];
}

type Cmd = fc.AsyncCommand<Model, Real>;
type ListEnvelope = components['schemas']['ListEnvelope'];
type LinkRemoveResult = components['schemas']['LinkRemoveResult'];
type LinkAnswer = Awaited<ReturnType<Ctx['links']['upsert']>>;

// ------------------------------------------------------------------------- read-back checks

/**
 * Every record of the model read back by ID (GET /api/{domain}/{id}) and compared. A difference is
 * blamed on `requirement`, the rule of the step just taken (the read-back is how it is judged).
 */
async function checkSchedules(m: Model, r: Real, requirement: string): Promise<void> {
  // the reads at once (reads change nothing), judged in the model's order
  const reads = await Promise.all(
    m.records.map(async (rec) => {
      const want = expectedRead(m, rec);
      return {
        rec,
        want,
        got: want === undefined ? undefined : await readRecord(r.t, r, rec.id, LOC_FIELD_NAMES),
      };
    }),
  );
  for (const { rec, want, got } of reads) {
    if (want === undefined) continue;
    judged(requirement, () => {
      if (want === 'absent') expect(got, `record ${rec.id} (${rec.state}) cannot be read`).toBeNull();
      else expect(got, `record ${rec.id} (${rec.state}) reads back with the model's values`).toEqual(want);
    });
  }
  if (m.flavour === 'reference') await checkScheduleSet(m, r, requirement);
}

/**
 * Reference flavour: the active records of the proposal, listed by the domain query with the
 * reference's filter syntax (QRY-020) on ProposalID, are exactly the model's active records: no
 * rolled-back insert kept, no deleted record shown, nothing else.
 */
async function checkScheduleSet(m: Model, r: Real, requirement: string): Promise<void> {
  const key = `${r.scheduleDomain}ID`;
  const qs = new URLSearchParams({
    [r.t.bindings.query.filter]: `ProposalID:eq:${r.proposalId}`,
    columns: [key, ...LOC_FIELD_NAMES].join(','),
    take: '100',
  });
  const res = await r.t.raw(`/api/${encodeURIComponent(r.scheduleDomain)}/Query?${qs}`);
  judged('QRY-020', () => expect(res.status, "query of the proposal's schedule records").toBe(200));
  const rows = (res.json as Partial<ListEnvelope> | undefined)?.List ?? [];
  judged('SCHED-027', () =>
    expect(m.untracked, 'the reference answers every insert of a successful atomic batch').toBe(0),
  );
  const got = rows.map(({ [key]: id, ...fields }) => ({ id, fields })).sort((a, b) => Number(a.id) - Number(b.id));
  const want = activeRecords(m)
    .map((x) => ({ id: x.id, fields: x.fields }))
    .sort((a, b) => a.id - b.id);
  judged(requirement, () =>
    expect(got, "the proposal's active schedule records are exactly the model's").toEqual(want),
  );
}

/**
 * The links of every contact (Link/Query by child, LINK-011), compared with the model; a difference
 * is blamed on `requirement`, the rule of the link step just taken.
 */
async function checkLinks(m: Model, r: Real, requirement: string): Promise<void> {
  const relCol = r.t.bindings.linkColumns.relationship;
  const columns = m.flavour === 'reference' ? `${LINK_COLUMNS},${relCol}` : LINK_COLUMNS;
  // every contact's links read at once (reads change nothing), judged contact by contact
  const answers = await Promise.all(
    r.contacts.map((cid) =>
      r.t.api.GET('/api/Link/Query', {
        params: { query: { childDomain: 'Contact', childRecordID: cid, columns } },
      }),
    ),
  );
  for (let c = 0; c < r.contacts.length; c++) {
    const cid = r.contacts[c];
    const res = answers[c]!;
    judged('LINK-011', () => expect(res.response.status, `Link/Query of contact ${cid}`).toBe(200));
    const rows = res.data?.List ?? [];
    const parents = linkedParents(m, c);
    for (const row of rows)
      judged('LINK-011', () =>
        expect(row, `a link row of contact ${cid} names it as the child`).toMatchObject({
          ChildDomainID: CONTACT_DOMAIN_ID,
          ChildID: cid,
        }),
      );
    const shown = rows.map((x) => `${x.ParentDomainID}/${x.ParentID}`).sort();
    const want = parents.map((p) => `${r.parents[p].domainId}/${r.parents[p].id}`).sort();
    judged(requirement, () =>
      expect(
        shown,
        `contact ${cid} is linked exactly once to each parent the model links it to, and nothing else`,
      ).toEqual(want),
    );
    if (m.flavour === 'reference') {
      for (const p of parents) {
        const row = rows.find((x) => x.ParentDomainID === r.parents[p].domainId && x.ParentID === r.parents[p].id)!;
        const rel = relationshipIndex({ parent: p, contact: c });
        judged('LINK-007', () => {
          if (rel === undefined) expect(row[relCol], `link ${p}:${c} has no relationship`).toBeNull();
          else expect(Number.isInteger(row[relCol]), `link ${p}:${c} stores its relationship`).toBe(true);
        });
      }
    }
  }
}

// ------------------------------------------------------------------------- schedule commands

/** The results of one answered array by OrderNumber, each of the documented shape (2.5), each order once. */
function byOrder(items: unknown, what: string): Map<number, ScheduleResult> {
  judged('SCHED-008', () => expect(Array.isArray(items), `${what} is an array of results`).toBe(true));
  const map = new Map<number, ScheduleResult>();
  (items as unknown[]).forEach((item, i) => {
    judged('SCHED-008', () => expectResultShape(item, `${what}[${i}]`));
    const it = item as ScheduleResult; // the shape was just checked
    // an item of a batch answers its position in its input array (null is for the single delete)
    const order = it.OrderNumber as number;
    judged('SCHED-003', () => {
      expect(Number.isInteger(it.OrderNumber), `${what}[${i}].OrderNumber is an integer`).toBe(true);
      expect(map.has(order), `${what}: OrderNumber ${order} answered once`).toBe(false);
    });
    map.set(order, it);
  });
  return map;
}

/**
 * Checks one array of results against the expectation; returns the RecordIDs of new inserts.
 * `listing` is the rule that says which items the answer lists (SCHED-012, 013, 015).
 */
function checkResults(
  what: 'Inserts' | 'Updates' | 'Deletes',
  items: unknown,
  expected: Expected[],
  answered: 'all' | 'failed-only' | 'successful-subset',
  knownIds: Set<number>,
  listing: string,
): Map<number, number> {
  const got = byOrder(items, what);
  // each OrderNumber indexes its item in the array sent (SCHED-003): judged before which are listed
  judged('SCHED-003', () => {
    for (const order of got.keys())
      expect(order >= 0 && order < expected.length, `${what}: OrderNumber ${order} of ${expected.length} sent`).toBe(
        true,
      );
  });
  const listed =
    answered === 'all'
      ? expected
      : answered === 'failed-only'
        ? expected.filter((e) => !e.ok)
        : expected.filter((e) => got.has(e.order));
  judged(listing, () =>
    expect(
      [...got.keys()].sort((a, b) => a - b),
      `${what}: the answered items (by OrderNumber; ${answered})`,
    ).toEqual(listed.map((e) => e.order)),
  );
  // the rule a failed item of this array breaks: an insert without LocationName (SCHED-016), an
  // update that empties it (SCHED-017), another failure (SCHED-023)
  const failure = what === 'Inserts' ? 'SCHED-016' : what === 'Updates' ? 'SCHED-017' : 'SCHED-023';
  const newIds = new Map<number, number>();
  for (const e of listed) {
    // listed orders are exactly the answered ones (checked above)
    const it = got.get(e.order)!;
    judged(e.ok ? 'SCHED-008' : failure, () => expect(it.IsSuccessful, `${what}[${e.order}].IsSuccessful`).toBe(e.ok));
    judged('SCHED-005', () =>
      expect(typeof it.Message === 'string' && it.Message.length > 0, `${what}[${e.order}] has a Message`).toBe(true),
    );
    judged('SCHED-002', () => {
      if (e.recordId === 'new') {
        expect(Number.isInteger(it.RecordID) && it.RecordID > 0, `${what}[${e.order}].RecordID is the new ID`).toBe(
          true,
        );
        expect(knownIds.has(it.RecordID), `${what}[${e.order}].RecordID ${it.RecordID} is a new ID`).toBe(false);
      } else {
        expect(it.RecordID, `${what}[${e.order}].RecordID`).toBe(e.recordId);
      }
    });
    if (e.recordId === 'new') {
      knownIds.add(it.RecordID);
      newIds.set(e.order, it.RecordID);
    }
    // the same meaning check as the schedule tests (catalogue `meaning:` of SCHED-005): the field, and
    // that it is required, in any wording
    if (!e.ok) judged(failure, () => expectMentions(it.Message, fieldPattern('LocationName'), REQUIRED));
  }
  return newIds;
}

class BatchCommand implements Cmd {
  constructor(readonly spec: BatchSpec) {}
  /** A batch answered with part of its items runs only once an answer listing every item has shown
   * the OrderNumbers of its arrays (Model.ordersShown): one wrong numbering, one red line (SCHED-003). */
  check(m: Readonly<Model>) {
    // resolved on a copy: resolving draws field values from the model's counter
    const b = resolveBatch({ ...(m as Model) }, this.spec);
    return expectBatch(m as Model, b).answered === 'all' || filledArrays(b).every((a) => m.ordersShown.has(a));
  }
  async run(m: Model, r: Real) {
    const b = resolveBatch(m, this.spec);
    const e = expectBatch(m, b);
    r.log.push(
      `UpsertMulti isAtomic=${b.atomic ?? '(absent)'} ${JSON.stringify({
        Inserts: b.inserts.map((x) => x.fields),
        Updates: b.updates.map((x) => ({ ID: x.id, Fields: x.fields })),
        Deletes: b.deletes.map((x) => ({ ID: x.id })),
      })}`,
    );
    const res = await upsertMulti(
      r.t,
      r.proposalId,
      r.scheduleDomain,
      {
        Inserts: b.inserts.map((x) => ({ Fields: x.fields })),
        Updates: b.updates.map((x) => ({ ID: x.id, Fields: x.fields })),
        Deletes: b.deletes.map((x) => ({ ID: x.id })),
      },
      b.atomic,
    );
    r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // The HTTP status of a batch with failed items is not shown (spec 7): judged by its items only.
    if (!e.anyFails)
      judged('SCHED-008', () =>
        expect(res.status >= 200 && res.status < 300, `UpsertMulti answers 2xx (got ${res.status})`).toBe(true),
      );
    const known = takenIds(m);
    // which items the answer lists: every item without isAtomic (SCHED-013) or non-atomic (SCHED-012),
    // only the failed ones of an atomic batch that failed (SCHED-015)
    const listing =
      e.answered === 'failed-only'
        ? 'SCHED-015'
        : b.atomic === undefined
          ? 'SCHED-013'
          : b.atomic
            ? 'SCHED-008'
            : 'SCHED-012';
    // what the records show afterwards: nothing of an atomic batch that failed (SCHED-014), exactly
    // the successful items otherwise (SCHED-011 non-atomic, SCHED-013 without isAtomic, SCHED-008)
    const applied =
      b.atomic === undefined ? 'SCHED-013' : b.atomic === false ? 'SCHED-011' : e.anyFails ? 'SCHED-014' : 'SCHED-008';
    // the answer's arrays as sent (checkResults judges each one's shape)
    const answer = (res.body ?? {}) as Partial<Record<'Inserts' | 'Updates' | 'Deletes', unknown>>;
    const ins = checkResults('Inserts', answer.Inserts, e.inserts, e.answered, known, listing);
    checkResults('Updates', answer.Updates, e.updates, e.answered, known, listing);
    checkResults('Deletes', answer.Deletes, e.deletes, e.answered, known, listing);
    // every item answered and each OrderNumber its index: the numbering of these arrays is shown
    if (e.answered === 'all') for (const a of filledArrays(b)) m.ordersShown.add(a);
    applyBatch(
      m,
      b,
      e,
      b.inserts.map((_, i) => ins.get(i)),
    );
    await checkSchedules(m, r, applied);
  }
  toString() {
    const s = this.spec;
    return `UpsertMulti(atomic=${s.atomic}, inserts=[${s.inserts.join(',')}], updates=[${s.updates
      .map((u) => `#${u.pick}:${u.kind}`)
      .join(',')}], deletes=[${s.deletes.map((d) => `#${d}`).join(',')}])`;
  }
}

class DeleteCommand implements Cmd {
  constructor(readonly pick: number) {}
  check(m: Readonly<Model>) {
    return activeRecords(m as Model).length > 0;
  }
  async run(m: Model, r: Real) {
    const active = activeRecords(m);
    const rec = active[this.pick % active.length];
    r.log.push(`DELETE ${r.scheduleDomain}/${rec.id}`);
    const res = await deleteSchedule(r.t, r.proposalId, r.scheduleDomain, rec.id);
    r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // a soft delete on an Endorsement (SCHED-019), a permanent one on the other types (SCHED-022)
    const rule = m.kind === 'Endorsement' ? 'SCHED-019' : 'SCHED-022';
    judged(rule, () => {
      expect(res.status >= 200 && res.status < 300, `DELETE answers 2xx (got ${res.status})`).toBe(true);
      expect(res.body, 'DELETE result').toMatchObject({ IsSuccessful: true, RecordID: rec.id });
    });
    judged('SCHED-004', () => expect(res.body, 'DELETE result').toMatchObject({ OrderNumber: null }));
    applyDelete(m, rec.id);
    await checkSchedules(m, r, rule);
  }
  toString() {
    return `Delete(#${this.pick})`;
  }
}

class ReinstateCommand implements Cmd {
  constructor(readonly pick: number) {}
  check(m: Readonly<Model>) {
    return reinstateCandidates(m as Model).length > 0;
  }
  async run(m: Model, r: Real) {
    const cands = reinstateCandidates(m);
    const rec = cands[this.pick % cands.length];
    const outcome = reinstateOutcome(rec);
    r.log.push(`Reinstate ${r.scheduleDomain}/${rec.id} (${rec.state})`);
    const res = await reinstate(r.t, r.proposalId, r.scheduleDomain, rec.id);
    r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // a soft-deleted record comes back (SCHED-021); a permanently deleted one does not (SCHED-022)
    const rule = outcome === 'restored' ? 'SCHED-021' : 'SCHED-022';
    if (outcome === 'restored')
      judged(rule, () =>
        expect(isRefusal(res.res), `Reinstate of soft-deleted record ${rec.id} is accepted`).toBe(false),
      );
    if (outcome === 'refused') {
      judged(rule, () =>
        expect(isRefusal(res.res), `Reinstate of ${rec.state} record ${rec.id} is refused`).toBe(true),
      );
      if (m.flavour === 'reference')
        judged('SCHED-024', () => {
          expect(res.status, 'the reference refuses a Reinstate of a record that is not soft-deleted with 409').toBe(
            409,
          );
          expect(res.body).toMatchObject({ IsSuccessful: false, OrderNumber: null });
        });
    }
    applyReinstate(rec);
    await checkSchedules(m, r, rule);
  }
  toString() {
    return `Reinstate(#${this.pick})`;
  }
}

// ------------------------------------------------------------------------- link commands

function linkArgs(r: Real, s: LinkSlot) {
  const p = r.parents[s.parent];
  const rel = relationshipIndex(s);
  return {
    parentDomain: p.domain,
    parentId: p.id,
    childDomain: 'Contact',
    childId: r.contacts[s.contact],
    ...(rel === undefined ? {} : { relationship: r.relationships[rel] }),
  };
}

/** The link of an existing (parent, contact) pair, by `pick`, when `existing` and there is one; else `slot`. */
function targetSlot(m: Model, slot: LinkSlot, existing: boolean, pick: number): LinkSlot {
  const linked = [...m.links].sort();
  if (!existing || linked.length === 0) return slot;
  const [parent, contact] = linked[pick % linked.length].split(':').map(Number);
  return { parent, contact };
}

/**
 * One link step on the link of `slot`, or, when `existing` and there is one, on an existing link
 * picked by `pick`: sends it through the bindings (`t.links`), logs it, lets the subclass judge the
 * answer and apply the step to the model, then reads every contact's links back (checkLinks).
 */
abstract class LinkCommand implements Cmd {
  protected abstract readonly op: 'upsert' | 'remove';
  constructor(
    readonly slot: LinkSlot,
    readonly existing: boolean,
    readonly pick: number,
  ) {}
  check() {
    return true;
  }
  /**
   * Judges the answer to the step on `slot` and applies the step to the model; returns the rule
   * the read-back of every contact's links judges next.
   */
  protected abstract judgeAndApply(m: Model, slot: LinkSlot, res: LinkAnswer): string;
  async run(m: Model, r: Real) {
    const slot = targetSlot(m, this.slot, this.existing, this.pick);
    const a = linkArgs(r, slot);
    r.log.push(`Link/${this.name()} ${JSON.stringify(a)}`);
    const res = await r.t.links[this.op](a);
    r.log.push(`  -> ${res.status} ${res.text.slice(0, 300)}`);
    const rule = this.judgeAndApply(m, slot, res);
    await checkLinks(m, r, rule);
  }
  private name() {
    return this.op === 'upsert' ? 'Upsert' : 'Remove';
  }
  toString() {
    return this.existing
      ? `Link${this.name()}(existing #${this.pick} else ${slotKey(this.slot)})`
      : `Link${this.name()}(${slotKey(this.slot)})`;
  }
}

/** Upserts the link of `slot`, or again an existing one (LINK-014: updated, not added twice). */
class LinkUpsertCommand extends LinkCommand {
  protected readonly op = 'upsert';
  protected judgeAndApply(m: Model, slot: LinkSlot, res: LinkAnswer) {
    // a new link is created (LINK-013); an existing one is updated, not added twice (LINK-014)
    const rule = m.links.has(slotKey(slot)) ? 'LINK-014' : 'LINK-013';
    judged(rule, () =>
      expect(isRefusal(res), `Link/Upsert ${slotKey(slot)} is accepted (${res.status} ${res.text})`).toBe(false),
    );
    applyLinkUpsert(m, slot);
    return rule;
  }
}

/** Removes an existing link (by `pick`, when `existing` and there is one) or the link of `slot`. */
class LinkRemoveCommand extends LinkCommand {
  protected readonly op = 'remove';
  protected judgeAndApply(m: Model, slot: LinkSlot, res: LinkAnswer) {
    const existed = applyLinkRemove(m, slot);
    // Removing a link that is not there: the answer is not documented (core checks only that
    // nothing changed); the reference answers IsSuccessful false (LINK-017).
    if (existed)
      judged('LINK-015', () => expect(isRefusal(res), `Link/Remove of link ${slotKey(slot)} is accepted`).toBe(false));
    else if (m.flavour === 'reference')
      judged('LINK-017', () =>
        expect(
          (res.json as Partial<LinkRemoveResult> | undefined)?.IsSuccessful,
          'the reference answers a Remove of no link IsSuccessful false',
        ).toBe(false),
      );
    return 'LINK-015';
  }
}

// ------------------------------------------------------------------------- arbitraries

/**
 * The step generators. Weighted so that a short run still meets the interesting cases: atomic
 * batches that mix failing and succeeding items, removals of links that exist.
 */
export function commandArbitraries(): Array<fc.Arbitrary<Cmd>> {
  const pick = fc.nat({ max: 7 });
  const slot = fc.record({ parent: fc.nat({ max: 1 }), contact: fc.nat({ max: 2 }) });
  const batch = fc.record({
    atomic: fc.constantFrom(true, true, false, undefined),
    inserts: fc.array(fc.constantFrom('valid' as const, 'valid' as const, 'missing-name' as const), { maxLength: 3 }),
    updates: fc.array(
      fc.record({ pick, kind: fc.constantFrom('valid' as const, 'valid' as const, 'empty-name' as const) }),
      { maxLength: 2 },
    ),
    deletes: fc.array(pick, { maxLength: 1 }),
  });
  const upsert = fc
    .tuple(slot, fc.constantFrom(true, false, false), pick)
    .map(([s, existing, p]) => new LinkUpsertCommand(s, existing, p));
  const remove = fc
    .tuple(slot, fc.constantFrom(true, true, true, false), pick)
    .map(([s, existing, p]) => new LinkRemoveCommand(s, existing, p));
  // fc.commands picks each entry equally often: half schedule steps, half link steps
  return [
    batch.map((s) => new BatchCommand(s)),
    batch.map((s) => new BatchCommand(s)),
    pick.map((p) => new DeleteCommand(p)),
    pick.map((p) => new ReinstateCommand(p)),
    upsert,
    upsert,
    remove,
    remove,
  ];
}
